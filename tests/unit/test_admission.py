"""Admission control: at most ``limit`` turns, a FIFO queue bounded in time, then 503."""

import asyncio
import time
from typing import Any, cast

import pytest

from api.admission import TURN_PATHS, ChatAdmission, LoopLag, TurnAdmission
from errors import Overloaded

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


async def test_turns_beyond_the_limit_wait_then_are_refused_with_retry_after() -> None:
    gate = TurnAdmission(2, 0.05, retry_after=7)
    first, second = await gate.admit(), await gate.admit()
    assert gate.in_flight == 2
    with pytest.raises(Overloaded) as refused:
        await gate.admit()
    assert refused.value.retry_after == 7 and refused.value.code == "overloaded"
    assert gate.refused == 1 and gate.queued == 0
    first.release()
    first.release()  # idempotent: the second call frees nothing more
    third = await gate.admit()
    assert gate.in_flight == 2
    second.release()
    third.release()
    assert gate.in_flight == 0


async def test_a_queued_turn_gets_the_slot_of_a_turn_that_ends_first_come_first_served() -> None:
    gate = TurnAdmission(1, 5.0)
    held = await gate.admit()
    early = asyncio.create_task(gate.admit())
    await asyncio.sleep(0)
    late = asyncio.create_task(gate.admit())
    await asyncio.sleep(0)
    assert gate.queued == 2
    held.release()
    slot = await early
    assert not late.done() and gate.in_flight == 1
    slot.release()
    (await late).release()
    assert gate.in_flight == 0 and gate.queued == 0


async def test_a_client_that_leaves_while_queued_holds_no_slot() -> None:
    gate = TurnAdmission(1, 5.0)
    held = await gate.admit()
    gone = asyncio.create_task(gate.admit())
    await asyncio.sleep(0)
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    held.release()
    assert gate.in_flight == 0
    (await gate.admit()).release()


async def test_no_queue_refuses_at_once() -> None:
    gate = TurnAdmission(1, 0.0)
    held = await gate.admit()
    with pytest.raises(Overloaded):
        await gate.admit()
    held.release()


class FixedLag:
    def __init__(self, seconds: float) -> None:
        self.current = seconds


async def test_a_late_loop_refuses_new_turns_at_once_above_the_floor() -> None:
    lag = FixedLag(0.2)
    gate = TurnAdmission(100, 5.0, retry_after=3, lag=lag, max_lag=0.02, lag_floor=2)
    held = [await gate.admit(), await gate.admit()]  # under the floor: the lag is not asked
    loop = asyncio.get_running_loop()
    start = loop.time()
    with pytest.raises(Overloaded) as refused:
        await gate.admit()  # refused without queueing, although slots are free
    assert loop.time() - start < 0.5 and refused.value.retry_after == 3
    assert "saturated" in refused.value.message and gate.refused == 1
    lag.current = 0.005  # the loop caught up: admitted again
    held.append(await gate.admit())
    assert gate.in_flight == 3
    for slot in held:
        slot.release()


async def test_without_a_lag_limit_only_the_count_applies() -> None:
    gate = TurnAdmission(3, 0.0, lag=FixedLag(10.0), max_lag=0.0, lag_floor=0)
    slots = [await gate.admit() for _ in range(3)]
    with pytest.raises(Overloaded) as refused:
        await gate.admit()
    assert "3 chat turns in flight" in refused.value.message
    for slot in slots:
        slot.release()


async def test_loop_lag_sees_a_loop_that_is_blocked() -> None:
    lag = LoopLag(interval=0.01, window=3)
    monitor = asyncio.create_task(lag.run())
    try:
        await asyncio.sleep(0.05)
        time.sleep(0.12)  # noqa: ASYNC251 - the point: the loop is stuck, the wake-up is late
        await asyncio.sleep(0.02)
        assert lag.current >= 0.1
    finally:
        monitor.cancel()


def test_loop_lag_reads_real_lateness_under_uvloop_whose_clock_has_millisecond_steps() -> None:
    """uvloop's ``loop.time()`` moves in whole milliseconds (libuv's cached ``uv_now``): timed
    with it, most wake-ups read a lag of exactly 0, and a 0 counts as on time against any
    target, even a microsecond. Timed with ``time.perf_counter`` every wake-up of an idle loop
    is a little late (the timer fires after its time, never before), so it reads above 0."""
    uvloop = pytest.importorskip("uvloop")
    lag = LoopLag(interval=0.003, window=1)  # current: the last sample alone
    samples: list[float] = []

    async def measure() -> None:
        enough = asyncio.Event()

        def sampled() -> None:
            samples.append(lag.current)
            if len(samples) >= 20:
                enough.set()

        lag.on_sample = sampled
        monitor = asyncio.create_task(lag.run())
        await enough.wait()
        monitor.cancel()

    uvloop.run(measure())
    assert min(samples) > 0, samples


async def test_waiting_for_room_holds_no_slot_and_is_refused_after_the_queue_time() -> None:
    """ChatAdmission's first, cheap check (issue 30): it takes nothing, so a caller that never
    gets further (anonymous, slow body) keeps no slot from anybody."""
    gate = TurnAdmission(1, 0.05)
    await gate.wait_for_room()
    await gate.wait_for_room()
    assert gate.in_flight == 0  # room checked twice, nothing taken
    held = await gate.admit()
    start = time.monotonic()
    with pytest.raises(Overloaded):
        await gate.wait_for_room()
    assert time.monotonic() - start >= 0.04
    waiting = asyncio.create_task(gate.wait_for_room())
    await asyncio.sleep(0)
    held.release()
    await waiting  # woken by the release
    assert gate.in_flight == 0


async def test_body_reads_are_budgeted_per_client_address_and_in_all() -> None:
    from api.admission import BodyReads

    reads = BodyReads(per_client=2, total=3)
    assert await reads.enter("10.0.0.1") and await reads.enter("10.0.0.1")
    assert not await reads.enter("10.0.0.1")  # that address has its share (no deadline)
    assert await reads.enter("10.0.0.2")
    assert not await reads.enter("10.0.0.3")  # the total is spent
    reads.leave("10.0.0.1")
    assert await reads.enter("10.0.0.3")
    assert reads.refused == 2 and reads.reading == 3


async def test_a_read_over_the_budget_waits_for_one_to_end_until_its_deadline() -> None:
    """A burst of prompt clients from one address is served, not refused (a busy loop once
    turned ten concurrent turns into 429s); past the deadline it is refused."""
    from api.admission import BodyReads

    loop = asyncio.get_running_loop()
    reads = BodyReads(per_client=1, total=10)
    assert await reads.enter("a")
    waiting = asyncio.create_task(reads.enter("a", loop.time() + 5))
    await asyncio.sleep(0.01)
    assert not waiting.done()
    reads.leave("a")
    assert await waiting and reads.reading == 1
    start = time.monotonic()
    assert not await reads.enter("a", loop.time() + 0.05)
    assert time.monotonic() - start >= 0.04 and reads.refused == 1


class _Gate:
    """A stand-in admission gate counting the turns it admitted."""

    queue_timeout = 0.0

    def __init__(self) -> None:
        self.admitted = 0

    def queue_seconds(self) -> float:
        return 0.0

    async def wait_for_room(self, until: float | None = None) -> None:
        return None

    async def admit(self, until: float | None = None) -> "_Gate":
        self.admitted += 1
        return self

    def release(self) -> None:
        return None

    def started(self) -> None:
        return None

    def chunk_written(self, start: float) -> None:
        return None


async def test_an_edit_and_a_regeneration_take_a_turn_slot_like_a_chat_turn() -> None:
    """ADR 0062: the requests that run a turn (``TURN_PATHS``) are admitted; others pass."""
    gate = _Gate()

    async def app(scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    admission = ChatAdmission(
        app, admission=lambda scope: cast(TurnAdmission, gate), path=TURN_PATHS
    )

    async def post(path: str, method: str = "POST") -> None:
        scope = {"type": "http", "method": method, "path": path, "headers": [], "client": ("t", 1)}
        sent: list[object] = []

        async def receive() -> dict[str, object]:
            return {"type": "http.request", "body": b"{}", "more_body": False}

        async def send(message: object) -> None:
            sent.append(message)

        await admission(scope, receive, send)
        assert sent, path

    turns = [
        "/api/chat",
        "/api/conversations/c1/messages/m1/edit",
        "/api/conversations/c1/messages/m1/regenerate",
    ]
    for path in turns:
        await post(path)
    assert gate.admitted == 3
    for path in [
        "/api/conversations/c1/branch",
        "/api/conversations/c1/messages/m1/edit/x",
        "/api/conversations/c1",
        "/api/chatter",
    ]:
        await post(path)
    await post("/api/conversations/c1/messages/m1/edit", method="GET")
    assert gate.admitted == 3


class _Lag:
    def __init__(self, seconds: float) -> None:
        self.current = seconds


async def _post_chat(admission: ChatAdmission, receive) -> list[dict[str, object]]:
    """One ``POST /api/chat`` through ``admission``; the messages it sent."""
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/chat",
        "headers": [],
        "client": ("t", 1),
    }
    sent: list[dict[str, object]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    await admission(scope, receive, send)
    return sent


def _status_and_headers(sent: list[dict[str, object]]) -> tuple[int, dict[bytes, bytes]]:
    start = sent[0]
    assert start["type"] == "http.response.start"
    return cast(int, start["status"]), dict(cast(list[tuple[bytes, bytes]], start["headers"]))


async def _no_body_yet() -> dict[str, object]:
    await asyncio.Event().wait()  # the body never comes in time
    raise AssertionError


async def _reply_204(scope, receive, send) -> None:
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


@pytest.mark.parametrize(
    ("lag", "status", "code"), [(0.0, 408, b"request_timeout"), (5.0, 503, b"overloaded")]
)
async def test_a_body_not_read_in_time_is_408_unless_the_worker_itself_ran_late(
    lag: float, status: int, code: bytes
) -> None:
    """A starved worker (its loop seconds late) that could not read a request in time says so
    with 503 ``overloaded`` and ``Retry-After``, not 408: the client was not the slow one."""
    gate = TurnAdmission(4, 0.0, retry_after=2, lag=_Lag(lag), max_lag=1.0)  # starved: 1 s+
    admission = ChatAdmission(_reply_204, admission=lambda scope: gate, read_timeout=0.05)
    sent = await _post_chat(admission, _no_body_yet)
    got, headers = _status_and_headers(sent)
    assert got == status and code in cast(bytes, sent[1]["body"])
    assert (b"retry-after" in headers) is (status == 503)
    assert gate.in_flight == 0 and gate.refused == (status == 503)


async def test_the_body_deadline_starts_once_the_request_has_room_not_before() -> None:
    """A turn that waited for room longer than the body deadline is read and admitted (it was
    the worker that kept it waiting; before, it got 408)."""
    gate = TurnAdmission(1, 5.0)
    held = await gate.admit()
    app_ran = asyncio.Event()

    async def app(scope, receive, send) -> None:
        app_ran.set()
        await _reply_204(scope, receive, send)

    admission = ChatAdmission(app, admission=lambda scope: gate, read_timeout=0.05)

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    turn = asyncio.create_task(_post_chat(admission, receive))
    await asyncio.sleep(0.2)  # waiting for room, four times the body deadline
    assert not turn.done() and not app_ran.is_set()
    held.release()
    sent = await asyncio.wait_for(turn, 5)
    assert _status_and_headers(sent)[0] == 204 and app_ran.is_set()
