"""The OpenAI Responses API provider, through the official ``openai`` SDK (ADR 0008).

Request mapping: the system messages become ``instructions``, the other messages ``input``
items with their roles, each :class:`~egress.wire.ToolSpec` a function tool (``strict`` off:
the ``capture_concepts`` schema has optional fields, and the engine validates the payload
itself), ``max_output_tokens`` as is, and ``store=False`` so OpenAI keeps no copy of the turn.

Stream mapping, one streaming call per turn:

    response.output_text.delta / response.refusal.delta   -> Text(delta)
    response.function_call_arguments.done                  -> Tool(name, args)
    response.output_item.done (function_call, not yet seen) -> Tool(name, args)
    response.completed                                      -> Done(Usage)
    response.failed / error / response.incomplete           -> Error, then stop
    HTTP 4xx/5xx, connection errors, timeouts               -> Error, then stop
    a stream that ends without a terminal event             -> Error, then stop

``args`` is the parsed JSON of the call's arguments, or the raw string when it does not parse:
the engine's validator then reports a malformed payload instead of this adapter guessing.

``stream`` never raises for a provider failure. Error messages are written here, not copied
from the provider's HTTP body: OpenAI's 401 body echoes part of the key. Provider-supplied
text that does reach a message (a failed response's reason) has key-like strings removed.
The SDK's own retries (``max_retries``) cover connection errors, 408/409/429 and 5xx before
the stream starts; nothing is retried once text has been yielded.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator
from typing import Any, Final

import openai
import structlog
from openai import AsyncOpenAI
from openai.types.responses import (
    EasyInputMessageParam,
    FunctionToolParam,
    ResponseCompletedEvent,
    ResponseErrorEvent,
    ResponseFailedEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseIncompleteEvent,
    ResponseInputParam,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseRefusalDeltaEvent,
    ResponseStreamEvent,
    ResponseTextDeltaEvent,
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

__all__ = ["DEFAULT_BASE_URL", "OpenAIResponsesProvider"]

DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
_KEY_LIKE = re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_\-*.]{4,}")
_MAX_PROVIDER_TEXT = 300

log = structlog.get_logger(__name__)


class OpenAIResponsesProvider:
    """An :class:`egress.wire.LlmProvider` over ``POST /v1/responses`` with ``stream=true``.

    ``base_url`` defaults to OpenAI's own; any server that speaks the Responses streaming
    protocol works (the tests run one on the loopback). The key and URL come from the
    composition root only: ``OPENAI_BASE_URL`` in the environment is never picked up.
    """

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        name: str = "openai",
        timeout: float = 60.0,
        max_retries: int = 2,
    ) -> None:
        if not api_key:
            raise ValueError("the OpenAI provider needs an API key (REGINTEL_OPENAI_API_KEY)")
        self.name = name
        self._api_key = api_key
        self._client = AsyncOpenAI(
            api_key=api_key,
            base_url=base_url or DEFAULT_BASE_URL,
            timeout=timeout,
            max_retries=max_retries,
        )

    async def aclose(self) -> None:
        await self._client.close()

    async def stream(self, request: LlmRequest) -> AsyncGenerator[StreamChunk, None]:
        instructions, items = _input(request.messages)
        try:
            events = await self._client.responses.create(
                model=request.model,
                input=items,
                instructions=instructions if instructions is not None else openai.omit,
                tools=[_function_tool(tool) for tool in request.tools] or openai.omit,
                max_output_tokens=request.max_output_tokens,
                store=False,
                stream=True,
            )
        except openai.OpenAIError as exc:
            yield self._failure(exc, started=False)
            return
        calls = _FunctionCalls()
        async with events:
            while True:
                try:
                    event = await anext(events)
                except StopAsyncIteration:
                    break
                except (openai.OpenAIError, ValueError) as exc:  # ValueError: a non-JSON event
                    yield self._failure(exc, started=True)
                    return
                chunk = self._chunk(event, calls)
                if chunk is not None:
                    yield chunk
                    if isinstance(chunk, Done | Error):
                        return
        yield Error(
            f"{self.name}: the stream ended before the response completed",
            code="provider_stream_incomplete",
        )

    def _chunk(self, event: ResponseStreamEvent, calls: _FunctionCalls) -> StreamChunk | None:
        if isinstance(event, ResponseTextDeltaEvent | ResponseRefusalDeltaEvent):
            return Text(event.delta) if event.delta else None
        if isinstance(event, ResponseOutputItemAddedEvent):
            if isinstance(event.item, ResponseFunctionToolCall):
                calls.added(event.item)
            return None
        if isinstance(event, ResponseFunctionCallArgumentsDoneEvent):
            return calls.arguments_done(event.item_id, event.arguments)
        if isinstance(event, ResponseOutputItemDoneEvent):
            if isinstance(event.item, ResponseFunctionToolCall):
                return calls.item_done(event.item)
            return None
        if isinstance(event, ResponseCompletedEvent):
            usage = event.response.usage
            if usage is None:
                return Done()
            return Done(Usage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens))
        if isinstance(event, ResponseFailedEvent):
            error = event.response.error
            reason = f"{error.code}: {error.message}" if error else "no reason given"
            return self._error("provider_failed", f"the response failed ({reason})")
        if isinstance(event, ResponseIncompleteEvent):
            details = event.response.incomplete_details
            reason = details.reason if details and details.reason else "no reason given"
            return self._error("provider_incomplete", f"the response stopped early ({reason})")
        if isinstance(event, ResponseErrorEvent):
            reason = f"{event.code}: {event.message}" if event.code else event.message
            return self._error("provider_failed", f"the provider reported an error ({reason})")
        return None

    def _error(self, code: str, message: str) -> Error:
        text = self._redact(message)
        log.warning("llm_provider_error", provider=self.name, code=code, message=text)
        return Error(f"{self.name}: {text}", code=code)

    def _failure(self, exc: Exception, *, started: bool) -> Error:
        """Turn an SDK exception into an ``Error`` whose message carries nothing secret."""
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = f" ({exc.code})" if exc.code else ""
            log.warning(
                "llm_provider_http_error",
                provider=self.name,
                status=status,
                provider_code=exc.code,
                request_id=exc.request_id,
                message=self._redact(exc.message),
            )
            if status in (401, 403):
                return Error(
                    f"{self.name}: the API key was rejected (HTTP {status}){detail}",
                    code="provider_auth_failed",
                )
            if status == 429:
                return Error(
                    f"{self.name}: rate limited or out of quota (HTTP 429){detail}",
                    code="provider_rate_limited",
                )
            if status >= 500:
                return Error(
                    f"{self.name}: the provider is unavailable (HTTP {status}){detail}",
                    code="provider_unavailable",
                )
            return Error(
                f"{self.name}: the provider rejected the request (HTTP {status}){detail}",
                code="provider_rejected_request",
            )
        log.warning("llm_provider_unreachable", provider=self.name, error=type(exc).__name__)
        if isinstance(exc, openai.APITimeoutError):
            return Error(f"{self.name}: the request timed out", code="provider_timeout")
        if isinstance(exc, openai.APIConnectionError):
            if started:
                return Error(
                    f"{self.name}: the connection broke while the response was streaming",
                    code="provider_stream_interrupted",
                )
            return Error(
                f"{self.name}: could not connect to the provider", code="provider_unreachable"
            )
        return Error(f"{self.name}: the provider sent a malformed response", code="provider_error")

    def _redact(self, text: str) -> str:
        text = text.replace(self._api_key, "[redacted]")
        return _KEY_LIKE.sub("[redacted]", text)[:_MAX_PROVIDER_TEXT]


class _FunctionCalls:
    """Yields each function call once, when its arguments are final.

    The name arrives with ``response.output_item.added``, the final arguments with
    ``response.function_call_arguments.done`` and again in ``response.output_item.done``;
    whichever complete event comes first produces the ``Tool``.
    """

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._emitted: set[str] = set()

    def added(self, item: ResponseFunctionToolCall) -> None:
        self._names[item.id or item.call_id] = item.name

    def arguments_done(self, item_id: str, arguments: str) -> Tool | None:
        name = self._names.get(item_id)
        if name is None or item_id in self._emitted:
            return None
        self._emitted.add(item_id)
        return Tool(name=name, args=_parse_arguments(arguments))

    def item_done(self, item: ResponseFunctionToolCall) -> Tool | None:
        key = item.id or item.call_id
        if key in self._emitted:
            return None
        self._emitted.add(key)
        return Tool(name=item.name, args=_parse_arguments(item.arguments))


def _parse_arguments(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _input(messages: list[ChatMessage]) -> tuple[str | None, ResponseInputParam]:
    system = [m.content for m in messages if m.role == "system"]
    items: ResponseInputParam = [
        EasyInputMessageParam(type="message", role=m.role, content=m.content)
        for m in messages
        if m.role != "system"
    ]
    return ("\n\n".join(system) if system else None), items


def _function_tool(tool: ToolSpec) -> FunctionToolParam:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
        "strict": False,
    }
