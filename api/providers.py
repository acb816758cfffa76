"""The LLM part of the composition root: providers and the router, from settings (ADR 0015).

Each provider kind is built once per app — one SDK client, one connection pool, reused by
every turn — when a route names it or its key is set: ``extractive`` always (offline),
``openai`` (Responses API), ``openai_chat`` (any OpenAI-compatible chat-completions server)
and ``anthropic`` (Messages API). A route naming a kind without its key fails at start-up.
"""

from __future__ import annotations

from api.settings import Settings
from egress.wire import LlmProvider
from engine.lexicon import ConceptLexicon
from engine.providers.extractive import ExtractiveProvider
from engine.router import CallTimeouts, LlmRouter, Route, parse_route
from errors import InvalidInput

__all__ = ["build_providers", "build_router", "routed_providers"]

_KEYS: dict[str, str] = {
    "openai": "REGINTEL_OPENAI_API_KEY",
    "openai_chat": "REGINTEL_OPENAI_CHAT_API_KEY",
    "anthropic": "REGINTEL_ANTHROPIC_API_KEY",
}


def build_router(settings: Settings) -> LlmRouter:
    try:
        return LlmRouter(
            default=Route(settings.llm_provider, settings.llm_model),
            by_task={task: parse_route(r) for task, r in settings.llm_task_routes.items()},
            by_tenant={
                tenant: {task: parse_route(r) for task, r in routes.items()}
                for tenant, routes in settings.llm_tenant_routes.items()
            },
            fallbacks=[parse_route(settings.llm_fallback)] if settings.llm_fallback else [],
            timeouts=CallTimeouts(
                first_token=settings.llm_first_token_timeout_seconds,
                answer=settings.llm_answer_timeout_seconds,
            ),
        )
    except ValueError as exc:
        raise InvalidInput(f"LLM routes: {exc}") from exc


def routed_providers(router: LlmRouter) -> set[str]:
    """Every provider a route names."""
    routes = [router.default, *router.by_task.values(), *router.fallbacks]
    routes += [r for tenant in router.by_tenant.values() for r in tenant.values()]
    return {r.provider for r in routes}


def build_providers(
    settings: Settings, lexicon: ConceptLexicon, router: LlmRouter
) -> dict[str, LlmProvider]:
    providers: dict[str, LlmProvider] = {"extractive": ExtractiveProvider(lexicon)}
    keys = {
        "openai": settings.openai_api_key.get_secret_value(),
        "openai_chat": settings.openai_chat_api_key.get_secret_value(),
        "anthropic": settings.anthropic_api_key.get_secret_value(),
    }
    wanted = routed_providers(router)
    if unknown := sorted(wanted - {"extractive", *keys}):
        raise InvalidInput(f"LLM routes name unknown providers: {unknown}")
    for kind, key in keys.items():
        if kind not in wanted and not key:
            continue
        if not key:
            raise InvalidInput(f"{_KEYS[kind]} is required when a route uses {kind}")
        providers[kind] = _build(kind, key, settings)
    return providers


def _build(kind: str, key: str, settings: Settings) -> LlmProvider:
    """A provider a route uses. Each SDK is imported here, when its provider is built: the
    OpenAI and Anthropic SDKs' types take seconds of CPU to import, which a server that answers
    offline (the default, and most test servers) never needs to spend."""
    timeout, retries = settings.llm_answer_timeout_seconds, settings.llm_max_retries
    choice, http = settings.llm_tool_choice, settings.llm_http_client
    if kind == "openai":
        from engine.providers.openai_responses import OpenAIResponsesProvider

        return OpenAIResponsesProvider(
            api_key=key,
            base_url=settings.openai_base_url,
            timeout=timeout,
            max_retries=retries,
            tool_choice=choice,
            http_client=http,
            strict_tools=settings.openai_strict_tools,
        )
    if kind == "openai_chat":
        from engine.providers.openai_chat import OpenAIChatProvider

        return OpenAIChatProvider(
            api_key=key,
            base_url=settings.openai_chat_base_url,
            timeout=timeout,
            max_retries=retries,
            tool_choice=choice,
            http_client=http,
            tools=settings.openai_chat_tools,
        )
    from engine.providers.anthropic_messages import AnthropicMessagesProvider

    return AnthropicMessagesProvider(
        api_key=key,
        base_url=settings.anthropic_base_url,
        timeout=timeout,
        max_retries=retries,
        tool_choice=choice,
        http_client=http,
    )
