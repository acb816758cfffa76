"""Issue 25: ``kill -9`` early in an answer keeps what the client had received, with the
server's own checkpoint settings.

The journal used to write only once 64 new characters had arrived (or at the keep-alive, a
third of the stream lease): a short answer killed five text events in kept nothing. It now also
writes once the oldest unwritten text is ``TurnRecord.write_max_delay`` old (one second).
The provider is paced so slowly that the first piece of text (under 64 characters) is all the
client has when the server is killed, a little more than that delay after it arrived.
"""

import asyncio
import time

import anyio
import httpx
import pytest

from api.settings import Settings
from engine.turn.record import TurnRecord
from tests.e2e.test_durability import ALICE, QUESTION, conversation
from tests.support.server import sse_events
from tests.support.server_process import server_process

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

# Every checkpoint setting at its default: the keep-alive write (a third of the stream lease)
# comes after the kill, so it cannot be what saved the text.
LEASE_SECONDS = Settings.model_fields["stream_lease_seconds"].default
PACE = 3.5  # seconds before each piece of text
READER_LEASE_SECONDS = 3.0


async def test_kill_9_after_a_few_text_events_keeps_the_text_the_client_received(
    seeded_data_dir, tmp_path
):
    env = {"REGINTEL_DATA_DIR": str(seeded_data_dir)}
    bound = TurnRecord.write_max_delay + TurnRecord.write_interval + 0.5
    received = ""
    with server_process(env, tmp_path / "server.log", pace=PACE) as server:
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            async with client.stream(
                "POST", "/api/chat", headers=ALICE, json={"message": QUESTION}
            ) as response:
                assert response.status_code == 200
                started = time.monotonic()
                with pytest.raises(httpx.HTTPError):  # the connection drops with the process
                    with anyio.fail_after(60):
                        async for event in sse_events(response):
                            if event.event == "metadata":
                                conversation_id = event.payload["conversationId"]
                            elif event.event == "text":
                                received += event.payload["delta"]
                                await anyio.sleep(bound)  # the next piece is PACE away
                                server.kill()
    killed_after = time.monotonic() - started
    assert received and len(received) < 64  # short: the size rule alone would not write it
    assert killed_after < LEASE_SECONDS / 3  # before the first keep-alive write

    # The restarted server only reads: a short lease of its own reports the dead stream as
    # interrupted sooner (the lease is the reader's setting) without touching what was saved.
    reader_env = {**env, "REGINTEL_STREAM_LEASE_SECONDS": str(READER_LEASE_SECONDS)}
    with server_process(reader_env, tmp_path / "server.log") as restarted:
        with anyio.fail_after(READER_LEASE_SECONDS + 20):
            while True:
                messages = (await conversation(restarted.base, conversation_id))["messages"]
                if messages[-1]["status"] != "streaming":
                    break
                # until the dead stream's lease has passed; once a second, under the
                # per-user rate limit (2 a second once the burst is spent): faster polling
                # got 429 as soon as the server started quickly (a cached evidence index)
                await asyncio.sleep(1.0)
    answer = messages[-1]
    assert answer["status"] == "interrupted"
    assert answer["content"] == received
