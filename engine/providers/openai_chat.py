"""OpenAI-compatible chat completions (Groq, vLLM, Ollama, llama.cpp server, Azure, Gemini's
compatible endpoint), through the official ``openai`` SDK: ``chat.completions.create(stream=True)``.

Request mapping: the messages as they are (system messages keep their role), each
:class:`~egress.wire.ToolSpec` a ``function`` tool, ``tool_choice`` (the request's, else the
setting), ``max_tokens`` (the name every compatible server knows) and
``stream_options.include_usage`` so the last chunk carries the usage.

Stream mapping:

    choices[0].delta.content                       -> Text(delta)
    choices[0].delta.tool_calls[i] (by ``index``)  -> assembled: the first piece has the id and
                                                       name, later pieces append ``arguments``
    finish_reason stop / tool_calls                -> each assembled call as Tool(name, args),
                                                       in index order
    finish_reason length / content_filter          -> Error(provider_incomplete), then stop
    the usage chunk, then ``[DONE]``               -> Done(Usage)
    an ``{"error": ...}`` frame                    -> Error(provider_failed), then stop

Answer-only: with ``tools=False`` (a model without tool support) the tools are never sent; a
server that answers a request with tools with HTTP 400 gets the same request once more without
``tools`` and ``tool_choice``. Either way ``Done(answer_only=True)`` tells the engine that no
capture can come, and the engine captures from the question and answer with its lexicon —
no extra model call.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

import openai
import structlog
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletionChunk

from egress.wire import Done, Error, LlmRequest, StreamChunk, Text, Tool, ToolSpec, Usage
from engine.providers.failures import HttpClient, ProviderFailures
from engine.providers.openai_responses import DEFAULT_BASE_URL, OPENAI_ERRORS
from engine.providers.tool_schema import parse_arguments
from infra.lifetime import Lifetime

__all__ = ["OpenAIChatProvider"]

log = structlog.get_logger(__name__)


class OpenAIChatProvider:
    """An :class:`egress.wire.LlmProvider` over ``POST /v1/chat/completions`` streaming."""

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        name: str = "openai_chat",
        timeout: float = 60.0,
        max_retries: int = 2,
        tool_choice: str = "auto",
        http_client: HttpClient = "aiohttp",
        tools: bool = True,
    ) -> None:
        if not api_key:
            raise ValueError(
                f"the {name} provider needs an API key (use any text for a local server)"
            )
        self.name = name
        self._tool_choice = tool_choice
        self._tools = tools
        self._failures = ProviderFailures(name, api_key, OPENAI_ERRORS)
        self._lifetime = Lifetime("the OpenAI-compatible chat provider")
        self._client = AsyncOpenAI(
            api_key=api_key,
            base_url=base_url or DEFAULT_BASE_URL,
            timeout=timeout,
            max_retries=max_retries,
            http_client=openai.DefaultAioHttpClient() if http_client == "aiohttp" else None,
        )

    async def aclose(self) -> None:
        """Close the client for good; a later ``stream`` raises :class:`errors.AdapterClosed`."""
        self._lifetime.close()
        await self._client.close()

    async def stream(self, request: LlmRequest) -> AsyncGenerator[StreamChunk, None]:
        self._lifetime.check()
        messages: Any = [{"role": m.role, "content": m.content} for m in request.messages]
        tools = [_function_tool(tool) for tool in request.tools] if self._tools else []
        answer_only = bool(request.tools) and not tools
        try:
            try:
                chunks = await self._create(request, messages, tools)
            except openai.BadRequestError:
                if not tools:
                    raise
                log.warning("llm_tools_rejected_answer_only", provider=self.name)
                answer_only = True
                chunks = await self._create(request, messages, [])
        except openai.OpenAIError as exc:
            yield self._failures.failure(exc, started=False)
            return
        calls = _ToolCalls()
        finish: str | None = None
        usage = Usage()
        async with chunks:
            while True:
                try:
                    chunk = await anext(chunks)
                except StopAsyncIteration:
                    break
                except (openai.OpenAIError, ValueError) as exc:
                    yield self._failures.failure(exc, started=True)
                    return
                if chunk.usage is not None:
                    usage = Usage(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
                for out in _read(chunk, calls):
                    yield out
                reason = chunk.choices[0].finish_reason if chunk.choices else None
                if reason in ("length", "content_filter"):
                    yield self._failures.error(
                        "provider_incomplete", f"the response stopped early ({reason})"
                    )
                    return
                if reason is not None:
                    finish = reason
                    for tool in calls.finished():
                        yield tool
        if finish is None:
            yield Error(
                f"{self.name}: the stream ended before the response completed",
                code="provider_stream_incomplete",
            )
            return
        yield Done(usage, answer_only=answer_only)

    async def _create(
        self, request: LlmRequest, messages: Any, tools: list[Any]
    ) -> openai.AsyncStream[ChatCompletionChunk]:
        choice = request.tool_choice or self._tool_choice
        return await self._client.chat.completions.create(
            model=request.model,
            messages=messages,
            tools=tools or openai.omit,
            tool_choice=_tool_choice(choice) if tools else openai.omit,
            max_tokens=request.max_output_tokens,
            stream=True,
            stream_options={"include_usage": True},
        )


@dataclass
class _Call:
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class _ToolCalls:
    """Tool-call deltas assembled by ``index``; each call is yielded once, at the finish."""

    def __init__(self) -> None:
        self._calls: dict[int, _Call] = {}

    def piece(self, index: int, name: str | None, arguments: str | None) -> None:
        call = self._calls.setdefault(index, _Call())
        if name:
            call.name = name
        if arguments:
            call.arguments.append(arguments)

    def finished(self) -> list[Tool]:
        tools = [
            Tool(name=call.name, args=parse_arguments("".join(call.arguments)))
            for _, call in sorted(self._calls.items())
        ]
        self._calls.clear()
        return tools


def _read(chunk: ChatCompletionChunk, calls: _ToolCalls) -> list[StreamChunk]:
    if not chunk.choices:
        return []
    delta = chunk.choices[0].delta
    for tool_call in delta.tool_calls or []:
        function = tool_call.function
        calls.piece(
            tool_call.index,
            function.name if function else None,
            function.arguments if function else None,
        )
    return [Text(delta.content)] if delta.content else []


def _function_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def _tool_choice(choice: str) -> Any:
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}
