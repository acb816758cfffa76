"""The stand-in model server: an ASGI app that speaks three streaming LLM protocols.

``POST /v1/responses`` (OpenAI Responses), ``POST /v1/chat/completions`` (OpenAI-compatible
chat completions) and ``POST /v1/messages`` (Anthropic Messages), each as the real service
streams it (see the protocol modules), and ``POST /v1/embeddings`` (``embeddings.py``:
deterministic vectors, one JSON reply). Tests script the replies — ``server.script(r0, r1,
...)`` makes request ``i`` use reply ``i``, the last one repeating — and read back what was
received: every request's path, JSON body, headers and peer address, and whether the client
went away before the reply ended.

A plain ASGI callable rather than a framework app, on purpose: the stream and a watcher of
``http.disconnect`` run side by side, so a client that closes its connection while the
stand-in is still waiting for its "first token" is seen at once (a framework response only
notices at its next write). Peer addresses count TCP connections: each connection has its
own client port, so ``connections_opened`` is how many the clients opened (keep-alive
reuse shows as fewer connections than requests).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import anyio

from tools.standin import chat_completions, embeddings, messages, responses
from tools.standin.script import Frame, Pacing, Received, Reply

__all__ = ["DEFAULT_REPLY", "PROTOCOL_PATHS", "StandinServer"]

DEFAULT_REPLY = Reply(
    text=[
        f"{word} "
        for word in (
            "This answer comes from the Regintel stand-in model. It streams at the pace it "
            "was given, so a client sees a realistic first token and token rate."
        ).split()
    ]
)
PROTOCOL_PATHS = ("/v1/responses", "/v1/chat/completions", "/v1/messages")

_Scope = dict[str, Any]
_Message = dict[str, Any]
_Receive = Callable[[], Any]
_Send = Callable[[_Message], Any]


async def _received(path: str, scope: _Scope, receive: _Receive) -> Received | None:
    """The whole request, as recorded: ``None`` when the client disconnected before its end."""
    raw = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        raw += message.get("body", b"")
        if not message.get("more_body"):
            break
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
    client = scope.get("client")
    return Received(path, json.loads(raw or b"{}"), headers, tuple(client) if client else None)


class _DroppedConnection(Exception):
    """Raised mid-body so that the server closes the connection, as a crashed upstream does."""


class StandinServer:
    """The ASGI app. Not thread-safe to script while requests run; tests script between."""

    def __init__(self, *, pacing: Pacing | None = None, default: Reply | None = None) -> None:
        self.pacing = pacing or Pacing()
        self.received: list[Received] = []
        self._replies: list[Reply] = [default or DEFAULT_REPLY]

    def script(self, *replies: Reply) -> None:
        """Request ``i`` from now on gets ``replies[i]``; the last one repeats."""
        self._replies = list(replies)
        self.received.clear()

    def reset(self) -> None:
        self.received.clear()

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The JSON bodies received, in order."""
        return [r.body for r in self.received]

    @property
    def headers(self) -> list[dict[str, str]]:
        return [r.headers for r in self.received]

    @property
    def connections_opened(self) -> int:
        """Distinct TCP connections the requests came over."""
        return len({r.peer for r in self.received})

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path = scope["path"]
        if scope["method"] == "POST" and path == embeddings.PATH:
            await self._embeddings(scope, receive, send)
            return
        if scope["method"] != "POST" or path not in PROTOCOL_PATHS:
            await _json(send, 404, {"error": {"message": f"no route {path}", "type": "not_found"}})
            return
        record = await _received(path, scope, receive)
        if record is None:
            return  # the client went away before its request was whole
        body, headers = record.body, record.headers
        index = len(self.received)
        self.received.append(record)
        reply = self._replies[min(index, len(self._replies) - 1)]
        finished = False

        async with anyio.create_task_group() as group:

            async def watch() -> None:
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        if not finished:
                            record.disconnected = True
                        group.cancel_scope.cancel()
                        return

            group.start_soon(watch)
            await self._respond(send, path, body, headers, reply, index)
            finished = True
            group.cancel_scope.cancel()

    async def _embeddings(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        """``POST /v1/embeddings`` (``tools.standin.embeddings``): one JSON reply, recorded."""
        record = await _received(embeddings.PATH, scope, receive)
        if record is None:
            return
        self.received.append(record)
        status, reply = embeddings.reply(record.body)
        await _json(send, status, reply)

    async def _respond(
        self,
        send: _Send,
        path: str,
        body: dict[str, Any],
        headers: dict[str, str],
        reply: Reply,
        index: int,
    ) -> None:
        if reply.delay_before_headers:
            await asyncio.sleep(reply.delay_before_headers)
        anthropic = path == "/v1/messages"
        status, reply_headers = reply.status, dict(reply.headers)
        if reply.reject_tools and ("tools" in body or "tool_choice" in body):
            status = 400
            reply = Reply(status=400, error_message="this model does not support tools")
        if status != 200:
            error = (
                messages.error_body(reply)
                if anthropic
                else responses.error_body(reply, headers.get("authorization", ""))
            )
            await _json(send, status, error, reply_headers | {"x-request-id": f"req_{index}"})
            return
        if path == "/v1/responses":
            frames = responses.frames(reply, body, response_id=f"resp_{index:04d}")
        elif path == "/v1/chat/completions":
            frames = chat_completions.frames(reply, body, response_id=f"chatcmpl-{index:04d}")
        else:
            frames = messages.frames(reply, body, response_id=f"msg_{index:04d}")
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": _headers(
                    {"content-type": "text/event-stream", "cache-control": "no-cache"}
                    | reply_headers
                ),
            }
        )
        await self._stream(send, frames, reply, reply.pacing or self.pacing)

    async def _stream(self, send: _Send, frames: list[Frame], reply: Reply, pacing: Pacing) -> None:
        gap = 1.0 / pacing.tokens_per_second if pacing.tokens_per_second else 0.0
        first, tokens = True, 0
        for count, frame in enumerate(frames):
            if count == reply.cut_after or (frame.token and tokens == reply.cut_after_tokens):
                if reply.cut == "drop":
                    raise _DroppedConnection(f"dropped after {count} frames")
                break
            if frame.token:
                tokens += 1
                delay = pacing.first_token if first else gap
                first = False
                await asyncio.sleep(delay)
            await send({"type": "http.response.body", "body": frame.encode(), "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _json(
    send: _Send, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> None:
    data = json.dumps(body).encode()
    head = {"content-type": "application/json", "content-length": str(len(data))}
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": _headers(head | (headers or {})),
        }
    )
    await send({"type": "http.response.body", "body": data, "more_body": False})


def _headers(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]


async def _lifespan(receive: _Receive, send: _Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
