"""One worker against two (``regintel serve --workers 2``) on PostgreSQL + Redis + Bolt, side
by side in one run (issue 29, Measure: "with two workers ... the completed turns/s of one and
two workers side by side").

Starts everything itself on free loopback ports, as ``bench/topology_bench.py`` does: a
throwaway PostgreSQL cluster, ``redis-server``, the ArcadeDB Bolt server (seeded with the full
seed set), the paced stand-in model (first token after 300 ms, then 40 tokens/s) and one
``regintel serve`` per configuration: ``1 worker`` and ``2 workers`` (each with its own
PostgreSQL database and Redis prefix, the same graph). Each configuration's default admission
(adaptive, per worker process).

Each round runs ``--conversations`` conversations for ``--seconds`` against one configuration,
each conversation running turns back to back and honouring ``Retry-After`` when refused; the
configurations alternate (``1, 2, 2, 1, 1, 2, ...``) for ``--rounds`` rounds each, so both see
the machine's load in turn. Per round: completed turns/s, time to first token p50/p99, turns
refused (503), errors, and the CPU of the configuration's processes (the supervisor and its
worker processes) per completed turn. The load average is printed with every round: on a
shared machine the spread between rounds of the same configuration is the figure's error.

    .venv/bin/python bench/turn_overhead_workers_bench.py --conversations 100 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import topology_bench as topology  # noqa: E402
from bench import turn_overhead_bench as overhead  # noqa: E402
from bench.turn_overhead_bench import pct  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=2, help="rounds per configuration")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--unique-questions",
        action="store_true",
        help="every question unique, so every turn embeds it (as real users' turns do)",
    )
    parser.add_argument("--skip-seed", action="store_true", help=argparse.SUPPRESS)  # debugging
    parser.add_argument("--first-token-ms", type=float, default=300.0)
    parser.add_argument("--tokens-per-second", type=float, default=40.0)
    args = parser.parse_args()
    overhead.UNIQUE = args.unique_questions
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    print(
        f"stand-in: first token {args.first_token_ms:g} ms, {args.tokens_per_second:g} tok/s; "
        f"{args.conversations} conversations for {args.seconds:g} s a round; unique questions: "
        f"{args.unique_questions}; {overhead.load()}"
    )
    with (
        tempfile.TemporaryDirectory() as tmp,
        overhead.standin_process(args) as standin,
        topology.running_servers() as servers,
        contextlib.ExitStack() as stack,
    ):
        if not args.skip_seed:
            topology.seed_bolt(servers.env, Path(tmp) / "seed-bolt")
        configs = {}
        for n in args.workers:
            env = {
                **servers.env,
                **topology.LIMITS,
                "REGINTEL_REDIS_PREFIX": f"w{n}{uuid.uuid4().hex[:6]}",
                # a loaded machine's ArcadeDB reads the start-up snapshot in more than 15 s
                "REGINTEL_BOLT_TIMEOUT_SECONDS": "600",
                # every conversation comes from 127.0.0.1: per-address budgets would refuse
                # (429) what distinct users would not, and each worker process has its own
                "REGINTEL_CHAT_BODY_READS_PER_CLIENT": "1000",
                "REGINTEL_CHAT_BODY_READS_MAX": "1000",
                "REGINTEL_MAX_CONNECTIONS_PER_CLIENT": "0",
            }
            if n != args.workers[0] and servers.new_database is not None:  # its own database
                env["REGINTEL_POSTGRES_DSN"] = servers.new_database(f"w{n}_{uuid.uuid4().hex[:8]}")
            data = Path(tmp) / f"data-{n}"
            data.mkdir()
            name = f"{n} worker{'s' * (n > 1)}"
            serving = overhead.worker_process(
                name, ROOT, data, standin, env, ("--workers", str(n)), start_seconds=900
            )
            try:
                configs[name] = stack.enter_context(serving)
            except RuntimeError:
                print((Path(tmp) / f"{name}.log").read_text()[-3000:])
                raise
        print(f"configurations: {json.dumps({k: w.pid for k, w in configs.items()})}")
        for worker in configs.values():  # warm up every process: pools, caches, first reads
            asyncio.run(overhead.engine_conversations(worker.base, 8, 3))
        time.sleep(2)
        names = list(configs)
        order = []
        for r in range(args.rounds):
            order += names if r % 2 == 0 else list(reversed(names))
        head = f"{'round':<6} {'configuration':<12} {'turns/s':>8} {'ttft p50':>9} {'ttft p99':>9}"
        print(f"\n{head} {'refused':>8} {'errors':>6} {'CPU ms/turn':>11}  load")
        results: dict[str, list[float]] = {name: [] for name in names}
        for r, name in enumerate(order, 1):
            worker = configs[name]
            cpu = topology.process_tree_cpu(worker.pid)
            began = time.monotonic()
            s = asyncio.run(
                overhead.engine_conversations(
                    worker.base, args.conversations, 0, seconds=args.seconds
                )
            )
            took = time.monotonic() - began
            used = topology.process_tree_cpu(worker.pid) - cpu
            rate = s.turns / took
            results[name].append(rate)
            print(f"{r:<6} {name:<12} {rate:>8.1f} {pct(s.first, 0.5):>9.1f} "
                  f"{pct(s.first, 0.99):>9.1f} {len(s.refused):>8} {s.errors:>6} "
                  f"{used / max(1, s.turns) * 1000:>11.1f}  {overhead.load()}")  # fmt: skip
            time.sleep(2)  # the last streams' saves and captures settle
        print()
        for name, rates in results.items():
            print(f"{name}: completed turns/s {', '.join(f'{x:.1f}' for x in rates)} "
                  f"(spread {max(rates) - min(rates):.1f})")  # fmt: skip


if __name__ == "__main__":
    main()
