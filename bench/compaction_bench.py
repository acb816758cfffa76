"""What compaction (ADR 0065) does to a turn's prompt and to the time before the model is
called, against conversation length: for 10, 50 and 200 turns written straight into a SQLite
store, one real turn over HTTP (the app served in this process, a recording stand-in model),
with compaction off (``REGINTEL_CONVERSATION_TOKEN_BUDGET=0``: the last ``history_messages``
only, as before) and on (the default budget), in one run.

Reported per row: the prompt's estimated tokens (characters / 4, as the budget counts them),
its messages, whether turn 1's question and cited provision are in it (all of the first real
turn's prompt), and the time from the request to the model's call (everything a turn does
before the first token can come: the prepare of ``engine/turn/prepare.py`` plus HTTP and auth):
the first turn's (with compaction it reads the whole branch, no summary being stored yet) and
the median of the ``--repeat`` - 1 after it (they continue the summary it stored, ADR 0065
addendum). In process, the store read and ``compact()`` of the whole branch against those of
what follows the stored summary.

    PYTHONPATH=$PWD .venv/bin/python bench/compaction_bench.py

The graph is empty (no seeded evidence): the figures are the conversation's share of the prompt.
An upper bound on a loaded machine.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from api.app import create_app
from api.settings import Settings
from conversations.models import ConversationContext, NewMessage
from conversations.sqlite import SqliteConversationStore
from egress.wire import Done, LlmRequest, StreamChunk, Text, Usage
from engine.compaction import compact, estimate_tokens, reusable_summary
from engine.lexicon import ConceptLexicon
from tests.support.server import running_server

TURN_ONE = "What is the standard rate of VAT in Ireland for restaurant meals?"
TURN_ONE_NODE = "IE:RATE:VAT_STANDARD"
KEYS = {"k": "acme:alice"}


@dataclass
class Recorder:
    name: str = "extractive"
    calls: list[tuple[float, list[str]]] = field(default_factory=list)

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        self.calls.append((time.perf_counter(), [str(m.content) for m in request.messages]))
        yield Text("A short answer.")
        yield Done(Usage(input_tokens=1, output_tokens=1))

    async def aclose(self) -> None:
        return None


def said(role: str, text: str, nodes: list[str]) -> NewMessage:
    return NewMessage(role=role, content=text, content_sanitised=text, referenced_nodes=nodes)


async def write_conversation(path: Path, turns: int) -> str:
    store = SqliteConversationStore(path)
    await store.init()
    try:
        cid = (await store.create_conversation("acme", "alice")).id
        for t in range(1, turns + 1):
            node = TURN_ONE_NODE if t == 1 else f"IE:FILLER:P{t}"
            question = TURN_ONE if t == 1 else f"Turn {t}: what does provision P{t} require?"
            answer = f"Provision {t} requires a filing [{node}]. " + "It has details. " * 30
            await store.save_turn(
                "acme",
                cid,
                [said("user", question, []), said("assistant", answer, [node])],
                ConversationContext(active_node_ids=[node]),
                user_id="alice",
            )
        return cid
    finally:
        await store.aclose()


async def one_run(
    url: str, model: Recorder, cid: str, repeat: int
) -> tuple[list[str], float, float]:
    """The first turn's prompt, its wait (request to the model's call, ms) and the median wait
    of the turns after it (with compaction: they continue the summary the first one stored)."""
    waits = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        for n in range(repeat):
            began = time.perf_counter()
            body = {"message": f"And the reduced rate, case {n}?", "conversationId": cid}
            headers = {"Authorization": "Bearer k"}
            async with client.stream("POST", "/api/chat", json=body, headers=headers) as r:
                assert r.status_code == 200
                await r.aread()
            waits.append((model.calls[-1][0] - began) * 1000)
    return model.calls[0][1], waits[0], statistics.median(waits[1:] or waits)


async def store_part(turns: int, repeat: int) -> tuple[float, float, float, float, float]:
    """Medians (ms) of what compaction adds to prepare, in process (less noisy than HTTP):
    ``load_turn`` of the last 8 messages (off), of the whole path and its ``compact`` (on,
    no summary stored: every turn before ADR 0065's addendum), and of what follows the
    stored summary and its ``compact`` (on, continuing the summary)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.db"
        cid = await write_conversation(path, turns)
        store = SqliteConversationStore(path)
        await store.init()
        try:
            whole = await store.load_turn("acme", cid, 2000, user_id="alice")
            record = compact(whole.history, 5000, 8, keep_tokens=6000).record
            off, on, work, since, since_work = [], [], [], [], []
            for n in range(repeat):
                began = time.perf_counter()
                await store.load_turn("acme", cid, 8, user_id="alice")
                off.append((time.perf_counter() - began) * 1000)
                began = time.perf_counter()
                state = await store.load_turn("acme", cid, 2000, user_id="alice")
                on.append((time.perf_counter() - began) * 1000)
                began = time.perf_counter()
                compact(state.history, 5000, 8, keep_tokens=6000)
                work.append((time.perf_counter() - began) * 1000)
                if n == 0 and record is not None:  # a turn stores the summary its prompt used
                    await store.save_turn(
                        "acme",
                        cid,
                        [said("user", "And the reduced rate?", [])],
                        ConversationContext(),
                        user_id="alice",
                        summary=record,
                    )
                began = time.perf_counter()
                part = await store.load_turn("acme", cid, 2000, user_id="alice", since_summary=True)
                base = reusable_summary(part.summaries, part.summarised_through)
                since.append((time.perf_counter() - began) * 1000)
                began = time.perf_counter()
                compact(
                    part.history, 5000, 8, part.summaries, base=base, first=part.first,
                    keep_tokens=6000,
                )  # fmt: skip
                since_work.append((time.perf_counter() - began) * 1000)
        finally:
            await store.aclose()
    medians = [statistics.median(x) for x in (off, on, work, since, since_work)]
    return medians[0], medians[1], medians[2], medians[3], medians[4]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, nargs="*", default=[10, 50, 200])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    budget_on = Settings.model_fields["conversation_token_budget"].default
    print(f"budget {budget_on} tokens; median of {args.repeat} turns; ms are upper bounds")
    print(
        "| turns | load_turn(8) ms | whole path: load_turn + compact() ms |"
        " since summary: load_turn + compact() ms |"
    )
    print("|---|---|---|---|")
    for turns in args.turns:
        off, on, work, since, since_work = asyncio.run(store_part(turns, 20))
        print(f"| {turns} | {off:.2f} | {on:.2f} + {work:.2f} | {since:.2f} + {since_work:.2f} |")
    print()
    print(
        "| turns | compaction | prompt tokens | messages | turn 1 kept |"
        " request→model ms, first turn | later turns (median) |"
    )
    print("|---|---|---|---|---|---|---|")
    for turns in args.turns:
        for budget in (0, budget_on):
            with tempfile.TemporaryDirectory() as folder:
                data = Path(folder)
                cid = asyncio.run(write_conversation(data / "conversations.db", turns))
                settings = Settings(
                    data_dir=data, log_json=False, api_keys=KEYS, conversation_token_budget=budget
                )
                model = Recorder()
                app = create_app(
                    settings, lexicon=ConceptLexicon(), providers={"extractive": model}
                )
                with running_server(app) as url:
                    prompt, first, later = asyncio.run(one_run(url, model, cid, args.repeat))
                tokens = sum(estimate_tokens(text) for text in prompt)
                kept = any(TURN_ONE in p for p in prompt) and any(
                    TURN_ONE_NODE in p for p in prompt
                )
                print(
                    f"| {turns} | {'on' if budget else 'off'} | {tokens} | {len(prompt)} | "
                    f"{'yes' if kept else 'no'} | {first:.1f} | {later:.1f} |"
                )


if __name__ == "__main__":
    main()
