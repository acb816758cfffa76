"""Admission control: at most ``limit`` turns, a FIFO queue bounded in time, then 503."""

import asyncio

import pytest

from api.admission import TurnAdmission
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
