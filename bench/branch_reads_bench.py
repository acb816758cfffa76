"""What branches (ADR 0062) cost a turn's store reads and writes, on SQLite: ``load_turn`` (the
read before the model is called), ``save_turn`` (the question and the ``streaming`` answer),
``finish_answer`` and ``recent_messages(200)`` (the conversation view's read) in a conversation
of 10, 50 and 200 turns.

Uses only the calls the store had before branches, so the same script runs against the code
before the change for the comparison:

    PYTHONPATH=$PWD .venv/bin/python bench/branch_reads_bench.py            # this checkout
    PYTHONPATH=<an older checkout> .venv/bin/python bench/branch_reads_bench.py

Median of ``--repeat`` calls, in milliseconds; an upper bound on a loaded machine.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from conversations.models import ConversationContext, NewMessage
from conversations.sqlite import SqliteConversationStore


def _turn(n: int) -> list[NewMessage]:
    return [
        NewMessage(role="user", content=f"question {n}", content_sanitised=f"question {n}"),
        NewMessage(role="assistant", content="", content_sanitised="", status="streaming"),
    ]


async def _median_ms(call: Callable[[], Awaitable[Any]], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        await call()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


async def _measure(
    store: SqliteConversationStore, cid: str, repeat: int
) -> tuple[float, float, float]:
    """Medians of load_turn, save_turn + finish_answer, recent_messages(200) in ``cid``."""

    async def load() -> None:
        await store.load_turn("acme", cid, 8, user_id="alice")

    async def save() -> None:
        saved = await store.save_turn("acme", cid, _turn(0), ConversationContext(), user_id="alice")
        answer = NewMessage(role="assistant", content="a", content_sanitised="a")
        await store.finish_answer(
            "acme", cid, saved[-1].id, answer,
            ConversationContext(active_node_ids=["X"]), user_id="alice",
        )  # fmt: skip

    async def recent() -> None:
        await store.recent_messages("acme", cid, 200, user_id="alice")

    return (
        await _median_ms(load, repeat),
        await _median_ms(save, repeat),
        await _median_ms(recent, repeat),
    )


async def main(turns: list[int], repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteConversationStore(Path(tmp) / "bench.db")
        await store.init()
        try:
            print("turns  load_turn  save_turn+finish  recent_messages(200)   (ms, median)")
            for count in turns:
                cid = (await store.create_conversation("acme", "alice")).id
                for n in range(count):
                    saved = await store.save_turn(
                        "acme", cid, _turn(n), ConversationContext(), user_id="alice"
                    )
                    answer = NewMessage(
                        role="assistant", content=f"answer {n} " * 40,
                        content_sanitised=f"answer {n} " * 40, referenced_nodes=[f"N:{n}"],
                    )  # fmt: skip
                    await store.finish_answer(
                        "acme", cid, saved[-1].id, answer,
                        ConversationContext(active_node_ids=[f"N:{n}"]), user_id="alice",
                    )  # fmt: skip

                loaded, saved_ms, read = await _measure(store, cid, repeat)
                print(f"{count:5d}  {loaded:9.3f}  {saved_ms:16.3f}  {read:20.3f}")
        finally:
            await store.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, nargs="+", default=[10, 50, 200])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    asyncio.run(main(args.turns, args.repeat))
