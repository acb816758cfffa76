"""The OpenAI Responses streaming protocol (``POST /v1/responses``, ``stream: true``).

The event order of the real API: ``response.created``, ``response.in_progress``, per output
item ``response.output_item.added`` → (content part added → text deltas → text done → part
done | argument deltas → arguments done) → ``response.output_item.done``, then one terminal
event (``response.completed`` / ``failed`` / ``incomplete``, or ``error``). Every event has a
gapless ``sequence_number``. The shapes follow the SDK's own models
(``openai.types.responses.ResponseStreamEvent``); a test validates them.
"""

from __future__ import annotations

import json
import time
from typing import Any

from tools.standin.script import Frame, Reply

__all__ = ["error_body", "event_sequence", "frames"]


def frames(reply: Reply, body: dict[str, Any], *, response_id: str) -> list[Frame]:
    token_kinds = {"response.output_text.delta", "response.function_call_arguments.delta"}
    return [
        Frame(json.dumps(event), event=event["type"], token=event["type"] in token_kinds)
        for event in event_sequence(reply, body, response_id=response_id)
    ]


def error_body(reply: Reply, authorization: str) -> dict[str, Any]:
    """OpenAI's JSON error body (chat completions uses the same)."""
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
    if reply.reasoning:
        index, item_id = len(output), f"rs_{response_id}"
        item: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
        emit("response.output_item.added", output_index=index, item=item)
        emit("response.output_item.done", output_index=index, item=item)
        output.append(item)
    if reply.text:
        output.append(_message(emit, reply.text, len(output), f"msg_{response_id}"))
    for n, call in enumerate(reply.calls):
        index, item_id = len(output), f"fc_{response_id}_{n}"
        item = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "call_id": f"call_{response_id}_{n}",
            "name": call.name,
            "arguments": "",
        }
        emit("response.output_item.added", output_index=index, item=item)
        arguments, size = call.arguments, call.chunk_size
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
        item = {**item, "status": "completed", "arguments": arguments}
        emit("response.output_item.done", output_index=index, item=item)
        output.append(item)
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


def _message(emit: Any, deltas: list[str], index: int, item_id: str) -> dict[str, Any]:
    text = "".join(deltas)
    message: dict[str, Any] = {
        "id": item_id,
        "type": "message",
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }
    emit("response.output_item.added", output_index=index, item=message)
    part: dict[str, Any] = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    where = {"item_id": item_id, "output_index": index, "content_index": 0}
    emit("response.content_part.added", **where, part=part)
    for delta in deltas:
        emit("response.output_text.delta", **where, delta=delta, logprobs=[])
    emit("response.output_text.done", **where, text=text, logprobs=[])
    part = {**part, "text": text}
    emit("response.content_part.done", **where, part=part)
    message = {**message, "status": "completed", "content": [part]}
    emit("response.output_item.done", output_index=index, item=message)
    return message


def _response(body: dict[str, Any], response_id: str) -> dict[str, Any]:
    tool_choice = body.get("tool_choice", "auto")
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
        "tool_choice": tool_choice,
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
