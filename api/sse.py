"""SSE framing of engine events (pure; the byte framing itself is sse-starlette's)."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator

from sse_starlette import ServerSentEvent

from engine.events import MetadataEvent, ProgressEvent, TurnEvent

__all__ = [
    "HEARTBEAT_COMMENT",
    "LEADING_STAGES",
    "heartbeat",
    "sse_frames",
    "to_sse",
]

HEARTBEAT_COMMENT = "heartbeat"

LEADING_STAGES = frozenset({"retrieval", "prompt_sent"})
"""The progress stages a turn yields before the model is called, right after its ``metadata``
and with nothing awaited in between (``engine.turn.engine.ChatEngine.stream``)."""


def to_sse(event: TurnEvent) -> ServerSentEvent:
    """One engine event -> one SSE event named by its type, data = compact JSON."""
    return ServerSentEvent(
        event=event.type, data=json.dumps(event.data(), ensure_ascii=False, separators=(",", ":"))
    )


async def sse_frames(events: AsyncIterator[TurnEvent]) -> AsyncGenerator[bytes, None]:
    """The SSE bytes of a turn's events, one chunk per event — except the events a turn
    yields at its start, one after the other without waiting (``metadata``, the
    ``retrieval`` and ``prompt_sent`` progress), which go out in one chunk with the event after
    them (``waiting_for_model``): one write to the socket instead of four (ADR 0072 addendum).
    The bytes are the same, event for event; only where the chunks break differs."""
    held: list[bytes] = []
    async for event in events:
        frame = to_sse(event).encode()
        if isinstance(event, MetadataEvent) or (
            isinstance(event, ProgressEvent) and event.stage in LEADING_STAGES
        ):
            held.append(frame)
            continue
        if held:
            held.append(frame)
            frame = b"".join(held)
            held.clear()
        yield frame
    if held:
        yield b"".join(held)


def heartbeat() -> ServerSentEvent:
    return ServerSentEvent(comment=HEARTBEAT_COMMENT)
