"""Server CPU per turn, unpaced, and where it goes, step by step (issue 29, ADR 0072 addenda).

The pieces of ``bench/turn_overhead_bench.py``: the stamping stand-in **unpaced** (first token
at once, tokens as fast as the loop goes: a 5-token answer, then ``capture_concepts``), one
``regintel serve`` worker per ``--tree`` (the seeded graph, SQLite, the OpenAI Responses
provider), 10 conversations running turns back to back, **every question unique** (each turn
embeds its question, as real users' turns do). Per round and tree: the worker's own CPU time
(``/proc/<pid>/stat``: user + system, which other processes' load inflates far less than wall
time) divided by the turns. The trees alternate within each round.

``--top N`` (with ``--profile``): each tree's N innermost frames with the most busy samples
(self time), for what a step table's rows are made of.

``--profile``: in the last round, ``py-spy record --threads`` on each worker, and a table of the
turn's steps — each busy sample counted once, in the first step (top to bottom) whose frames it
holds; shares of the samples times that round's CPU per turn give milliseconds. On a loaded
machine runnable samples count too: the shares are estimates, the CPU per turn the measurement.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/turn_overhead_profile.py \\
        --tree before=/tmp/before --tree after=. --turns 100 --rounds 3 --profile
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench.turn_overhead_bench as overhead

STEPS: list[tuple[str, tuple[str, ...]]] = [
    ("query embedding", ("LocalModelEmbedder._forward", "LocalModelEmbedder.embed")),
    ("rules_titled (designators, acronyms)", ("EvidenceIndex.rules_titled",)),
    ("texts_saying (coverage)", ("EvidenceIndex.texts_saying",)),
    ("coverage check, rest", ("TurnPreparer._uncovered",)),
    ("computed dates", ("TurnPreparer._computed_dates",)),
    ("retrieval rest (lexical, dense scores, fusion, quotes)", ("TurnPreparer.find_evidence (",)),
    ("PII scan (egress)", ("sanitise_message", "presidio")),
    (
        "conversation store (load, question, final save)",
        ("conversations/sqlite.py", "load_turn", "store_question", "TurnWrites.finish"),
    ),
    ("capture (resolution, graph writes)", ("engine/turn/capture.py", "ladybug/", "GraphSync")),
    ("model stream: SDK + aiohttp", ("openai/", "aiohttp/", "egress/client.py")),
    ("SSE send path (uvicorn write, ASGI wrappers)", ("_send_with_timeout", "Cycle.send (")),
    ("engine stream, SSE encoding, rest of prepare", ("sse_frames (", "TurnPreparer.prepare (")),
    (
        "HTTP request handling (uvicorn, middleware)",
        ("httptools_impl", "ChatAdmission", "fastapi/"),
    ),
]
IDLE = ("_worker (", "Condition.wait", "Runner.run (", "select (", "Event.wait")


def busy_samples(raw: Path) -> list[tuple[list[str], int]]:
    """The stacks (outermost frame first) and sample counts of a ``py-spy --format raw`` file,
    idle threads left out."""
    out = []
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        frames = stack.split(";")
        if not any(frames[-1].startswith(idle) for idle in IDLE):
            out.append((frames, int(n)))
    return out


def steps(raw: Path) -> dict[str, float]:
    """Each step's share of the busy samples of a ``py-spy --format raw`` file."""
    busy, counts = 0, collections.Counter[str]()
    for frames, n in busy_samples(raw):
        busy += n
        name = next(
            (step for step, marks in STEPS if any(m in f for f in frames for m in marks)), "other"
        )
        counts[name] += n
    return {step: counts[step] / max(1, busy) for step, _ in [*STEPS, ("other", ())]}


def leaves(raw: Path, top: int) -> list[tuple[str, float]]:
    """The ``top`` innermost frames by their share of the busy samples (self time)."""
    samples = busy_samples(raw)
    busy = sum(n for _, n in samples)
    counts = collections.Counter[str]()
    for frames, n in samples:
        counts[frames[-1]] += n
    return [(frame, n / max(1, busy)) for frame, n in counts.most_common(top)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tree", action="append", required=True, help="NAME=DIR (repeatable)")
    parser.add_argument("--turns", type=int, default=100, help="turns per round and tree")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="py-spy in the last round")
    parser.add_argument("--top", type=int, default=0, help="with --profile: the N hottest frames")
    args = parser.parse_args()
    overhead.UNIQUE = True
    pacing = argparse.Namespace(first_token_ms=0.0, tokens_per_second=0.0)  # unpaced
    trees = [t.split("=", 1) for t in args.tree]
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    with tempfile.TemporaryDirectory() as tmp, overhead.standin_process(pacing) as standin:
        template = Path(tmp) / "seeded"
        overhead.seed(template, trees[0][1])
        with overhead._workers(trees, template, Path(tmp), standin, []) as workers:
            for worker in workers:
                asyncio.run(overhead.engine_conversations(worker.base, 10, 2))  # warm up
            last: dict[str, float] = {}
            for n in range(args.rounds):
                for worker in workers:
                    recorder = None
                    raw = Path(tmp) / f"{worker.name}.txt"
                    if args.profile and n == args.rounds - 1:
                        command = [spy, "record", "-r", "200", "--threads", "--pid",
                                   str(worker.pid), "-f", "raw", "-o", str(raw)]  # fmt: skip
                        recorder = subprocess.Popen(
                            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                        )
                        time.sleep(1.0)
                    cpu = worker.cpu_seconds()
                    turns = args.turns // 10 * 10
                    out = asyncio.run(overhead.engine_conversations(worker.base, 10, turns // 10))
                    ms = (worker.cpu_seconds() - cpu) / turns * 1000
                    last[worker.name] = ms
                    print(f"round {n} {worker.name}: {ms:.1f} ms CPU per turn, {out.errors} "
                          f"errors ({overhead.load()})", flush=True)  # fmt: skip
                    if recorder is not None:
                        recorder.send_signal(signal.SIGINT)
                        recorder.wait(timeout=120)
            if args.profile:
                shares = {w.name: steps(Path(tmp) / f"{w.name}.txt") for w in workers}
                names = [w.name for w in workers]
                print("\n| step | " + " | ".join(f"{n} share | {n} ms" for n in names) + " |")
                print("|---|" + "---|---|" * len(names))
                for step in [s for s, _ in STEPS] + ["other"]:
                    cells = " | ".join(
                        f"{shares[n][step] * 100:.1f}% | {shares[n][step] * last[n]:.1f}"
                        for n in names
                    )
                    print(f"| {step} | {cells} |")
                print("| total (CPU per turn, last round) | "
                      + " | ".join(f"100% | {last[n]:.1f}" for n in names) + " |")  # fmt: skip
                for n in names if args.top else []:
                    print(f"\n{n}: the {args.top} hottest frames (self time)")
                    for frame, share in leaves(Path(tmp) / f"{n}.txt", args.top):
                        print(f"{share * 100:5.1f}%  {share * last[n]:5.2f} ms  {frame}")


if __name__ == "__main__":
    main()
