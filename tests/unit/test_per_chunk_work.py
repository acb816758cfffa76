"""Per-chunk work is O(chunk), not O(answer so far) (ADR 0029).

Work is counted, not timed: the memory a chunk's handling allocates (``tracemalloc``'s peak
while it runs: a join or concatenation of the whole answer allocates the whole answer) must
stay flat as the answer grows from a few hundred characters to a few hundred thousand.
Checkpoints scan nothing for PII (ADR 0038; ``tests/integration/test_streamed_answers.py``).
"""

import tracemalloc
from collections.abc import Callable

import pytest

from api.sse import to_sse
from egress.restorer import PlaceholderRestorer
from engine.events import TextEvent
from engine.turn.record import TurnRecord

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

DELTA = "The standard rate of VAT is 23% [IE:RATE:VAT_STANDARD]. "
GROWN = 5000  # chunks streamed before the late measurement: ~280 KB of answer


def _record() -> TurnRecord:
    async def save(record: TurnRecord) -> None:
        return None

    return TurnRecord(save=save, spawn=lambda work: pytest.fail("no spawn expected"))


def _allocated(step: Callable[[], None]) -> int:
    """Bytes allocated at peak while ``step`` runs, over what was allocated before."""
    tracemalloc.reset_peak()
    before, _ = tracemalloc.get_traced_memory()
    step()
    _, peak = tracemalloc.get_traced_memory()
    return peak - before


def _per_chunk_peaks(handle: Callable[[str], None]) -> tuple[int, int]:
    """The largest allocation of one chunk early in the answer and after GROWN chunks."""
    tracemalloc.start()
    try:
        early = max(_allocated(lambda: handle(DELTA)) for _ in range(20))
        for _ in range(GROWN):
            handle(DELTA)
        late = max(_allocated(lambda: handle(DELTA)) for _ in range(20))
    finally:
        tracemalloc.stop()
    return early, late


def test_the_chunk_path_allocates_the_same_for_the_first_and_the_five_thousandth_chunk() -> None:
    record = _record()
    restorer = PlaceholderRestorer({"[PERSON_1]": "Mary Murphy", "[EMAIL_1]": "m@example.ie"})

    def handle(delta: str) -> None:  # what the engine does with one Text chunk
        shown = restorer.feed(delta)
        record.add_text(shown)
        to_sse(TextEvent(shown)).encode()

    early, late = _per_chunk_peaks(handle)
    answer = len(DELTA) * GROWN
    assert late < early + 2048, (early, late)
    assert late < answer / 20  # a whole-answer copy would be ~280 KB


def test_a_whole_answer_join_per_chunk_is_what_the_count_catches() -> None:
    """The counter can fail: reading the whole answer per chunk shows up at once."""
    record = _record()

    def handle(delta: str) -> None:
        record.add_text(delta)
        "".join([record.answer, ""])  # a copy of the answer so far, per chunk

    early, late = _per_chunk_peaks(handle)
    assert late > early + len(DELTA) * GROWN / 2
