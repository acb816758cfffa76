"""SSE framing of engine events (pure; the byte framing itself is sse-starlette's)."""

from __future__ import annotations

import json

from sse_starlette import ServerSentEvent

from engine.events import TurnEvent

__all__ = [
    "HEARTBEAT_COMMENT",
    "heartbeat",
    "to_sse",
]

HEARTBEAT_COMMENT = "heartbeat"


def to_sse(event: TurnEvent) -> ServerSentEvent:
    """One engine event -> one SSE event named by its type, data = compact JSON."""
    return ServerSentEvent(
        event=event.type, data=json.dumps(event.data(), ensure_ascii=False, separators=(",", ":"))
    )


def heartbeat() -> ServerSentEvent:
    return ServerSentEvent(comment=HEARTBEAT_COMMENT)
