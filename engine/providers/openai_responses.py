"""The OpenAI Responses API provider, through the official ``openai`` SDK (ADR 0008).

Request mapping: the system messages become ``instructions``, the other messages ``input``
items with their roles, each :class:`~egress.wire.ToolSpec` a function tool, ``tool_choice``
(the request's, else the provider's setting, so that capture is requested), ``max_output_tokens``
as is, and ``store=False`` so OpenAI keeps no copy of the turn. ``strict`` is off by default:
the ``capture_concepts`` schema has optional fields, which strict mode does not allow; with
``strict_tools`` the schema is made strict (every property required, optional ones nullable)
and the nulls the model then sends for "absent" are dropped before the engine sees the args.

Stream mapping, one streaming call per turn:

    response.output_text.delta / response.refusal.delta   -> Text(delta)
    response.function_call_arguments.done                  -> Tool(name, args)
    response.output_item.done (function_call, not yet seen) -> Tool(name, args)
    response.completed                                      -> Done(Usage)
    response.failed / error / response.incomplete           -> Error, then stop
    reasoning items and every other event                   -> ignored
    HTTP 4xx/5xx, connection errors, timeouts               -> Error, then stop
    a stream that ends without a terminal event             -> Error, then stop

``args`` is the parsed JSON of the call's arguments, or the raw string when it does not parse:
the engine's validator then reports a malformed payload instead of this adapter guessing.

``stream`` never raises for a provider failure (:mod:`engine.providers.failures`). After
``response.completed`` the body is read to its end before ``Done`` is yielded: a response
closed early cannot go back to the connection pool, and each turn would open a new connection
(a TCP and TLS handshake against a hosted API). The SDK's own retries (``max_retries``) cover
connection errors, 408/409/429 and 5xx before the stream starts; nothing is retried once text
has been yielded.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, Final

import openai
from openai import AsyncOpenAI
from openai.types.responses import (
    EasyInputMessageParam,
    FunctionToolParam,
    ResponseErrorEvent,
    ResponseFailedEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseIncompleteEvent,
    ResponseInputParam,
    ResponseStreamEvent,
    ResponseUsage,
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
from engine.providers.tool_schema import drop_nulls, parse_arguments, strict_schema
from infra.lifetime import Lifetime

__all__ = ["DEFAULT_BASE_URL", "OPENAI_ERRORS", "OpenAIResponsesProvider"]

DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
OPENAI_ERRORS: Final = SdkErrors(
    status=openai.APIStatusError,
    timeout=openai.APITimeoutError,
    connection=openai.APIConnectionError,
)


class OpenAIResponsesProvider:
    """An :class:`egress.wire.LlmProvider` over ``POST /v1/responses`` with ``stream=true``.

    ``base_url`` defaults to OpenAI's own; any server that speaks the Responses streaming
    protocol works (the tests run one on the loopback). The key and URL come from the
    composition root only: ``OPENAI_BASE_URL`` in the environment is never picked up. One SDK
    client (one connection pool) lives as long as the provider.
    """

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        name: str = "openai",
        timeout: float = 60.0,
        max_retries: int = 2,
        tool_choice: str = "auto",
        http_client: HttpClient = "aiohttp",
        strict_tools: bool = False,
    ) -> None:
        if not api_key:
            raise ValueError("the OpenAI provider needs an API key (REGINTEL_OPENAI_API_KEY)")
        self.name = name
        self._tool_choice = tool_choice
        self._strict = strict_tools
        self._failures = ProviderFailures(name, api_key, OPENAI_ERRORS)
        self._lifetime = Lifetime("the OpenAI Responses provider")
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
        instructions, items = _input(request.messages)
        tools = [_function_tool(tool, self._strict) for tool in request.tools]
        body: dict[str, Any] = {"model": request.model, "input": items}
        if instructions is not None:
            body["instructions"] = instructions
        if tools:
            body["tools"] = tools
            body["tool_choice"] = _tool_choice(request.tool_choice or self._tool_choice)
        body |= {"max_output_tokens": request.max_output_tokens, "store": False, "stream": True}
        try:
            # The SDK's generic POST (its "undocumented endpoints" API): same client, retries,
            # errors and SSE decoding as responses.create(), but the events stay plain dicts,
            # so a text delta costs a dict lookup instead of building a typed model per token
            # (ADR 0029); of the other events only what is used is built as the SDK's models
            # (a function call's item, the usage, a failure; ADR 0038).
            events = await self._client.post(
                "/responses",
                body=body,
                cast_to=object,
                stream=True,
                stream_cls=openai.AsyncStream[object],
            )
        except openai.OpenAIError as exc:
            yield self._failures.failure(exc, started=False)
            return
        calls = _FunctionCalls(self._strict)
        async with events:
            while True:
                try:
                    event = await anext(events)
                except StopAsyncIteration:
                    break
                except (openai.OpenAIError, ValueError) as exc:  # ValueError: a non-JSON event
                    yield self._failures.failure(exc, started=True)
                    return
                chunk = self._chunk(event, calls)
                if chunk is None:
                    continue
                if isinstance(chunk, Done):
                    async for _ in events:  # to the end of the body: the connection is reused
                        pass
                yield chunk
                if isinstance(chunk, Done | Error):
                    return
        yield Error(
            f"{self.name}: the stream ended before the response completed",
            code="provider_stream_incomplete",
        )

    def _chunk(self, data: object, calls: _FunctionCalls) -> StreamChunk | None:
        if not isinstance(data, dict):
            return None
        kind = data.get("type")
        if kind in _TEXT_DELTAS:  # the per-token path: no model built
            delta = data.get("delta")
            return Text(delta) if isinstance(delta, str) and delta else None
        if kind in _ITEM_EVENTS:
            # Every answer has these for its message and reasoning items too; only a function
            # call's item is built (the SDK's model of the item alone, not of the event).
            item = data.get("item")
            if not isinstance(item, dict) or item.get("type") != "function_call":
                return None
            call = ResponseFunctionToolCall.construct(**item)
            if kind == "response.output_item.added":
                calls.added(call)
                return None
            return calls.item_done(call)
        if kind == "response.completed":
            # The completed event repeats the whole response (every output item); only its
            # usage is read, so only the usage is built.
            response = data.get("response")
            usage = response.get("usage") if isinstance(response, dict) else None
            if not isinstance(usage, dict):
                return Done()
            counts = ResponseUsage.construct(**usage)
            return Done(Usage(input_tokens=counts.input_tokens, output_tokens=counts.output_tokens))
        model = _EVENT_MODELS.get(kind) if isinstance(kind, str) else None
        if model is None:
            return None  # content parts, argument deltas, ...
        return self._event(model.construct(**data), calls)

    def _event(self, event: ResponseStreamEvent, calls: _FunctionCalls) -> StreamChunk | None:
        if isinstance(event, ResponseFunctionCallArgumentsDoneEvent):
            return calls.arguments_done(event.item_id, event.arguments)
        failures = self._failures
        if isinstance(event, ResponseFailedEvent):
            error = event.response.error
            reason = f"{error.code}: {error.message}" if error else "no reason given"
            return failures.error("provider_failed", f"the response failed ({reason})")
        if isinstance(event, ResponseIncompleteEvent):
            details = event.response.incomplete_details
            reason = details.reason if details and details.reason else "no reason given"
            return failures.error("provider_incomplete", f"the response stopped early ({reason})")
        if isinstance(event, ResponseErrorEvent):
            reason = f"{event.code}: {event.message}" if event.code else event.message
            return failures.error("provider_failed", f"the provider reported an error ({reason})")
        return None


_TEXT_DELTAS: Final = frozenset({"response.output_text.delta", "response.refusal.delta"})
_ITEM_EVENTS: Final = frozenset({"response.output_item.added", "response.output_item.done"})
# The rarer events, built as the SDK's own models (``construct``, as the SDK does) and mapped.
_EVENT_MODELS: Final[dict[str, type[Any]]] = {
    "response.function_call_arguments.done": ResponseFunctionCallArgumentsDoneEvent,
    "response.failed": ResponseFailedEvent,
    "response.incomplete": ResponseIncompleteEvent,
    "error": ResponseErrorEvent,
}


class _FunctionCalls:
    """Yields each function call once, when its arguments are final.

    The name arrives with ``response.output_item.added``, the final arguments with
    ``response.function_call_arguments.done`` and again in ``response.output_item.done``;
    whichever complete event comes first produces the ``Tool``.
    """

    def __init__(self, strict: bool) -> None:
        self._strict = strict
        self._names: dict[str, str] = {}
        self._emitted: set[str] = set()

    def added(self, item: ResponseFunctionToolCall) -> None:
        self._names[item.id or item.call_id] = item.name

    def arguments_done(self, item_id: str, arguments: str) -> Tool | None:
        name = self._names.get(item_id)
        if name is None or item_id in self._emitted:
            return None
        self._emitted.add(item_id)
        return self._tool(name, arguments)

    def item_done(self, item: ResponseFunctionToolCall) -> Tool | None:
        key = item.id or item.call_id
        if key in self._emitted:
            return None
        self._emitted.add(key)
        return self._tool(item.name, item.arguments)

    def _tool(self, name: str, arguments: str) -> Tool:
        args = parse_arguments(arguments)
        return Tool(name=name, args=drop_nulls(args) if self._strict else args)


def _input(messages: list[ChatMessage]) -> tuple[str | None, ResponseInputParam]:
    system = [m.content for m in messages if m.role == "system"]
    items: ResponseInputParam = [
        EasyInputMessageParam(type="message", role=m.role, content=m.content)
        for m in messages
        if m.role != "system"
    ]
    return ("\n\n".join(system) if system else None), items


def _function_tool(tool: ToolSpec, strict: bool) -> FunctionToolParam:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": strict_schema(tool.parameters) if strict else tool.parameters,
        "strict": strict,
    }


def _tool_choice(choice: str) -> Any:
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "name": choice}
