"""Adaptive admission under a burst and under overload, over real HTTP (uvicorn) with the
stand-in model paced (ADR 0055, second addendum).

The assertions are about who is admitted, who waits and who is refused, never about how fast:
where the behaviour would depend on the machine's speed the test sets the limiter's targets so
that the outcome does not (a start-delay target no start misses for the burst; loop-lag and
chunk-delay targets every loaded interval misses for the overload). How fast the admitted
streams are is measured in ``bench/``.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import time
from typing import Any

import anyio
import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.server import running_server, sse_events
from tests.support.standin import running_standin
from tools.standin import Pacing, Reply

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
QUESTION = {"message": "What is the VAT rate in Ireland?"}


def settings(data_dir, url: str, **overrides: Any) -> Settings:
    return Settings(
        data_dir=data_dir,
        log_json=False,
        llm_provider="openai",
        llm_model="gpt-test-mini",
        openai_api_key="sk-test-key",
        openai_base_url=url,
        **overrides,
    )


def figure(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} ([0-9.e+-]+)$", text, re.M)
    assert match, f"{name} is not in /metrics"
    return float(match.group(1))


async def turn(client: httpx.AsyncClient, outcomes: list[dict[str, Any]]) -> None:
    """One new conversation's first turn; its status, and for a stream its events in order."""
    async with client.stream("POST", "/api/chat", headers=ALICE, json=QUESTION) as response:
        if response.status_code != 200:
            await response.aread()
            outcomes.append(
                {"status": response.status_code, "headers": response.headers, **response.json()}
            )
            return
        events = [e for e in [e async for e in sse_events(response)] if e.event]
        outcomes.append({"status": 200, "events": events})


async def until_no_turn_in_flight(client: httpx.AsyncClient) -> None:
    """Wait (within the caller's deadline) until ``/metrics`` shows no turn in flight."""
    for _ in range(2400):  # polling a remote figure: no event to wait on
        if figure((await client.get("/metrics")).text, "regintel_turns_in_flight") == 0:
            return
        await anyio.sleep(0.05)
    raise AssertionError("a turn stayed in flight after its stream ended")


def assert_streamed_whole(outcome: dict[str, Any]) -> None:
    """The stream began with its metadata, carried the answer and ended with ``done``."""
    kinds = [e.event for e in outcome["events"]]
    assert kinds[0] == "metadata" and kinds[-1] == "done", kinds
    assert "text" in kinds and "error" not in kinds, kinds
    text = "".join(e.payload.get("delta", "") for e in outcome["events"] if e.event == "text")
    assert text.strip(), "the answer streamed no text"


async def burst(client: httpx.AsyncClient, n: int) -> list[dict[str, Any]]:
    outcomes: list[dict[str, Any]] = []
    with anyio.fail_after(240):
        async with anyio.create_task_group() as group:
            for _ in range(n):
                group.start_soon(turn, client, outcomes)
    return outcomes


def raw_turns(base: str, n: int) -> list[tuple[int, bytes]]:
    """``n`` new conversations' first turns on raw sockets: every head first, then (once the
    worker has them waiting for their bodies, ahead of any slot: ADR 0030, third addendum)
    every body at once, so the burst asks for its slots together whatever the client's speed;
    each response's status and body."""
    host, port = base.removeprefix("http://").split(":")
    body = json.dumps(QUESTION).encode()
    head = (
        b"POST /api/chat HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer dev-acme-alice\r\n"
        b"Content-Type: application/json\r\nConnection: close\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
    )
    with contextlib.ExitStack() as held:
        socks = [
            held.enter_context(socket.create_connection((host, int(port)), timeout=240))
            for _ in range(n)
        ]
        for sock in socks:
            sock.sendall(head)
        time.sleep(1.0)  # not a measurement: heads not read by then are read with their bodies
        for sock in socks:
            sock.sendall(body)
        responses = []
        for sock in socks:
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
            head, _, rest = data.partition(b"\r\n\r\n")
            responses.append((int(head.split(b" ", 2)[1]), rest))
    return responses


async def test_a_burst_of_new_conversations_on_a_fresh_worker_waits_rather_than_is_refused(
    seeded_data_dir,
):
    """Twelve new conversations at once against a fresh worker whose limit starts at 2: the
    turns beyond it wait — with no queue time at all but the burst wait of slow start — and
    the limit grows by one as each turn starts on time; every one is served, none refused.
    Before slow start, a fresh worker admitted a whole burst at once (the limit started at 64)
    or refused part of it at once (the lag gate at 32 turns in flight)."""
    with running_standin(Pacing(first_token=0.5, tokens_per_second=40)) as standin:
        app = create_app(
            settings(
                seeded_data_dir,
                standin.openai_url,
                admission_initial_turns_in_flight=2,
                admission_min_turns_in_flight=2,
                admission_queue_seconds=0,  # only the burst wait lets a turn wait
                admission_burst_queue_seconds=200,  # bounded, but never reached here
                # targets no interval misses: the limit is never cut, slow start never ends
                admission_target_loop_lag_ms=60_000,
                admission_target_chunk_delay_ms=60_000,
                admission_target_start_delay_ms=60_000,
            )
        )
        with running_server(app) as base:
            responses = await anyio.to_thread.run_sync(raw_turns, base, 12)
            async with httpx.AsyncClient(base_url=base, timeout=30) as client:
                text = (await client.get("/metrics")).text
    assert [status for status, _ in responses] == [200] * 12
    for _, body in responses:
        assert body.count(b"event: metadata") == 1 and body.count(b"event: done") == 1
        assert (
            body.index(b"event: metadata") < body.index(b"event: text") < body.index(b"event: done")
        )
    assert figure(text, "regintel_admission_refused_total") == 0
    assert figure(text, "regintel_admission_waits_total") >= 1  # the burst was not let in whole
    assert figure(text, "regintel_admission_limit") > 2  # it grew as turns started


async def test_an_overloaded_worker_refuses_new_turns_with_503_and_finishes_the_admitted_ones(
    seeded_data_dir,
):
    """Loop-lag and chunk-delay targets of a microsecond, which every interval with a chunk
    misses, make the worker 'overloaded' whatever the machine: its limit stays at its floor of
    2 with no ceiling to hold it (the default ceiling of 256). With two turns streaming (30 s
    each, so a slow machine still finds them streaming), eight new turns are refused at once
    with 503 ``overloaded`` and a spread ``Retry-After`` (never 408 or 429), the two admitted
    streams carry on to ``done``, and once they have ended a new turn is admitted again."""
    with running_standin(Pacing(first_token=0.3, tokens_per_second=40)) as standin:
        # The two admitted turns stream for 30 s (the burst must meet them still streaming,
        # however slowly a loaded machine runs the test); any later request is answered short.
        slow = Reply(text=[f"word{i} " for i in range(150)], pacing=Pacing(0.3, 5))
        standin.server.script(slow, slow, Reply(text=["Short ", "answer."]))
        app = create_app(
            settings(
                seeded_data_dir,
                standin.openai_url,
                admission_initial_turns_in_flight=2,
                admission_min_turns_in_flight=2,
                # No ceiling: the limit must not grow on its own. It once did (a clean-clone
                # run admitted a third turn): intervals without a chunk counted as on time
                # (ADR 0055, fourth addendum; unit-tested in test_adaptive_limit.py).
                admission_target_loop_lag_ms=0.001,
                admission_target_chunk_delay_ms=0.001,
                admission_queue_seconds=0,
                admission_burst_queue_seconds=0,
                overloaded_retry_after_seconds=1,
                overloaded_retry_after_max_seconds=3,
            )
        )
        with running_server(app) as base:
            async with httpx.AsyncClient(base_url=base, timeout=120) as client:
                admitted: list[dict[str, Any]] = []
                later: list[dict[str, Any]] = []
                with anyio.fail_after(120):
                    async with contextlib.AsyncExitStack() as streams:
                        responses = [
                            await streams.enter_async_context(
                                client.stream("POST", "/api/chat", headers=ALICE, json=QUESTION)
                            )
                            for _ in range(2)
                        ]
                        # both admitted (their responses started), both still streaming
                        assert [r.status_code for r in responses] == [200, 200]
                        refused = await burst(client, 8)
                        for response in responses:
                            events = [e async for e in sse_events(response) if e.event]
                            admitted.append({"status": 200, "events": events})
                    # The client has read each stream's ``done``; the worker releases a slot when
                    # the response's call returns, a moment later (longer on a loaded machine: a
                    # clean-clone run once asked in between and was refused). Ask once both ended.
                    await until_no_turn_in_flight(client)
                    await turn(client, later)
                text = (await client.get("/metrics")).text
    assert [o["status"] for o in refused] == [503] * 8
    for outcome in refused:
        assert outcome["error"]["code"] == "overloaded"
        assert 1 <= int(outcome["headers"]["retry-after"]) <= 3
    for outcome in admitted:
        assert_streamed_whole(outcome)
    assert [o["status"] for o in later] == [200]
    assert figure(text, "regintel_admission_refused_total") == 8
    assert figure(text, "regintel_admission_limit") == 2  # never grew while late


async def test_a_turn_that_waited_for_room_longer_than_its_body_deadline_is_served(
    seeded_data_dir,
):
    """The body deadline is the client's: it starts once the worker has room, not while the
    request waited for it (the worker's time). Before, such a turn got 408."""
    with running_standin(Pacing(first_token=1.5, tokens_per_second=40)) as standin:
        app = create_app(
            settings(
                seeded_data_dir,
                standin.openai_url,
                max_turns_in_flight=1,
                admission_queue_seconds=60,
                chat_body_read_timeout_seconds=0.5,
            )
        )
        with running_server(app) as base:
            async with httpx.AsyncClient(base_url=base, timeout=120) as client:
                first: list[dict[str, Any]] = []
                second: list[dict[str, Any]] = []
                with anyio.fail_after(120):
                    async with client.stream(
                        "POST", "/api/chat", headers=ALICE, json=QUESTION
                    ) as response:
                        assert response.status_code == 200  # admitted: the one slot is held
                        async with anyio.create_task_group() as group:
                            group.start_soon(turn, client, second)  # waits >= 1.5 s for room
                            events = [e async for e in sse_events(response) if e.event]
                            first.append({"status": 200, "events": events})
    assert_streamed_whole(first[0])
    assert [o["status"] for o in second] == [200]
    assert_streamed_whole(second[0])
