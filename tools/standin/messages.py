"""The Anthropic Messages streaming protocol (``POST /v1/messages``, ``stream: true``).

Named SSE events, as the API sends them: ``message_start`` (the message with input usage),
per content block ``content_block_start`` → ``content_block_delta`` (``text_delta`` or, for
a ``tool_use`` block, ``input_json_delta`` pieces of the input JSON) → ``content_block_stop``,
a ``ping`` after the first block start, then ``message_delta`` (``stop_reason``, output usage)
and ``message_stop``. A failure mid-stream is an ``error`` event; an HTTP error has the body
``{"type": "error", "error": {"type", "message"}}``.
"""

from __future__ import annotations

import json
from typing import Any

from tools.standin.script import Frame, Reply

__all__ = ["error_body", "event_sequence", "frames"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def frames(reply: Reply, body: dict[str, Any], *, response_id: str) -> list[Frame]:
    return [
        Frame(json.dumps(event), event=event["type"], token=token)
        for event, token in event_sequence(reply, body, response_id=response_id)
    ]


def error_body(reply: Reply) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(
        reply.status, "api_error" if reply.status >= 500 else "invalid_request_error"
    )
    return {"type": "error", "error": {"type": kind, "message": reply.error_message}}


def event_sequence(
    reply: Reply, body: dict[str, Any], *, response_id: str
) -> list[tuple[dict[str, Any], bool]]:
    """``(event, is_token)`` pairs, in the order the API sends them."""
    prompt, completion = reply.usage
    message = {
        "id": response_id,
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": body.get("model", ""),
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": prompt, "output_tokens": 1},
    }
    out: list[tuple[dict[str, Any], bool]] = [
        ({"type": "message_start", "message": message}, False)
    ]
    index = 0
    if reply.text:
        block: dict[str, Any] = {"type": "text", "text": ""}
        out.append(({"type": "content_block_start", "index": index, "content_block": block}, False))
        out.append(({"type": "ping"}, False))
        for delta in reply.text:
            text_delta = {"type": "text_delta", "text": delta}
            out.append(({"type": "content_block_delta", "index": index, "delta": text_delta}, True))
        out.append(({"type": "content_block_stop", "index": index}, False))
        index += 1
    for n, call in enumerate(reply.calls):
        block = {
            "type": "tool_use",
            "id": f"toolu_{response_id}_{n}",
            "name": call.name,
            "input": {},
        }
        out.append(({"type": "content_block_start", "index": index, "content_block": block}, False))
        arguments, size = call.arguments, call.chunk_size
        for start in range(0, len(arguments), size):
            piece = {"type": "input_json_delta", "partial_json": arguments[start : start + size]}
            out.append(({"type": "content_block_delta", "index": index, "delta": piece}, True))
        out.append(({"type": "content_block_stop", "index": index}, False))
        index += 1
    if reply.terminal in ("failed", "error"):
        error = {"type": reply.error_code or "overloaded_error", "message": reply.error_message}
        out.append(({"type": "error", "error": error}, False))
        return out
    if reply.terminal == "none":
        return out
    stop = (
        "max_tokens"
        if reply.terminal == "incomplete"
        else "tool_use"
        if reply.calls
        else "end_turn"
    )
    ending: dict[str, Any] = {"stop_reason": stop, "stop_sequence": None}
    out.append(
        ({"type": "message_delta", "delta": ending, "usage": {"output_tokens": completion}}, False)
    )
    out.append(({"type": "message_stop"}, False))
    return out
