import json

import pytest

from api.sse import heartbeat, to_sse
from engine.events import DoneEvent, TextEvent, TurnWarning, WarningEvent

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
