"""Step 5 of a turn (the evidence: the query's embedding, the scoring) runs in a thread, a
bounded number at once, so the event loop keeps time while turns prepare (ADR 0080)."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import date
from typing import Any, cast

import pytest
from opentelemetry.trace import NoOpTracer

from engine.turn.prepare import ChatLimits, FoundEvidence, TurnPreparer, TurnRequest

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


def preparer(threads: int) -> TurnPreparer:
    unused = cast(Any, None)
    return TurnPreparer(
        store=unused, egress=unused, router=unused, evidence=unused, lexicon=None,
        limits=ChatLimits(), aspects=(), today=date.today, tracer=NoOpTracer(),
        evidence_threads=threads,
    )  # fmt: skip


async def test_the_evidence_search_runs_in_bounded_threads_while_the_loop_keeps_time() -> None:
    prepared = preparer(threads=2)
    loop_thread = threading.get_ident()
    ran_on: list[int] = []
    running, most = 0, 0
    lock = threading.Lock()

    found = cast(FoundEvidence, object())

    def slow_search(*_: object) -> FoundEvidence:  # CPU work standing for an embedding
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        ran_on.append(threading.get_ident())
        time.sleep(0.15)
        with lock:
            running -= 1
        return found

    prepared.find_evidence = slow_search  # type: ignore[method-assign,assignment]
    late: list[float] = []

    async def ticker() -> None:
        for _ in range(20):
            start = time.perf_counter()
            await asyncio.sleep(0.01)
            late.append(time.perf_counter() - start - 0.01)

    request = TurnRequest("t1", "u1", "What is the VAT rate?")
    results = await asyncio.gather(
        ticker(), *(prepared.find_evidence_off_loop(request, "m", "q", [], []) for _ in range(3))
    )
    assert all(result is found for result in results[1:])
    assert loop_thread not in ran_on  # never on the event loop's thread
    assert most == 2  # bounded: the third waited for one of the two
    assert max(late) < 0.1  # the loop kept its timers while the searches ran (each 150 ms)
