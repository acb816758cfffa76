"""The OpenAI chat-completions streaming protocol (``POST /v1/chat/completions``).

As OpenAI, Groq, vLLM, Ollama and llama.cpp stream it: ``data:`` frames without an event
name, each a ``chat.completion.chunk`` with ``choices[0].delta`` — the role first, then
``content`` pieces; a tool call opens with its ``index``, ``id``, ``type`` and function
``name`` and continues with ``arguments`` pieces under the same ``index``. The last choice
chunk carries ``finish_reason``; with ``stream_options.include_usage`` a chunk with empty
``choices`` and the ``usage`` follows; then ``data: [DONE]``. A failure mid-stream is a
``data:`` frame holding ``{"error": {...}}``.
"""

from __future__ import annotations

import json
import time
from typing import Any

from tools.standin.script import Frame, Reply

__all__ = ["chunk_sequence", "frames"]


def frames(reply: Reply, body: dict[str, Any], *, response_id: str) -> list[Frame]:
    out = [
        Frame(json.dumps(chunk), token=token)
        for chunk, token in chunk_sequence(reply, body, response_id=response_id)
    ]
    if reply.terminal in ("completed", "incomplete"):
        out.append(Frame("[DONE]"))
    return out


def chunk_sequence(
    reply: Reply, body: dict[str, Any], *, response_id: str
) -> list[tuple[dict[str, Any], bool]]:
    """``(chunk, is_token)`` pairs, in the order the server sends them."""
    created, model = int(time.time()), body.get("model", "")

    def chunk(delta: dict[str, Any] | None, finish: str | None = None) -> dict[str, Any]:
        choices = (
            []
            if delta is None
            else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        )
        return {
            "id": response_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "system_fingerprint": None,
            "choices": choices,
        }

    out: list[tuple[dict[str, Any], bool]] = [(chunk({"role": "assistant", "content": ""}), False)]
    out += [(chunk({"content": delta}), True) for delta in reply.text]
    for index, call in enumerate(reply.calls):
        opening = {
            "index": index,
            "id": f"call_{response_id}_{index}",
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        out.append((chunk({"tool_calls": [opening]}), False))
        arguments, size = call.arguments, call.chunk_size
        for start in range(0, len(arguments), size):
            piece = {"index": index, "function": {"arguments": arguments[start : start + size]}}
            out.append((chunk({"tool_calls": [piece]}), True))
    if reply.terminal in ("failed", "error"):
        error = {
            "message": reply.error_message,
            "type": "server_error",
            "param": None,
            "code": reply.error_code,
        }
        out.append(({"error": error}, False))
        return out
    if reply.terminal == "none":
        return out
    finish = "length" if reply.terminal == "incomplete" else "tool_calls" if reply.calls else "stop"
    out.append((chunk({}, finish), False))
    if (body.get("stream_options") or {}).get("include_usage"):
        prompt, completion = reply.usage
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        out.append(({**chunk(None), "usage": usage}, False))
    return out
