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

    PYTHONPATH=$PWD .venv/bin/python bench/compaction_bench.py [--repeat 12] [--model-summary]

With ``--model-summary``, two more rows per length: compaction on with the summary by a model
(ADR 0065 third addendum) through a stand-in ``openai`` route that answers after
``--summary-delay`` seconds, throttled as shipped (``REGINTEL_CONVERSATION_SUMMARY_MIN_NEW_
TOKENS``, default 400) and unthrottled (0); each row also gives the last turn's prompt tokens
and the summary calls made over the ``--repeat`` turns (``--gap`` seconds apart, as a person
types; the variants of one length are served at once and their turns interleaved, so load
that drifts weighs on all alike). The summary calls run in the background: what they add to
a turn is what they take of the process and the store while the next turn prepares.

The graph is empty (no seeded evidence): the figures are the conversation's share of the prompt.
An upper bound on a loaded machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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


@dataclass
class SummaryStandIn:
    """The summary route's stand-in ("openai"): answers a short summary after ``delay`` s."""

    delay: float
    name: str = "openai"
    calls: int = 0

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        self.calls += 1
        await asyncio.sleep(self.delay)
        yield Text(f"The user asked about VAT and provisions, summary {self.calls}. " * 4)
        yield Done(Usage(input_tokens=900, output_tokens=60))

    async def aclose(self) -> None:
        return None


@dataclass
class Run:
    """One variant's server, its conversation and its turns' waits (request to model, ms)."""

    label: str
    url: str
    model: Recorder
    cid: str
    summariser: SummaryStandIn | None
    waits: list[float] = field(default_factory=list)


async def interleaved(runs: list[Run], repeat: int, gap: float) -> None:
    """``repeat`` turns into each variant's conversation, one variant after the other in
    alternating order, ``gap`` s between rounds: a load that drifts over the run weighs on
    every variant alike (the first turn reads the whole branch; the later ones continue the
    summary it stored)."""
    headers = {"Authorization": "Bearer k"}
    async with httpx.AsyncClient(timeout=60) as client:
        for n in range(repeat):
            if n and gap:
                await asyncio.sleep(gap)
            for run in runs if n % 2 == 0 else runs[::-1]:
                began = time.perf_counter()
                body = {"message": f"And the reduced rate, case {n}?", "conversationId": run.cid}
                url = f"{run.url}/api/chat"
                async with client.stream("POST", url, json=body, headers=headers) as r:
                    assert r.status_code == 200
                    await r.aread()
                run.waits.append((run.model.calls[-1][0] - began) * 1000)


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
    parser.add_argument("--model-summary", action="store_true")
    parser.add_argument("--summary-delay", type=float, default=0.3)
    parser.add_argument("--gap", type=float, default=0.5)
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
        "| turns | compaction | prompt tokens (first / last turn) | messages | turn 1 kept |"
        " request→model ms, first turn | later turns (median) | summary calls |"
    )
    print("|---|---|---|---|---|---|---|---|")
    throttle = Settings.model_fields["conversation_summary_min_new_tokens"].default
    variants: list[tuple[str, int, int | None]] = [("off", 0, None), ("on", budget_on, None)]
    if args.model_summary:
        variants += [
            (f"on + model summary (throttle {throttle})", budget_on, throttle),
            ("on + model summary (unthrottled)", budget_on, 0),
        ]
    for turns in args.turns:
        with contextlib.ExitStack() as stack:
            runs: list[Run] = []
            for label, budget, min_new in variants:  # all served at once, turns interleaved
                data = Path(stack.enter_context(tempfile.TemporaryDirectory()))
                cid = asyncio.run(write_conversation(data / "conversations.db", turns))
                extra: dict[str, object] = {}
                summariser = SummaryStandIn(args.summary_delay)
                providers: dict[str, object] = {}
                if min_new is not None:
                    extra = {
                        "conversation_summary_by_model": True,
                        "conversation_summary_min_new_tokens": min_new,
                        "llm_task_routes": {"conversation_summary": "openai:gpt-4o-mini"},
                    }
                    providers = {"openai": summariser}
                settings = Settings(
                    data_dir=data,
                    log_json=False,
                    api_keys=KEYS,
                    conversation_token_budget=budget,
                    **extra,
                )
                model = Recorder()
                app = create_app(
                    settings,
                    lexicon=ConceptLexicon(),
                    providers={"extractive": model, **providers},
                )
                url = stack.enter_context(running_server(app))
                runs.append(
                    Run(label, url, model, cid, summariser if min_new is not None else None)
                )
            asyncio.run(interleaved(runs, args.repeat, args.gap))
        for run in runs:
            prompt = run.model.calls[0][1]
            tokens = sum(estimate_tokens(text) for text in prompt)
            last = sum(estimate_tokens(text) for text in run.model.calls[-1][1])
            kept = any(TURN_ONE in p for p in prompt) and any(TURN_ONE_NODE in p for p in prompt)
            calls = run.summariser.calls if run.summariser is not None else "-"
            later = statistics.median(run.waits[1:] or run.waits)
            print(
                f"| {turns} | {run.label} | {tokens} / {last} | {len(prompt)} | "
                f"{'yes' if kept else 'no'} | {run.waits[0]:.1f} | {later:.1f} | {calls} |"
            )


if __name__ == "__main__":
    main()
