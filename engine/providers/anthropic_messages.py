"""The Anthropic Messages API provider, through the official ``anthropic`` SDK.

Request mapping: the system messages become ``system``, the others ``messages`` (consecutive
messages of one role are joined: the API wants the roles to alternate), each
:class:`~egress.wire.ToolSpec` a tool with ``input_schema``, ``tool_choice`` (``auto``,
``required`` → ``any``, ``none``, or a tool name → ``{"type": "tool", ...}``) and
``max_tokens``.

Stream mapping (``messages.create(stream=True)``, the raw events):

    message_start                                -> input usage
    content_block_delta text_delta               -> Text(delta)
    content_block_start tool_use + input_json_delta pieces + content_block_stop
                                                 -> Tool(name, args)
    message_delta stop_reason max_tokens         -> Error(provider_incomplete), then stop
    message_delta usage, then message_stop       -> Done(Usage)
    an ``error`` event (the SDK raises)          -> Error(provider_failed), then stop

Failures map as for every SDK (:mod:`engine.providers.failures`); after ``message_stop`` the
body is read to its end so the connection goes back to the pool.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, Final

import anthropic
import httpx2
from anthropic import AsyncAnthropic
from anthropic.types import (
    RawContentBlockDeltaEvent,
    RawContentBlockStartEvent,
    RawContentBlockStopEvent,
    RawMessageDeltaEvent,
    RawMessageStartEvent,
    RawMessageStopEvent,
    RawMessageStreamEvent,
)

from egress.wire import (
    ChatMessage,
    Done,
    Error,
    LlmRequest,
    StreamChunk,
    Text,
    Tool,
    ToolSpec,
    Usage,
)
from engine.providers.failures import HttpClient, ProviderFailures, SdkErrors
from engine.providers.tool_schema import parse_arguments
from infra.lifetime import Lifetime

__all__ = ["ANTHROPIC_ERRORS", "DEFAULT_ANTHROPIC_URL", "AnthropicMessagesProvider"]

DEFAULT_ANTHROPIC_URL: Final = "https://api.anthropic.com"
ANTHROPIC_ERRORS: Final = SdkErrors(
    status=anthropic.APIStatusError,
    timeout=(anthropic.APITimeoutError, httpx2.TimeoutException),
    # The SDK lets a transport error that breaks a stream through unwrapped.
    connection=(anthropic.APIConnectionError, httpx2.TransportError),
)


class AnthropicMessagesProvider:
    """An :class:`egress.wire.LlmProvider` over ``POST /v1/messages`` with ``stream=true``."""

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        name: str = "anthropic",
        timeout: float = 60.0,
        max_retries: int = 2,
        tool_choice: str = "auto",
        http_client: HttpClient = "aiohttp",
    ) -> None:
        if not api_key:
            raise ValueError("the Anthropic provider needs an API key (REGINTEL_ANTHROPIC_API_KEY)")
        self.name = name
        self._tool_choice = tool_choice
        self._failures = ProviderFailures(name, api_key, ANTHROPIC_ERRORS)
        self._lifetime = Lifetime("the Anthropic Messages provider")
        self._client = AsyncAnthropic(
            api_key=api_key,
            base_url=base_url or DEFAULT_ANTHROPIC_URL,
            timeout=timeout,
            max_retries=max_retries,
            http_client=anthropic.DefaultAioHttpClient() if http_client == "aiohttp" else None,
        )

    async def aclose(self) -> None:
        """Close the client for good; a later ``stream`` raises :class:`errors.AdapterClosed`."""
        self._lifetime.close()
        await self._client.close()

    async def stream(self, request: LlmRequest) -> AsyncGenerator[StreamChunk, None]:
        self._lifetime.check()
        system, messages = _messages(request.messages)
        tools: Any = [_tool(tool) for tool in request.tools]
        choice = request.tool_choice or self._tool_choice
        try:
            events = await self._client.messages.create(
                model=request.model,
                max_tokens=request.max_output_tokens,
                messages=messages,
                system=system if system is not None else anthropic.omit,
                tools=tools or anthropic.omit,
                tool_choice=_tool_choice(choice) if tools else anthropic.omit,
                stream=True,
            )
        except anthropic.AnthropicError as exc:
            yield self._failures.failure(exc, started=False)
            return
        blocks = _ToolBlocks()
        input_tokens = output_tokens = 0
        async with events:
            while True:
                try:
                    event = await anext(events)
                except StopAsyncIteration:
                    break
                except (anthropic.AnthropicError, httpx2.TransportError, ValueError) as exc:
                    yield self._failures.failure(exc, started=True)
                    return
                if isinstance(event, RawMessageStartEvent):
                    input_tokens = event.message.usage.input_tokens
                elif isinstance(event, RawMessageDeltaEvent):
                    output_tokens = event.usage.output_tokens
                    if event.delta.stop_reason == "max_tokens":
                        yield self._failures.error(
                            "provider_incomplete", "the response stopped early (max_tokens)"
                        )
                        return
                elif isinstance(event, RawMessageStopEvent):
                    async for _ in events:  # to the end of the body: the connection is reused
                        pass
                    yield Done(Usage(input_tokens, output_tokens))
                    return
                elif (chunk := blocks.read(event)) is not None:
                    yield chunk
        yield Error(
            f"{self.name}: the stream ended before the message stopped",
            code="provider_stream_incomplete",
        )


class _ToolBlocks:
    """``tool_use`` blocks assembled from their ``input_json_delta`` pieces, by block index."""

    def __init__(self) -> None:
        self._names: dict[int, str] = {}
        self._pieces: dict[int, list[str]] = {}

    def read(self, event: RawMessageStreamEvent) -> StreamChunk | None:
        if isinstance(event, RawContentBlockStartEvent):
            if event.content_block.type == "tool_use":
                self._names[event.index] = event.content_block.name
                self._pieces[event.index] = []
            return None
        if isinstance(event, RawContentBlockDeltaEvent):
            delta = event.delta
            if delta.type == "text_delta":
                return Text(delta.text) if delta.text else None
            if delta.type == "input_json_delta" and event.index in self._pieces:
                self._pieces[event.index].append(delta.partial_json)
            return None
        if isinstance(event, RawContentBlockStopEvent) and event.index in self._names:
            name = self._names.pop(event.index)
            text = "".join(self._pieces.pop(event.index)) or "{}"
            return Tool(name=name, args=parse_arguments(text))
        return None


def _messages(messages: list[ChatMessage]) -> tuple[str | None, list[Any]]:
    system = [m.content for m in messages if m.role == "system"]
    out: list[dict[str, str]] = []
    for m in messages:
        if m.role == "system":
            continue
        if out and out[-1]["role"] == m.role:
            out[-1] = {"role": m.role, "content": f"{out[-1]['content']}\n\n{m.content}"}
        else:
            out.append({"role": m.role, "content": m.content})
    return ("\n\n".join(system) if system else None), list(out)


def _tool(tool: ToolSpec) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def _tool_choice(choice: str) -> Any:
    if choice == "auto":
        return {"type": "auto"}
    if choice == "required":
        return {"type": "any"}
    if choice == "none":
        return {"type": "none"}
    return {"type": "tool", "name": choice}
