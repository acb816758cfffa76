"""Capacity of one worker, as an operator sees it: a paced stand-in model, N users who each
continue their conversation turn after turn and honour ``Retry-After`` when refused, and the
admission configurations side by side in one run (issue 29, ADR 0055).

The stand-in (``bench/turn_overhead_bench.py``'s, in its own process) answers every turn like
a real model: first token after ``--first-token-ms``, then ``--tokens-per-second``, ``--tokens``
tokens, then a ``capture_concepts`` call; each token carries the wall-clock time it left the
stand-in, so the users measure every chunk's delay to its arrival. Each configuration is a
fresh worker process (``regintel serve``, the OpenAI Responses provider, the seeded graph,
SQLite), driven by the same users (this process, ``RawClient``: one keep-alive connection
each) for ``--warmup`` + ``--seconds``; only the last ``--seconds`` are counted.

Per configuration: completed turns/s, concurrent streams (the worker's own
``regintel_turns_in_flight``, sampled each second, mean and max), chunk delay p50/p99 (stand-in
send -> user arrival), time to first token p50/p99 (from the request; the stand-in alone
takes ``--first-token-ms``), refused (503), errors, the worker's CPU in cores. For the adaptive
configuration, the series of its limit, in-flight turns, loop lag and chunk delay p99 (as
``/metrics`` shows them) once a second.

    .venv/bin/python bench/capacity_bench.py --users 400 --seconds 40

``--tree NAME=DIR`` (repeatable) serves each configuration from each code tree, side by side in
one run (a fresh worker each, the trees alternating); ``--unique-questions`` appends a random
reference to every question, so each turn embeds its question as real users' turns do;
``--burst N`` first sends N new conversations at once to each fresh worker (one turn each,
after the warm-up turns): the time to first token they see beyond the stand-in's own
``--first-token-ms`` (p50/p99) and how many were refused.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/capacity_bench.py --tree before=/tmp/before \
        --tree after=. --config "adaptive (default)" --burst 50 --users 200 --seconds 30 \
        --unique-questions
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import shutil
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import turn_overhead_bench as tob  # noqa: E402

# Every user of the bench comes from 127.0.0.1: the per-address caps (ADR 0030, third
# addendum) would count them as one client, as behind a reverse proxy: off, as there.
COMMON = {"REGINTEL_MAX_CONNECTIONS_PER_CLIENT": "0", "REGINTEL_CHAT_BODY_READS_PER_CLIENT": "4096",
          "REGINTEL_CHAT_BODY_READS_MAX": "4096"}  # fmt: skip
CONFIGS: dict[str, dict[str, str]] = {
    # the behaviour before ADR 0055: the static limit alone, Retry-After 1 s for everybody
    "static default (256)": {
        "REGINTEL_ADMISSION_ADAPTIVE": "false",
        "REGINTEL_OVERLOADED_RETRY_AFTER_MAX_SECONDS": "1",
    },
    "static 16": {
        "REGINTEL_ADMISSION_ADAPTIVE": "false",
        "REGINTEL_MAX_TURNS_IN_FLIGHT": "16",
        "REGINTEL_OVERLOADED_RETRY_AFTER_MAX_SECONDS": "1",
    },
    "adaptive (default)": {},
}


@dataclass
class Run:
    samples: tob.Samples = field(default_factory=tob.Samples)
    burst: tob.Samples | None = None
    series: list[dict[str, float]] = field(default_factory=list)
    cpu: float = 0.0
    seconds: float = 0.0


@contextmanager
def standin(args: argparse.Namespace) -> Iterator[str]:
    port = tob.free_port()
    command = [sys.executable, __file__, "--standin-port", str(port),
               "--first-token-ms", str(args.first_token_ms),
               "--tokens-per-second", str(args.tokens_per_second),
               "--tokens", str(args.tokens)]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    try:
        tob.wait_http(f"{base}/bench/stats", process)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


METRIC = re.compile(r'^(regintel_[a-z_]+)(?:\{quantile="([0-9.]+)"\})? ([0-9.e+-]+)$', re.M)


def scrape(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, quantile, value in METRIC.findall(text):
        out[f"{name}{'@' + quantile if quantile else ''}"] = float(value)
    return out


def suffix(args: argparse.Namespace) -> str:
    """A random reference with ``--unique-questions`` (each turn then embeds its question)."""
    if not args.unique_questions:
        return ""
    return f" (ref {''.join(random.choices(string.ascii_lowercase, k=6))})"


async def burst(worker: tob.Worker, args: argparse.Namespace) -> tob.Samples:
    """``args.burst`` new conversations at once, one turn each (a connection each)."""
    out = tob.Samples()
    clients = [tob.RawClient(worker.base) for _ in range(args.burst)]

    async def one(n: int, raw: tob.RawClient) -> None:
        question = tob.QUESTIONS[n % len(tob.QUESTIONS)]
        try:
            await raw.turn({"message": f"{question}{suffix(args)} STAMP"}, out, True)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            out.errors += 1
        await raw.aclose()

    await asyncio.gather(*(one(n, raw) for n, raw in enumerate(clients)))
    return out


async def drive(worker: tob.Worker, args: argparse.Namespace) -> Run:
    """``args.users`` users for warmup + seconds; the counted part in the returned run."""
    run = Run()
    out = run.samples
    stop = time.monotonic() + args.warmup + args.seconds

    async def user(n: int) -> None:
        await asyncio.sleep(n * args.arrival / max(1, args.users))  # users arrive over a span
        raw = tob.RawClient(worker.base)
        conversation: str | None = None
        turn = 0
        while time.monotonic() < stop:
            question = tob.QUESTIONS[(n + turn) % len(tob.QUESTIONS)]
            body: dict[str, Any] = {"message": f"{question}{suffix(args)} STAMP"}
            if conversation:
                body["conversationId"] = conversation
            try:
                conversation, retry_after = await raw.turn(body, out, True)
            except (OSError, asyncio.IncompleteReadError, ValueError):
                out.errors += 1
                retry_after = 1.0
            if retry_after:
                await asyncio.sleep(retry_after)  # as told: the server spreads the values
            turn += 1
        await raw.aclose()

    async def observe() -> None:
        async with httpx.AsyncClient(timeout=10) as http:
            await asyncio.sleep(args.warmup)
            out.first.clear(), out.delays.clear(), out.refused.clear()
            out.turns = out.errors = out.concepts_missing = 0
            cpu, start = worker.cpu_seconds(), time.monotonic()
            while time.monotonic() < stop:
                tick = time.monotonic()
                try:
                    figures = scrape((await http.get(f"{worker.base}/metrics")).text)
                except httpx.HTTPError:
                    figures = {}
                run.series.append({"t": tick - start, **figures})
                await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))
            run.cpu = worker.cpu_seconds() - cpu
            run.seconds = time.monotonic() - start

    await asyncio.gather(observe(), *(user(n) for n in range(args.users)))
    return run


def table(runs: dict[str, Run], args: argparse.Namespace) -> None:
    pct = tob.pct
    if args.burst:
        print(f"\n## a burst of {args.burst} new conversations at once, on a fresh worker")
        print(f"{'configuration':<34} {'added TTFT p50 / p99 ms':>24} {'refused':>8} {'errors':>6}")
        for name, run in runs.items():
            b = run.burst or tob.Samples()
            added = [t - args.first_token_ms / 1000 for t in b.first]  # seconds, as pct takes
            print(f"{name:<34} {f'{pct(added, 0.5):.0f} / {pct(added, 0.99):.0f}':>24} "
                  f"{len(b.refused):>8} {b.errors:>6}")  # fmt: skip
    print(f"\n## {args.users} users, {args.seconds:g} s counted after {args.warmup:g} s "
          f"({tob.load()})")  # fmt: skip
    print(f"{'configuration':<34} {'turns/s':>8} {'streams':>12} {'chunk delay':>15} "
          f"{'TTFT':>13} {'refused':>8} {'errors':>6} {'CPU':>6}")  # fmt: skip
    print(f"{'':<34} {'':>8} {'mean / max':>12} {'p50 / p99 ms':>15} {'p50 / p99 ms':>13} "
          f"{'':>8} {'':>6} {'cores':>6}")  # fmt: skip
    for name, run in runs.items():
        s = run.samples
        flight = [p.get("regintel_turns_in_flight", 0.0) for p in run.series]
        mean = sum(flight) / len(flight) if flight else float("nan")
        peak = max(flight) if flight else float("nan")
        print(f"{name:<34} {s.turns / run.seconds:>8.1f} {f'{mean:.0f} / {peak:.0f}':>12} "
              f"{f'{pct(s.delays, 0.5):.1f} / {pct(s.delays, 0.99):.1f}':>15} "
              f"{f'{pct(s.first, 0.5):.0f} / {pct(s.first, 0.99):.0f}':>13} "
              f"{len(s.refused):>8} {s.errors:>6} {run.cpu / run.seconds:>6.2f}")  # fmt: skip
    for name, run in runs.items():
        if not any("regintel_admission_limit" in p for p in run.series):
            continue
        print(f"\n### {name}: once a second, as /metrics shows it")
        print(f"{'t s':>5} {'limit':>6} {'in flight':>9} {'loop lag ms':>11} "
              f"{'chunk delay p99 ms':>18} {'refused':>8}")  # fmt: skip
        for p in run.series:
            print(f"{p['t']:>5.0f} {p.get('regintel_admission_limit', 0):>6.0f} "
                  f"{p.get('regintel_turns_in_flight', 0):>9.0f} "
                  f"{p.get('regintel_event_loop_lag_seconds', 0) * 1000:>11.1f} "
                  f"{p.get('regintel_chunk_delay_seconds@0.99', 0) * 1000:>18.1f} "
                  f"{p.get('regintel_admission_refused_total', 0):>8.0f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument(
        "--arrival", type=float, default=5.0, help="seconds over which users arrive"
    )
    parser.add_argument("--config", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--first-token-ms", type=float, default=300.0)
    parser.add_argument("--tokens-per-second", type=float, default=40.0)
    parser.add_argument("--tokens", type=int, default=120)
    parser.add_argument("--tree", action="append", help="NAME=DIR (repeatable; default: this one)")
    parser.add_argument("--unique-questions", action="store_true")
    parser.add_argument("--burst", type=int, default=0, help="new conversations sent at once")
    parser.add_argument("--standin-port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.standin_port:
        tob.LONG = args.tokens  # the stamped reply's length
        tob.run_standin(args.standin_port, args.first_token_ms, args.tokens_per_second)
        return
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    print(f"stand-in: first token {args.first_token_ms:g} ms, {args.tokens_per_second:g} tok/s, "
          f"{args.tokens} tokens, then a capture; {tob.load()}")  # fmt: skip
    runs: dict[str, Run] = {}
    with tempfile.TemporaryDirectory() as tmp, standin(args) as model:
        template = Path(tmp) / "seeded"
        tob.seed(template, str(ROOT))
        trees = [t.split("=", 1) for t in args.tree] if args.tree else [["", str(ROOT)]]
        for config in args.config:
            for tree, folder in trees:
                name = f"{tree}: {config}" if tree else config
                data = Path(tmp) / f"data-{len(runs)}"
                shutil.copytree(template, data)
                env = {**COMMON, **CONFIGS[config]}
                with tob.worker_process(
                    f"w{len(runs)}", Path(folder).resolve(), data, model, env
                ) as worker:
                    asyncio.run(tob.engine_conversations(worker.base, 2, 3))  # warm caches
                    bursts = asyncio.run(burst(worker, args)) if args.burst else None
                    runs[name] = asyncio.run(drive(worker, args))
                    runs[name].burst = bursts
                    print(f"{name}: {runs[name].samples.turns} turns counted", flush=True)
    table(runs, args)


if __name__ == "__main__":
    main()
