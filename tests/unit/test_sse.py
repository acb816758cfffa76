import json

import pytest

from api.sse import heartbeat, to_sse
from engine.events import DoneEvent, TextEvent, TurnEvent, TurnWarning, WarningEvent

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("event", "name"),
    [
        (TextEvent("line one\nline two"), "text"),
        (WarningEvent(TurnWarning("malformed_tool_payload", "bad")), "warning"),
        (DoneEvent("c1", ["IE"], {"inputTokens": 1}, [TurnWarning("w", "m")]), "done"),
    ],
)
def test_each_event_is_one_frame_named_by_its_type(event, name):
    frame = to_sse(event).encode().decode()
    lines = frame.strip("\r\n").split("\r\n")
    assert lines[0] == f"event: {name}"
    data = [line.removeprefix("data: ") for line in lines if line.startswith("data: ")]
    assert len(data) == 1  # JSON escapes newlines, so a delta never splits a frame
    assert json.loads(data[0])["type"] == name


def test_text_newlines_survive_the_round_trip():
    frame = to_sse(TextEvent("a\nb")).encode().decode()
    payload = next(line for line in frame.splitlines() if line.startswith("data: "))
    assert json.loads(payload.removeprefix("data: "))["delta"] == "a\nb"


def test_heartbeat_is_a_comment_frame():
    assert heartbeat().encode().decode().startswith(": heartbeat")


def _turn_events() -> list[TurnEvent]:
    from engine.events import MetadataEvent, ProgressEvent

    return [
        MetadataEvent("c1", ["IE"], ["IE:VAT"]),
        ProgressEvent("retrieval", {"hits": 1}),
        ProgressEvent("prompt_sent"),
        ProgressEvent("waiting_for_model"),
        TextEvent("a"),
        TextEvent("b"),
        ProgressEvent("capture"),
        DoneEvent("c1", ["IE"], {"inputTokens": 1}, []),
    ]


async def _chunks(events: list[TurnEvent]) -> list[bytes]:
    from api.sse import sse_frames

    async def source():
        for event in events:
            yield event

    return [chunk async for chunk in sse_frames(source())]


@pytest.mark.anyio
async def test_the_events_before_the_model_is_called_go_out_as_one_chunk_same_bytes():
    """ADR 0072 addendum: metadata, retrieval and prompt_sent leave with waiting_for_model in
    one write; every other event is its own chunk; the bytes are those of the events in order."""
    events = _turn_events()
    chunks = await _chunks(events)
    assert b"".join(chunks) == b"".join(to_sse(e).encode() for e in events)
    assert [c.count(b"event: ") for c in chunks] == [4, 1, 1, 1, 1]
    assert chunks[0].startswith(b"event: metadata") and b"waiting_for_model" in chunks[0]
    assert chunks[1].startswith(b"event: text")


@pytest.mark.anyio
async def test_held_events_are_sent_even_when_the_turn_ends_after_them():
    events = _turn_events()[:2]  # a turn whose stream ended right after its start
    assert await _chunks(events) == [b"".join(to_sse(e).encode() for e in events)]
