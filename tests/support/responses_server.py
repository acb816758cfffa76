"""A local server that speaks the OpenAI Responses streaming protocol, for provider tests.

``POST /v1/responses`` with ``stream: true`` answers with the event sequence the real API
sends (``response.created``, ``response.in_progress``, output items with their content parts
and deltas, then ``response.completed`` / ``response.failed`` / ``error``), each as an SSE
frame ``event: <type>`` + ``data: <json>`` with a ``sequence_number``. The events are shaped
after the SDK's own models (``openai.types.responses.*Event``): :func:`event_sequence` builds
them so a test can validate them against those models.

Each test scripts the replies: ``server.script(Reply(...), ...)`` makes request ``i`` use
reply ``i`` (the last one repeats). Every request's JSON body and headers are recorded.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.support.server import running_server

Terminal = Literal["completed", "failed", "incomplete", "error", "none"]


@dataclass(frozen=True)
class FunctionCall:
    name: str
    arguments: str  # the JSON text as the model wrote it; need not be valid JSON
    chunk_size: int = 16  # size of the ``response.function_call_arguments.delta`` pieces


@dataclass(frozen=True)
class Reply:
    """What the server answers to one request."""

    text: list[str] = field(default_factory=list)  # output_text deltas, in order
    call: FunctionCall | None = None
    terminal: Terminal = "completed"
    usage: tuple[int, int] = (11, 7)  # input_tokens, output_tokens
    status: int = 200  # non-200: a JSON error body, no stream
    error_code: str | None = None  # for an error status, a failed response or an error event
    error_message: str = "The server had an error while processing your request."
    echo_key_in_error: bool = False  # put the bearer token in the error body, as OpenAI's 401 does
    headers: dict[str, str] = field(default_factory=dict)
    delay_before_headers: float = 0.0
    cut_after: int | None = None  # stream only this many events, then...
    cut: Literal["drop", "end"] = "drop"  # ...drop the connection, or end the body cleanly


class _DroppedConnection(Exception):
    """Raised inside the body to make uvicorn close the connection mid-stream."""


class ResponsesServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._replies: list[Reply] = [Reply(text=["Hello", ", world"])]
        self.app = Starlette(routes=[Route("/v1/responses", self._responses, methods=["POST"])])

    def script(self, *replies: Reply) -> None:
        self._replies = list(replies)

    async def _responses(self, request: Request) -> Response:
        body = await request.json()
        index = len(self.requests)
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        reply = self._replies[min(index, len(self._replies) - 1)]
        if reply.delay_before_headers:
            await asyncio.sleep(reply.delay_before_headers)
        if reply.status != 200:
            return JSONResponse(
                _error_body(reply, request.headers.get("authorization", "")),
                status_code=reply.status,
                headers=reply.headers,
            )
        events = event_sequence(reply, body, response_id=f"resp_{index:04d}")
        return StreamingResponse(
            _frames(events, reply), media_type="text/event-stream", headers=reply.headers
        )


@contextmanager
def running_responses_server() -> Iterator[tuple[str, ResponsesServer]]:
    """Yield ``(base_url, server)``; ``base_url`` ends in ``/v1`` like OpenAI's."""
    server = ResponsesServer()
    with running_server(server.app) as url:
        yield f"{url}/v1", server


async def _frames(events: list[dict[str, Any]], reply: Reply) -> AsyncIterator[bytes]:
    for count, event in enumerate(events):
        if reply.cut_after is not None and count == reply.cut_after:
            if reply.cut == "drop":
                raise _DroppedConnection(f"dropped after {count} events")
            return
        yield f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
        await asyncio.sleep(0)


def _error_body(reply: Reply, authorization: str) -> dict[str, Any]:
    message = reply.error_message
    if reply.echo_key_in_error:
        key = authorization.removeprefix("Bearer ")
        message = f"Incorrect API key provided: {key}. You can find your API key in your settings."
    kind = "invalid_request_error" if reply.status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": reply.error_code}}


def event_sequence(reply: Reply, body: dict[str, Any], *, response_id: str) -> list[dict[str, Any]]:
    """The events the real API streams for ``reply``, without sequence gaps."""
    events: list[dict[str, Any]] = []

    def emit(kind: str, **fields: Any) -> None:
        events.append({"type": kind, "sequence_number": len(events), **fields})

    base = _response(body, response_id)
    emit("response.created", response={**base, "status": "in_progress"})
    emit("response.in_progress", response={**base, "status": "in_progress"})
    output: list[dict[str, Any]] = []
    if reply.text:
        index, item_id, text = len(output), f"msg_{response_id}", "".join(reply.text)
        message: dict[str, Any] = {
            "id": item_id,
            "type": "message",
            "status": "in_progress",
            "role": "assistant",
            "content": [],
        }
        emit("response.output_item.added", output_index=index, item=message)
        part: dict[str, Any] = {
            "type": "output_text",
            "text": "",
            "annotations": [],
            "logprobs": [],
        }
        emit(
            "response.content_part.added",
            item_id=item_id,
            output_index=index,
            content_index=0,
            part=part,
        )
        for delta in reply.text:
            emit(
                "response.output_text.delta",
                item_id=item_id,
                output_index=index,
                content_index=0,
                delta=delta,
                logprobs=[],
            )
        emit(
            "response.output_text.done",
            item_id=item_id,
            output_index=index,
            content_index=0,
            text=text,
            logprobs=[],
        )
        part = {**part, "text": text}
        emit(
            "response.content_part.done",
            item_id=item_id,
            output_index=index,
            content_index=0,
            part=part,
        )
        message = {**message, "status": "completed", "content": [part]}
        emit("response.output_item.done", output_index=index, item=message)
        output.append(message)
    if reply.call:
        index, item_id = len(output), f"fc_{response_id}"
        call = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "call_id": f"call_{response_id}",
            "name": reply.call.name,
            "arguments": "",
        }
        emit("response.output_item.added", output_index=index, item=call)
        arguments, size = reply.call.arguments, reply.call.chunk_size
        for start in range(0, len(arguments), size):
            emit(
                "response.function_call_arguments.delta",
                item_id=item_id,
                output_index=index,
                delta=arguments[start : start + size],
            )
        emit(
            "response.function_call_arguments.done",
            item_id=item_id,
            output_index=index,
            arguments=arguments,
        )
        call = {**call, "status": "completed", "arguments": arguments}
        emit("response.output_item.done", output_index=index, item=call)
        output.append(call)
    if reply.terminal == "completed":
        usage = _usage(*reply.usage)
        emit(
            "response.completed",
            response={**base, "status": "completed", "output": output, "usage": usage},
        )
    elif reply.terminal == "failed":
        error = {"code": reply.error_code or "server_error", "message": reply.error_message}
        emit(
            "response.failed",
            response={**base, "status": "failed", "output": output, "error": error},
        )
    elif reply.terminal == "incomplete":
        emit(
            "response.incomplete",
            response={
                **base,
                "status": "incomplete",
                "output": output,
                "incomplete_details": {"reason": "max_output_tokens"},
            },
        )
    elif reply.terminal == "error":
        emit("error", code=reply.error_code, message=reply.error_message, param=None)
    return events


def _response(body: dict[str, Any], response_id: str) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress",
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "model": body.get("model", ""),
        "output": [],
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "store": body.get("store", True),
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [{**tool, "strict": tool.get("strict")} for tool in body.get("tools", [])],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": None,
        "user": None,
        "metadata": {},
    }


def _usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }
