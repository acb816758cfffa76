"""The scenario engine (issue 28): worked examples passed, dev vs held-out, and evaluation time.

    .venv/bin/python bench/scenario_bench.py [--data-dir DIR] [--rounds 50] [--json out.json]
        [--chat-turns 20] [--profile-turns 20]

Examples: ``bench/data/scenario_examples.jsonl`` (published figures, to the cent; ``gap``
examples must come back with gaps and no figures), graded per split. Timing: each example's
snapshot and the €50,000 / €60,000 pair of issue 28, evaluated ``rounds`` times; a comparison
is both scenarios evaluated and compared. Two readers: the seed files in memory (the engine's
own cost) and, with ``--data-dir``, the embedded graph (Ladybug) of a seeded data folder, read
as the API reads it (one ``get_nodes`` per snapshot; the folder is seeded first when empty).

With ``--data-dir`` and ``--chat-turns N``, in the same run: the API served as its own process
on that folder (offline extractive provider), and N pairs of turns over real HTTP, alternated:
a plain question ("What is the standard rate of VAT in Ireland?") and a what-if ("what if I
earned €60,000 instead?") in a conversation that stated its facts first (ADR 0063); request ->
first ``text`` event and -> ``done``, p50/p95, and what the what-if adds at the median.

With ``--data-dir`` and ``--profile-turns N``: where a what-if turn's extra time goes. The API
and the client share one event loop in this process (uvicorn served as a task), N pairs of
turns alternated as above after a warm-up of each kind; per turn the process's CPU time
(``time.process_time``: every thread, so the client's share too, which both kinds pay alike)
and wall time, and a ``cProfile`` of each kind on a CPU clock; reported: CPU per turn p50/p95
per kind, the cumulative CPU of the steps before the first token (``prepare``, the what-if
step's ``run``, egress's scans) and the functions whose own CPU per turn grows most from a
plain turn to a what-if.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from contextlib import contextmanager
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.seeding import read_seed_files  # noqa: E402
from graph.models import GraphEdge, GraphNode, GraphSnapshot  # noqa: E402
from scenarios import (  # noqa: E402
    Facts,
    ParameterReader,
    ScenarioInput,
    Snapshot,
    SnapshotResult,
    compare,
    evaluate,
    evaluate_snapshot,
)

EXAMPLES = ROOT / "bench" / "data" / "scenario_examples.jsonl"


class SeedFiles:
    """The seed files as a parameter reader (no graph store)."""

    def __init__(self) -> None:
        seeds = read_seed_files()
        self.nodes = {
            n["id"]: GraphNode(id=n["id"], label=n["label"], properties=n.get("properties") or {})
            for n in seeds["nodes"]
        }
        self.edges = [GraphEdge(**e) for e in seeds["edges"]]

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        return [self.nodes[i] for i in ids if i in self.nodes]

    async def snapshot(
        self, labels: Sequence[str] | None = None, limit: int = 1000
    ) -> GraphSnapshot:
        """The nodes of ``labels`` and the edges among them (the rules eligibility reads)."""
        nodes = [n for n in self.nodes.values() if labels is None or n.label in labels][:limit]
        ids = {n.id for n in nodes}
        edges = [e for e in self.edges if e.source in ids and e.target in ids]
        return GraphSnapshot(nodes=nodes, edges=edges)


def load_examples(path: Path = EXAMPLES) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _snapshot(facts: dict[str, Any], label: str = "example") -> Snapshot:
    parsed = Facts.model_validate(facts)
    return Snapshot(label=label, as_at=date(parsed.tax_year, 12, 31), facts=parsed)


def figure(result: SnapshotResult, key: str) -> Decimal | None:
    """The figure an example's ``key`` names: ``<tax>[:person]`` a total; ``income_tax_gross``
    the charge lines; ``income_tax_band`` the standard-rate band used; ``income_tax_credits``
    the credit lines; ``line:<key>[:person]`` / ``base:<key>[:person]`` one line's amount /
    base (``you`` unless a person is named), ``<key>`` as ``<tax>.<key>`` where two taxes have
    lines of that key (an unqualified key that names lines of two taxes is no figure).
    ``None`` when the result has none."""
    name, _, person = key.partition(":")
    if name in ("line", "base"):
        line_key, _, whose = person.partition(":")
        whose = whose or "you"
        tax, _, line_key = line_key.rpartition(".")
        found = [
            ln
            for ln in result.lines
            if ln.key == line_key and ln.person == whose and (not tax or ln.tax == tax)
        ]
        if not found or len({ln.tax for ln in found}) > 1:
            return None
        return found[0].amount if name == "line" else found[0].base
    person = person or "you"
    lines = [ln for ln in result.lines if ln.tax == "income_tax" and ln.person == person]
    if name == "income_tax_gross":
        charges = [ln.amount for ln in lines if ln.key in ("standard_rate", "higher_rate")]
        return sum(charges, Decimal(0)) if charges else None
    if name == "income_tax_band":
        return next((ln.base for ln in lines if ln.key == "standard_rate"), None)
    if name == "income_tax_credits":
        credits = [ln.amount for ln in lines if ln.key.startswith("credit_")]
        return sum(credits, Decimal(0)) if credits else None
    return result.total(name, person)


def grade(example: dict[str, Any], result: SnapshotResult) -> list[str]:
    """What in ``result`` disagrees with the example's published figures (empty: it passed)."""
    problems = []
    for key, expected in example["expected"].items():
        if key == "gap":
            year = str(example["facts"]["tax_year"])
            if result.totals or result.lines:
                problems.append("figures given for a year the graph does not hold")
            if not any(g.missing and year in g.missing for g in result.gaps):
                problems.append(f"no gap naming {year}")
            continue
        got = figure(result, key)
        if got is None or got != Decimal(expected):
            problems.append(f"{key}: {got} != {expected}")
    return problems


def _pair() -> tuple[ScenarioInput, ScenarioInput]:
    def one(label: str, paye: int) -> ScenarioInput:
        facts = {"tax_year": 2025, "jurisdiction": "IE", "age": 35, "paye_income": paye}
        return ScenarioInput(label=label, snapshots=[_snapshot(facts, "2025")])

    return one("50k", 50_000), one("60k", 60_000)


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered) * 1000, 3),
        "p95_ms": round(p95 * 1000, 3),
    }


async def measure(reader: ParameterReader, rounds: int) -> dict[str, Any]:
    examples = load_examples()
    snapshots = [_snapshot(e["facts"]) for e in examples]
    low, high = _pair()
    snapshots += [*low.snapshots, *high.snapshots]
    per_snapshot: list[float] = []
    per_comparison: list[float] = []
    for _ in range(rounds):
        for snapshot in snapshots:
            began = time.perf_counter()
            await evaluate_snapshot(reader, snapshot)
            per_snapshot.append(time.perf_counter() - began)
        began = time.perf_counter()
        compare(["50k", "60k"], [await evaluate(reader, low), await evaluate(reader, high)])
        per_comparison.append(time.perf_counter() - began)
    return {"per_snapshot": _ms(per_snapshot), "per_comparison": _ms(per_comparison)}


async def examples_table(reader: ParameterReader) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for example in load_examples():
        result = await evaluate_snapshot(reader, _snapshot(example["facts"]))
        row = table.setdefault(example["split"], {"passed": 0, "total": 0, "failed": []})
        row["total"] += 1
        if problems := grade(example, result):
            row["failed"].append({"id": example["id"], "problems": problems})
        else:
            row["passed"] += 1
    return table


def outcome(example: dict[str, Any], result: SnapshotResult | None) -> str:
    """``right`` (every published figure to the cent), ``wrong`` (a figure given that differs)
    or ``cannot_tell`` (no figure for some key and none wrong; also facts the schema refuses)."""
    if result is None:
        return "cannot_tell"
    problems = grade(example, result)
    if not problems:
        return "right"
    if any(not p.split(": ", 1)[-1].startswith("None !=") for p in problems):
        return "wrong"
    return "cannot_tell"


async def totals_table(reader: SeedFiles, path: Path) -> dict[str, dict[str, int]]:
    """Totals only, per split: right / wrong / cannot tell (a held-out set is never read item
    by item)."""
    from pydantic import ValidationError

    from scenarios.eligibility import load_rules

    rules = await load_rules(reader)
    table: dict[str, dict[str, int]] = {}
    for example in load_examples(path):
        try:
            snapshot = _snapshot(example["facts"])
        except ValidationError:
            result = None
        else:
            result = await evaluate_snapshot(reader, snapshot, rules)
        row = table.setdefault(example["split"], {"right": 0, "wrong": 0, "cannot_tell": 0})
        row[outcome(example, result)] += 1
    return table


async def _graph_figures(data_dir: Path, rounds: int) -> dict[str, Any]:
    from api.bootstrap import open_graph
    from api.settings import Settings
    from engine.seeding import seed_graph

    settings = Settings(data_dir=data_dir, log_json=False)
    async with open_graph(settings) as handle:
        probes = ["IE:RATE:IT_STANDARD:2025", "UK:RATE:IT_BASIC:2025", "IE:RATE:CGT_STANDARD:2025"]
        if len(await handle.graph.get_nodes(probes)) < len(probes):  # seed (again): idempotent
            await seed_graph(handle.graph, handle.writer)
        return {
            "examples": await examples_table(handle.graph),
            "timing": await measure(handle.graph, rounds),
        }


PLAIN = "What is the standard rate of VAT in Ireland?"
STATED = "I earn €50,000 as a PAYE employee, single, aged 35, in 2025."
WHAT_IF = "what if I earned €60,000 instead?"


async def _turn(client: Any, message: str, conversation: str | None) -> tuple[float, float, Any]:
    from tests.support.server import sse_events

    body: dict[str, Any] = {"message": message}
    if conversation:
        body["conversationId"] = conversation
    began = time.perf_counter()
    first = None
    done: dict[str, Any] = {}
    async with client.stream("POST", "/api/chat", json=body) as response:
        response.raise_for_status()
        async for event in sse_events(response):
            if event.event == "text" and first is None:
                first = time.perf_counter() - began
            elif event.event == "done":
                done = event.payload
    return first or 0.0, time.perf_counter() - began, done


async def chat_figures(data_dir: Path, turns: int) -> dict[str, Any]:
    """Time to first token of a what-if turn against a plain turn, alternated, over HTTP."""
    import httpx

    from api.settings import Settings
    from bench.chat_turn_bench import served

    headers = {"Authorization": "Bearer dev-acme-alice"}
    figures: dict[str, dict[str, list[float]]] = {
        "plain": {"first": [], "done": []},
        "what_if": {"first": [], "done": []},
    }
    # the per-user rate limit would refuse a bench's back-to-back turns (429)
    os.environ.setdefault("REGINTEL_RATE_LIMIT_USER_PER_MINUTE", "100000")
    os.environ.setdefault("REGINTEL_RATE_LIMIT_TENANT_PER_MINUTE", "100000")
    with served(Settings(data_dir=data_dir)) as base:
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client:
            _, _, plain = await _turn(client, PLAIN, None)  # warm-up, and the conversations
            _, _, stated = await _turn(client, STATED, None)
            plain_id, what_if_id = plain["conversationId"], stated["conversationId"]
            for _ in range(turns):
                for kind, message, conversation in (
                    ("plain", PLAIN, plain_id),
                    ("what_if", WHAT_IF, what_if_id),
                ):
                    first, total, done = await _turn(client, message, conversation)
                    if kind == "what_if" and "scenario" not in done:
                        raise SystemExit("the what-if turn carried no scenario in done")
                    figures[kind]["first"].append(first)
                    figures[kind]["done"].append(total)
    out: dict[str, Any] = {
        kind: {"first_text": _ms(f["first"]), "done": _ms(f["done"])} for kind, f in figures.items()
    }
    added = out["what_if"]["first_text"]["p50_ms"] - out["plain"]["first_text"]["p50_ms"]
    out["what_if_adds_to_first_text_p50_ms"] = round(added, 3)
    return out


def _per_turn(profile: Any, turns: int) -> dict[str, tuple[float, float, int]]:
    """``cProfile`` stats as ``{"file:line(function)": (own and cumulative CPU seconds per
    turn, calls)}``."""
    import pstats

    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    out = {}
    for (file, line, name), (_cc, calls, own, cumulative, _callers) in stats.items():
        where = f"{Path(file).name}:{line}({name})" if line else name
        out[where] = (own / turns, cumulative / turns, calls)
    return out


# The steps before the first token, and egress's scans, whose CPU per turn the profile reports.
_STEPS = ("(prepare)", "(run)", "(sanitise_message)", "(_sanitise_request)", "(sanitise)")


_TIMED_STEPS = (
    ("engine.turn.prepare", "TurnPreparer", "prepare"),
    ("engine.turn.prepare", "TurnPreparer", "find_evidence"),
    ("engine.turn.prepare", "TurnPreparer", "what_if_section"),
    ("engine.turn.what_if", "WhatIfStep", "run"),
    ("egress.client", "EgressClient", "_sanitise_request"),
)


@contextmanager
def _timed_steps(kind: list[str], into: dict[str, dict[str, list[tuple[float, float]]]]) -> Any:
    """Wrap the steps before the first token: wall and this thread's CPU per call, by the turn
    kind in ``kind[0]`` (a worker thread's CPU shows as wall here: egress scans long texts in
    one)."""
    import importlib
    import inspect

    saved = []
    for module_name, class_name, name in _TIMED_STEPS:
        owner = getattr(importlib.import_module(module_name), class_name, None)
        if owner is None or not hasattr(owner, name):
            continue  # a tree without that step
        original = getattr(owner, name)

        def record(name: str, began: float, cpu: float) -> None:
            samples = into.setdefault(kind[0], {}).setdefault(name, [])
            samples.append((time.perf_counter() - began, time.thread_time() - cpu))

        def wrapped(*args: Any, __original: Any = original, __name: str = name, **kw: Any) -> Any:
            began, cpu = time.perf_counter(), time.thread_time()
            if not inspect.iscoroutinefunction(__original):
                try:
                    return __original(*args, **kw)
                finally:
                    record(__name, began, cpu)

            async def run() -> Any:
                try:
                    return await __original(*args, **kw)
                finally:
                    record(__name, began, cpu)

            return run()

        saved.append((owner, name, original))
        setattr(owner, name, wrapped)
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


async def profile_figures(data_dir: Path, turns: int, top: int = 30) -> dict[str, Any]:
    """CPU per turn of a what-if against a plain turn, and what a what-if adds (cProfile)."""
    import cProfile
    import socket

    import httpx
    import uvicorn

    from api.app import create_app
    from api.settings import Settings

    os.environ.setdefault("REGINTEL_RATE_LIMIT_USER_PER_MINUTE", "100000")
    os.environ.setdefault("REGINTEL_RATE_LIMIT_TENANT_PER_MINUTE", "100000")
    app = create_app(Settings(data_dir=data_dir, log_json=False, log_level="WARNING"))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:  # noqa: ASYNC110 (uvicorn exposes a flag, no event)
        await asyncio.sleep(0.02)
    headers = {"Authorization": "Bearer dev-acme-alice"}
    kinds = ("plain", "what_if")
    # CPU time, not wall: an event loop's waits in select() would otherwise dominate
    profiles = {kind: cProfile.Profile(time.process_time) for kind in kinds}
    cpu: dict[str, list[float]] = {kind: [] for kind in kinds}
    wall: dict[str, list[float]] = {kind: [] for kind in kinds}
    current = ["warm-up"]
    step_samples: dict[str, dict[str, list[tuple[float, float]]]] = {}
    timing = _timed_steps(current, step_samples)
    timing.__enter__()
    try:
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client:
            _, _, plain = await _turn(client, PLAIN, None)
            _, _, stated = await _turn(client, STATED, None)
            plain_id, what_if_id = plain["conversationId"], stated["conversationId"]
            for _ in range(2):  # warm-up of each kind: caches, the what-if's rules
                await _turn(client, PLAIN, plain_id)
                await _turn(client, WHAT_IF, what_if_id)
            for _ in range(turns):
                for kind, message, conversation in (
                    ("plain", PLAIN, plain_id),
                    ("what_if", WHAT_IF, what_if_id),
                ):
                    current[0] = kind
                    began, cpu_began = time.perf_counter(), time.process_time()
                    profiles[kind].enable()
                    _, _, done = await _turn(client, message, conversation)
                    profiles[kind].disable()
                    cpu[kind].append(time.process_time() - cpu_began)
                    wall[kind].append(time.perf_counter() - began)
                    if kind == "what_if" and "scenario" not in done:
                        raise SystemExit("the what-if turn carried no scenario in done")
    finally:
        timing.__exit__(None, None, None)
        server.should_exit = True
        await serving
        sock.close()
    plain_stats = _per_turn(profiles["plain"], turns)
    what_if_stats = _per_turn(profiles["what_if"], turns)
    grown = sorted(
        (
            (own - plain_stats.get(where, (0.0, 0.0, 0))[0], where, own, calls)
            for where, (own, _, calls) in what_if_stats.items()
        ),
        reverse=True,
    )[:top]
    steps = {
        kind: {
            where: round(cumulative * 1000, 3)
            for where, (_, cumulative, _) in stats.items()
            if where.endswith(_STEPS) and cumulative > 0.0002
        }
        for kind, stats in (("plain", plain_stats), ("what_if", what_if_stats))
    }
    out: dict[str, Any] = {kind: {"cpu": _ms(cpu[kind]), "wall": _ms(wall[kind])} for kind in kinds}
    out["what_if_adds_cpu_p50_ms"] = round(
        out["what_if"]["cpu"]["p50_ms"] - out["plain"]["cpu"]["p50_ms"], 3
    )
    out["steps_cumulative_cpu_ms_per_turn"] = steps
    out["steps_p50_ms"] = {
        kind: {
            name: {
                "wall": round(statistics.median(w for w, _ in samples) * 1000, 3),
                "thread_cpu": round(statistics.median(c for _, c in samples) * 1000, 3),
            }
            for name, samples in step_samples.get(kind, {}).items()
        }
        for kind in kinds
    }
    out["grown_own_cpu_ms_per_turn"] = [
        {"function": where, "added_ms": round(added * 1000, 3), "what_if_ms": round(s * 1000, 3),
         "calls_total": calls}
        for added, where, s, calls in grown
    ]  # fmt: skip
    return out


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, help="a seeded (or empty) data folder")
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--examples", type=Path, action="append", default=[],
        help="a further examples file scored in totals only (right/wrong/cannot tell)",
    )  # fmt: skip
    parser.add_argument("--chat-turns", type=int, default=0, help="what-if vs plain turn pairs")
    parser.add_argument(
        "--profile-turns", type=int, default=0, help="pairs profiled in-process (cProfile)"
    )
    args = parser.parse_args()
    seeds = SeedFiles()
    report: dict[str, Any] = {
        "seed_files": {
            "examples": await examples_table(seeds),
            "timing": await measure(seeds, args.rounds),
        }
    }
    for path in args.examples:
        report["seed_files"][f"totals:{path.name}"] = await totals_table(seeds, path)
    if args.data_dir is not None:
        report["ladybug"] = await _graph_figures(args.data_dir, args.rounds)
        if args.chat_turns:
            report["chat"] = await chat_figures(args.data_dir, args.chat_turns)
        if args.profile_turns:
            report["profile"] = await profile_figures(args.data_dir, args.profile_turns)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
