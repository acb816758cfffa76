"""The adaptive limit (ADR 0055): AIMD on loop lag and chunk delay, with a fake clock."""

from __future__ import annotations

import asyncio

import pytest

from api.admission import TurnAdmission, admission_metrics, turn_admission
from api.settings import Settings
from errors import Overloaded
from infra.adaptive_limit import AdaptiveLimit, DelayWindow, LimitConfig

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

ON_TIME = {"lag": 0.001, "delay": 0.002}
LATE = {"lag": 0.050, "delay": 0.002}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def limiter(**overrides: float) -> tuple[AdaptiveLimit, Clock]:
    clock = Clock()
    config = LimitConfig(**{"ceiling": 100, "floor": 4, "initial": 20, **overrides})  # type: ignore[arg-type]
    return AdaptiveLimit(config, clock), clock


def run(
    limit: AdaptiveLimit,
    clock: Clock,
    seconds: float,
    in_flight: int,
    *,
    lag: float,
    delay: float | None,
    start: float = 0.0,
) -> None:
    """Call update every 20 ms (as the loop-lag probe does) for ``seconds``; ``delay`` None: no
    chunk timed in the interval."""
    for _ in range(round(seconds / 0.02)):
        clock.now = round(clock.now + 0.02, 9)
        limit.update(in_flight=in_flight, lag=lag, delay=delay, start=start)


def test_it_grows_additively_while_on_time_and_in_use_up_to_the_ceiling() -> None:
    limit, clock = limiter()
    run(limit, clock, 1.0, in_flight=1000, **ON_TIME)
    assert limit.limit == 30  # +2 every second interval of 0.1 s: five increases in 1 s
    run(limit, clock, 1.0, in_flight=20, **ON_TIME)
    assert limit.limit == 30  # 20 of 30 is not "in use" (80%)
    run(limit, clock, 60.0, in_flight=1000, **ON_TIME)
    assert limit.limit == 100  # the static limit is the ceiling


def test_it_does_not_grow_while_idle() -> None:
    limit, clock = limiter()
    run(limit, clock, 10.0, in_flight=3, **ON_TIME)
    assert limit.limit == 20 and limit.increases == 0


@pytest.mark.parametrize("signals", [LATE, {"lag": 0.001, "delay": 0.040}])
def test_either_signal_late_cuts_the_limit_to_a_fraction_of_the_turns_in_flight(
    signals: dict[str, float],
) -> None:
    limit, clock = limiter(initial=80)
    clock.now += 0.1
    assert not limit.update(in_flight=50, **signals)  # one late interval is not a trend
    clock.now += 0.1
    assert limit.update(in_flight=50, **signals)
    assert limit.limit == 45  # 0.9 x the 50 in flight, not x the limit of 80


def test_a_late_loop_with_few_turns_in_flight_cuts_nothing() -> None:
    limit, clock = limiter(initial=64, floor=8)
    run(limit, clock, 10.0, in_flight=1, **LATE)  # the lag is other work's, not the turns'
    assert limit.limit == 64 and limit.decreases == 0
    run(limit, clock, 0.3, in_flight=40, **LATE)
    assert limit.limit == 36


def test_a_single_late_interval_between_good_ones_cuts_nothing() -> None:
    limit, clock = limiter(initial=80)
    for _ in range(20):
        run(limit, clock, 0.1, in_flight=10, **LATE)
        run(limit, clock, 0.1, in_flight=10, **ON_TIME)
    assert limit.limit == 80 and limit.decreases == 0


def test_cuts_are_spaced_by_the_cooldown_and_stop_at_the_floor() -> None:
    limit, clock = limiter(initial=80)
    run(limit, clock, 0.5, in_flight=80, **LATE)
    assert limit.limit == 72 and limit.decreases == 1  # one cut in the first second
    run(limit, clock, 30.0, in_flight=80, **LATE)
    assert limit.limit == 4  # the floor


def test_after_a_cut_it_grows_again_once_on_time() -> None:
    limit, clock = limiter(initial=50)
    run(limit, clock, 0.3, in_flight=50, **LATE)
    assert limit.limit == 45
    run(limit, clock, 1.0, in_flight=45, **ON_TIME)
    assert limit.limit > 45


def test_a_small_ceiling_bounds_floor_and_initial() -> None:
    limit, clock = limiter(ceiling=2)
    assert limit.limit == 2
    run(limit, clock, 5.0, in_flight=2, **LATE)
    assert limit.limit == 2  # floor 4 bounded to the ceiling


def test_delay_window_percentiles_and_drain() -> None:
    window = DelayWindow()
    for ms in range(1, 101):
        window.add(ms / 1000)
    assert window.percentile(0.5) == pytest.approx(0.051)
    assert window.drain(0.9) == pytest.approx(0.091)
    assert window.last[0.99] == pytest.approx(0.1) and len(window) == 0
    assert window.drain(0.9) == 0.0  # nothing in this interval
    assert window.last[0.99] == pytest.approx(0.1)  # metrics keep the last interval with chunks


class FixedLag:
    def __init__(self, seconds: float) -> None:
        self.current = seconds


async def test_the_gate_admits_queued_turns_when_the_limit_grows_and_refuses_past_it() -> None:
    clock = Clock()
    lag = FixedLag(0.0)
    adaptive = AdaptiveLimit(
        LimitConfig(ceiling=10, floor=1, initial=2, increase=1, stable=1), clock
    )
    gate = TurnAdmission(10, 5.0, lag=lag, limiter=adaptive)
    held = [await gate.admit(), await gate.admit()]
    assert gate.limit == 2 and gate.in_flight == 2
    queued = asyncio.ensure_future(gate.admit())
    await asyncio.sleep(0)
    assert not queued.done() and gate.queued == 1
    gate.chunk_delays.add(0.001)  # streams are served on time (evidence: a chunk timed)
    clock.now += 0.1
    gate.adapt()  # on time, in use: 3, and the queued turn gets the new slot
    assert gate.limit == 3
    held.append(await asyncio.wait_for(queued, 1))
    assert gate.in_flight == 3
    lag.current = 0.1
    for _ in range(2):  # late twice in a row: 0.9 x 3 in flight -> 2
        clock.now += 1.0
        gate.adapt()
    assert gate.limit == 2
    held[0].release()  # over the limit: the slot is taken back, not handed on
    assert gate.in_flight == 2
    gate.queue_timeout = 0.0
    with pytest.raises(Overloaded):
        await gate.admit()


async def test_retry_after_is_spread_between_the_bounds() -> None:
    gate = TurnAdmission(1, 0.0, retry_after=1, retry_after_max=3)
    held = await gate.admit()
    seen = set()
    for _ in range(200):
        with pytest.raises(Overloaded) as refused:
            await gate.admit()
        seen.add(refused.value.retry_after)
    held.release()
    assert seen == {1, 2, 3} and gate.refused == 200


def test_settings_build_an_adaptive_gate_by_default_and_a_static_one_on_request() -> None:
    gate = turn_admission(Settings(max_turns_in_flight=128, overloaded_retry_after_seconds=2))
    assert gate.limiter is not None and gate.ceiling == 128 and gate.limit == 8
    assert gate.limiter.slow_start and (gate.queue_timeout, gate.queue_seconds()) == (0.025, 1.0)
    assert (gate.retry_after, gate.retry_after_max) == (2, 3)
    static = turn_admission(Settings(max_turns_in_flight=64, admission_adaptive=False))
    assert static.limiter is None and static.limit == 64
    one = turn_admission(Settings(overloaded_retry_after_seconds=5))
    assert (one.retry_after, one.retry_after_max) == (5, 5)


async def test_metrics_show_limit_in_flight_refusals_lag_and_chunk_delay() -> None:
    clock = Clock()
    gate = TurnAdmission(
        128, 0.0, lag=FixedLag(0.004), limiter=AdaptiveLimit(LimitConfig(ceiling=128), clock)
    )
    held = await gate.admit()
    gate.chunk_delays.add(0.002)
    clock.now += 0.1
    gate.adapt()
    text = admission_metrics(gate).decode()
    held.release()
    assert "regintel_admission_limit 8.0" in text
    assert "regintel_admission_ceiling 128.0" in text
    assert "regintel_turns_in_flight 1.0" in text
    assert "regintel_admission_refused_total 0.0" in text
    assert "regintel_event_loop_lag_seconds 0.004" in text
    assert 'regintel_chunk_delay_seconds{quantile="0.99"} 0.002' in text


def test_a_slow_start_cuts_the_limit_in_proportion_down_to_half() -> None:
    limit, clock = limiter(initial=80, target_start=0.05)
    run(limit, clock, 0.3, in_flight=60, **ON_TIME, start=0.052)  # a little late: x 0.9
    assert limit.limit == 54
    limit, clock = limiter(initial=80, target_start=0.05)
    run(limit, clock, 0.3, in_flight=60, **ON_TIME, start=0.0625)  # 0.05/0.0625 = 0.8
    assert limit.limit == 48
    limit, clock = limiter(initial=80, target_start=0.05)
    run(limit, clock, 0.3, in_flight=60, **ON_TIME, start=3.0)  # seconds late: at most halved
    assert limit.limit == 30


def test_a_start_on_target_lets_the_limit_grow() -> None:
    limit, clock = limiter(target_start=0.05)
    run(limit, clock, 1.0, in_flight=1000, **ON_TIME, start=0.04)
    assert limit.limit == 30
    run(limit, clock, 1.0, in_flight=1000, **ON_TIME, start=0.2)
    assert limit.limit < 30


async def test_the_gate_measures_how_long_admitted_turns_take_to_start() -> None:
    clock = Clock()
    adaptive = AdaptiveLimit(LimitConfig(ceiling=10, floor=1, initial=4, stable=1), clock)
    gate = TurnAdmission(10, 0.0, lag=FixedLag(0.0), limiter=adaptive)
    first, second = await gate.admit(), await gate.admit()
    assert gate.preparing == 2 and gate.oldest_start() >= 0.0
    await asyncio.sleep(0.03)
    first.started()
    first.started()  # once only
    assert len(gate.start_delays) == 1 and gate.start_delays.percentile(0.5) >= 0.03
    assert gate.preparing == 1 and gate.oldest_start() >= 0.03  # the second still preparing
    second.release()  # ended before it started (the client left): not measured
    assert gate.preparing == 0 and gate.oldest_start() == 0.0 and len(gate.start_delays) == 1
    first.release()


async def test_a_turn_preparing_too_long_cuts_the_limit_before_it_starts() -> None:
    clock = Clock()
    adaptive = AdaptiveLimit(LimitConfig(ceiling=10, floor=1, initial=4, target_start=0.01), clock)
    gate = TurnAdmission(10, 0.0, lag=FixedLag(0.0), limiter=adaptive)
    held = [await gate.admit() for _ in range(4)]
    await asyncio.sleep(0.03)  # none has started: the oldest's age is the signal
    for _ in range(2):
        clock.now += 0.1
        gate.adapt()
    assert gate.limit == 2  # 0.01 / 0.03+ -> the deepest cut, half the 4 in flight
    for admitted in held:
        admitted.release()


async def test_metrics_show_the_start_delay_and_the_turns_preparing() -> None:
    clock = Clock()
    gate = TurnAdmission(
        8, 0.0, lag=FixedLag(0.0), limiter=AdaptiveLimit(LimitConfig(ceiling=8), clock)
    )
    started, preparing = await gate.admit(), await gate.admit()
    started.started()
    clock.now += 0.1
    gate.adapt()
    text = admission_metrics(gate).decode()
    assert 'regintel_turn_start_delay_seconds{quantile="0.9"}' in text
    assert "regintel_turns_preparing 1.0" in text
    started.release()
    preparing.release()


def test_slow_start_grows_by_one_per_turn_started_on_time_while_there_is_demand() -> None:
    limit, clock = limiter(initial=4, target_start=0.05)
    assert limit.slow_start
    run(limit, clock, 0.1, in_flight=4, **ON_TIME)  # the first interval judged: on time
    assert [limit.started(0.01, demand=True) for _ in range(4)] == [True] * 4
    assert limit.limit == 8 and limit.increases == 4
    assert not limit.started(0.2, demand=True)  # started late: no growth
    assert not limit.started(0.01, demand=False)  # nobody waiting, limit not in use
    assert limit.limit == 8
    top, top_clock = limiter(initial=4, ceiling=5)
    run(top, top_clock, 0.1, in_flight=4, **ON_TIME)
    assert top.started(0.0, demand=True) and not top.started(0.0, demand=True)
    assert top.limit == 5  # never above the ceiling


def test_slow_start_does_not_grow_before_the_first_interval_is_judged() -> None:
    """A fresh worker knows nothing of its loop yet: a turn that starts on time before the
    first interval has been judged says nothing about the load (the loop may already be
    late), so it lets nothing grow; after an on-time interval it does, after a late one not."""
    limit, clock = limiter(initial=4, target_start=0.05)
    assert not limit.started(0.001, demand=True)
    assert limit.limit == 4 and limit.increases == 0
    run(limit, clock, 0.1, in_flight=4, **LATE)
    assert not limit.started(0.001, demand=True) and limit.limit == 4
    run(limit, clock, 0.1, in_flight=4, **ON_TIME)
    assert limit.started(0.001, demand=True) and limit.limit == 5


def test_slow_start_waits_while_the_last_interval_was_late_and_ends_at_the_first_cut() -> None:
    limit, clock = limiter(initial=20, target_start=0.05)
    run(limit, clock, 0.1, in_flight=20, **LATE)  # one late interval: not yet a cut
    assert limit.limit == 20 and limit.slow_start
    assert not limit.started(0.01, demand=True)  # the loop is late: no growth on a start
    run(limit, clock, 0.1, in_flight=20, **LATE)  # the second: a cut
    assert limit.limit == 18 and not limit.slow_start
    run(limit, clock, 0.2, in_flight=18, **ON_TIME)
    before = limit.limit
    assert not limit.started(0.01, demand=True)  # after the first cut: additive only
    assert limit.limit == before


async def test_a_burst_on_a_fresh_worker_waits_and_is_let_in_in_order_as_turns_start() -> None:
    """Slow start (ADR 0055, second addendum): beyond the initial limit a burst waits in the
    queue (the longer burst wait: the limit is growing), each turn that starts on time lets
    the next one in, first come first served; none is refused."""
    clock = Clock()
    config = LimitConfig(ceiling=64, floor=2, initial=2, target_start=10.0)  # any start: on time
    adaptive = AdaptiveLimit(config, clock)
    gate = TurnAdmission(64, 0.0, burst_queue_timeout=30.0, lag=FixedLag(0.0), limiter=adaptive)
    assert gate.queue_seconds() == 30.0
    gate.chunk_delays.add(0.001)
    clock.now += 0.1
    gate.adapt()  # the first interval judged (on time): slow start may grow from now on
    first, second = await gate.admit(), await gate.admit()
    queued = [asyncio.ensure_future(gate.admit()) for _ in range(4)]
    await asyncio.sleep(0)
    assert gate.queued == 4 and gate.limit == 2
    admitted = [first, second]
    for n in range(4):
        admitted[n].started()  # on time, with turns waiting: +1, the oldest waiting gets it
        await asyncio.sleep(0)
        assert [q.done() for q in queued] == [True] * (n + 1) + [False] * (3 - n)
        admitted.append(queued[n].result())
        if n == 1:  # doubled (2 -> 4) since the last judgement: judged again before more
            gate.chunk_delays.add(0.001)
            clock.now += 0.1
            gate.adapt()
    assert gate.limit == 6 and gate.in_flight == 6 and gate.refused == 0
    for turn in admitted:
        turn.release()


async def test_after_the_first_cut_a_turn_beyond_the_limit_waits_only_the_short_queue() -> None:
    clock = Clock()
    lag = FixedLag(0.0)
    adaptive = AdaptiveLimit(LimitConfig(ceiling=64, floor=2, initial=4), clock)
    gate = TurnAdmission(
        64, 0.0, burst_queue_timeout=30.0, lag=lag, max_lag=0.025, lag_floor=1, limiter=adaptive
    )
    held = [await gate.admit() for _ in range(4)]
    lag.current = 0.1
    waiting = asyncio.ensure_future(gate.admit())  # a late loop in slow start: it waits
    await asyncio.sleep(0)
    assert not waiting.done()
    for _ in range(2):
        clock.now += 0.1
        gate.adapt()
    assert not adaptive.slow_start and gate.limit < 4 and gate.queue_seconds() == 0.0
    with pytest.raises(Overloaded):
        await gate.admit()  # after the cut the lag gate is back, and there is no burst wait
    waiting.cancel()
    for turn in held:
        turn.release()


# Growth needs evidence (ADR 0055, fourth addendum). A clean-clone run of the overload e2e
# (targets of a microsecond) admitted a third turn: an interval in which no chunk was written
# read a chunk delay of 0 and, with a loop-lag reading of 0 (uvloop's cached clock makes a
# busy loop's timers look on time), counted as on time — so the limit grew on intervals that
# said nothing about the load.


async def test_intervals_without_chunks_are_not_on_time_however_small_the_targets() -> None:
    """Two turns admitted and preparing (no chunk written yet), a loop-lag reading of 0: the
    intervals carry no evidence that streams are served on time, so neither the additive
    rule nor slow start grows the limit."""
    clock = Clock()
    config = LimitConfig(ceiling=256, floor=2, initial=2, target_lag=1e-6, target_delay=1e-6)
    gate = TurnAdmission(256, 0.0, lag=FixedLag(0.0), limiter=AdaptiveLimit(config, clock))
    held = [await gate.admit(), await gate.admit()]
    for _ in range(10):  # a second of intervals, the limit in use, nothing streamed
        clock.now += 0.1
        gate.adapt()
    assert gate.limit == 2
    held[0].started()  # started on time, with the limit in use (demand)
    assert gate.limit == 2 and gate.limiter is not None and gate.limiter.increases == 0
    gate.chunk_delays.add(0.0005)  # a chunk: 0.5 ms is over the 1 us target
    clock.now += 0.1
    gate.adapt()
    held[1].started()
    assert gate.limit == 2
    for admitted in held:
        admitted.release()


def test_an_interval_without_chunks_is_neither_on_time_nor_late() -> None:
    limit, clock = limiter(initial=20)
    run(limit, clock, 2.0, in_flight=1000, lag=0.0, delay=None)
    assert limit.limit == 20 and (limit.increases, limit.decreases) == (0, 0)
    run(limit, clock, 0.1, in_flight=20, **LATE)  # one late interval ...
    run(limit, clock, 0.5, in_flight=20, lag=0.0, delay=None)  # ... no evidence either way
    run(limit, clock, 0.1, in_flight=20, **LATE)  # ... a second late one in a row: a cut
    assert limit.limit == 18
    run(limit, clock, 0.1, in_flight=1000, lag=0.5, delay=None)  # late lag needs no chunk
    run(limit, clock, 1.0, in_flight=1000, lag=0.5, delay=None)
    assert limit.limit < 18


def test_on_time_intervals_while_idle_do_not_count_towards_an_increase() -> None:
    """``stable`` on-time intervals *in use* before an increase: on-time intervals while the
    limit was not in use say nothing about carrying more, and used not to be forgotten — the
    first interval in use after an idle spell grew the limit at once."""
    limit, clock = limiter(initial=20)
    run(limit, clock, 5.0, in_flight=2, **ON_TIME)
    run(limit, clock, 0.1, in_flight=20, **ON_TIME)
    assert limit.limit == 20
    run(limit, clock, 0.1, in_flight=20, **ON_TIME)  # the second in use: now it grows
    assert limit.limit == 22


def test_slow_start_at_most_doubles_the_limit_between_two_judgements() -> None:
    """As TCP's window at most doubles per round trip: turns admitted on the strength of one
    judged interval may grow the limit to twice what it was then, not on and on before the
    next judgement has seen the load they add; the starts beyond are credited to the next
    judgement (added if it is on time, up to twice again; forgotten if it is late)."""
    limit, clock = limiter(initial=4, target_start=0.05)
    run(limit, clock, 0.1, in_flight=2, **ON_TIME)
    grew = [limit.started(0.001, demand=True) for _ in range(10)]
    assert grew == [True] * 4 + [False] * 6 and limit.limit == 8
    run(limit, clock, 0.1, in_flight=6, **ON_TIME)  # judged on time at 8: the 6 credited
    assert limit.limit == 14
    assert sum(limit.started(0.001, demand=True) for _ in range(20)) == 2  # up to 16 now
    assert limit.limit == 16
    run(limit, clock, 0.1, in_flight=6, **LATE)  # late: the 18 credited starts forgotten
    run(limit, clock, 0.1, in_flight=6, **ON_TIME)
    assert limit.limit == 16


def test_starts_before_the_first_judgement_count_once_it_is_on_time() -> None:
    """A fresh worker's first turns start before any interval is judged: they grow nothing
    then, and are added once an interval with chunks shows them served on time."""
    limit, clock = limiter(initial=4, target_start=0.05)
    assert [limit.started(0.001, demand=True) for _ in range(3)] == [False] * 3
    run(limit, clock, 0.5, in_flight=4, lag=0.0, delay=None)  # no chunk yet: not judged
    assert limit.limit == 4
    run(limit, clock, 0.1, in_flight=2, **ON_TIME)
    assert limit.limit == 7 and limit.increases == 1
