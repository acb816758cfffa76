"""Turn overhead on PostgreSQL + Redis + Bolt against the embedded defaults, side by side in one
run (issue 11, Measure; ADR 0037).

Starts everything itself, on free loopback ports: a throwaway PostgreSQL cluster (``initdb``),
``redis-server`` and the ArcadeDB Bolt server (the test harness's helpers in
``tests/support/``), the paced stand-in model of ``turn_overhead_bench.py`` (first token after
300 ms, then 40 tokens/s; every answer with a ``capture_concepts`` call) and two workers
(``regintel serve``, the OpenAI Responses provider):

- ``embedded``: the defaults, SQLite + Ladybug + in-process bus, rate limits and job queue;
- ``servers``: PostgreSQL (row-level security, the app role) + Redis (bus, rate limits, job
  queue) + Bolt (``neo4j`` dialect), the settings of ``tests/e2e/test_two_workers.py``.

Both graphs hold the same seed data (the full seed set, as ``turn_overhead_bench.py`` seeds
Ladybug). Rate limits are on in both (limits too high to refuse), so every turn checks its
buckets: in process or in Redis.

At each ``--concurrency`` level, ``--turns`` turns per configuration in two rounds
(``SDK, embedded, servers`` then ``servers, embedded, SDK``: each sees the machine's load in
both halves), after a few warm-up turns. Prints time to first token p50/p99, the added time
against the ``openai`` SDK calling the stand-in directly at the same concurrency, the
worker's CPU per turn (``/proc``) and, for ``servers``, the CPU per turn of the PostgreSQL
(postmaster and backends), Redis and ArcadeDB processes and the PostgreSQL transactions per
turn (``pg_stat_database``). CPU figures are net of each process's
idle rate (measured for a few seconds with no turn running: catch-up queries, the JVM) times
the round's duration; the load average is printed at each level.

    .venv/bin/python bench/topology_bench.py --concurrency 1 20 --turns 40
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import turn_overhead_bench as overhead  # noqa: E402
from bench.turn_overhead_bench import Worker, pct  # noqa: E402

WARM_UP_TURNS = 10  # per worker: pools, caches, the graph's first reads, ArcadeDB's JIT
STATS_DELAY = 11.0  # seconds: an idle backend publishes its statistics within 10
IDLE_SECONDS = 5.0  # CPU measured with no turn running, per second, subtracted from per-turn
LIMITS = {  # on, and too high to refuse: every turn still checks its buckets
    "REGINTEL_RATE_LIMIT_TENANT_PER_MINUTE": "1000000",
    "REGINTEL_RATE_LIMIT_USER_PER_MINUTE": "1000000",
}


def cpu_of(pid: int, children: bool = False) -> float:
    """CPU seconds of ``pid`` (and of its exited children, reaped: ``cutime``/``cstime``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def process_tree_cpu(root: int) -> float:
    """CPU seconds of ``root``, its living children (PostgreSQL's backends) and the reaped."""
    total = cpu_of(root, children=True)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError):
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(stat[1]) == root:
                total += cpu_of(int(entry.name), children=True)
    return total


STORES = ("postgres", "redis", "bolt")


@dataclass
class Servers:
    env: dict[str, str]  # the ``servers`` worker's settings
    pids: dict[str, int]  # the PostgreSQL postmaster, redis-server, ArcadeDB's JVM
    new_database: Callable[[str], str] | None = None  # CREATE DATABASE name: its DSN

    def transactions(self) -> int:
        """Transactions the conversation database has seen (each read adds one: itself).

        An idle PostgreSQL backend publishes its counts within 10 s (``PGSTAT_IDLE_INTERVAL``).
        """
        import psycopg

        with psycopg.connect(self.env["REGINTEL_POSTGRES_DSN"], autocommit=True) as conn:
            row = conn.execute(
                "SELECT xact_commit + xact_rollback FROM pg_stat_database"
                " WHERE datname = current_database()"
            ).fetchone()
        assert row is not None
        return int(row[0])

    def cpu(self) -> dict[str, float]:
        """CPU seconds of each server (PostgreSQL: the postmaster and its backends)."""
        return {
            "postgres": process_tree_cpu(self.pids["postgres"]),
            "redis": cpu_of(self.pids["redis"]),
            "bolt": cpu_of(self.pids["bolt"]),
        }


@contextlib.contextmanager
def running_servers() -> Iterator[Servers]:
    from tests.support.arcadedb import running_arcadedb
    from tests.support.postgres import running_postgres
    from tests.support.redis import running_redis

    with contextlib.ExitStack() as stack:
        began = time.monotonic()
        postgres = stack.enter_context(running_postgres())
        redis = stack.enter_context(running_redis())
        graph = stack.enter_context(running_arcadedb())
        print(f"servers started in {time.monotonic() - began:.1f} s")
        env = {
            "REGINTEL_GRAPH_BACKEND": "bolt",
            "REGINTEL_BOLT_URI": graph.bolt_uri,
            "REGINTEL_BOLT_USER": graph.user,
            "REGINTEL_BOLT_PASSWORD": graph.password,
            "REGINTEL_BOLT_DATABASE": graph.database,
            "REGINTEL_BOLT_DIALECT": "neo4j",
            "REGINTEL_CONVERSATION_STORE": "postgres",
            "REGINTEL_POSTGRES_DSN": postgres.create_database(f"b_{uuid.uuid4().hex[:12]}"),
            "REGINTEL_REDIS_URL": redis.url(),
            "REGINTEL_REDIS_PREFIX": f"b{uuid.uuid4().hex[:8]}",
        }
        postmaster = int((postgres.root / "data" / "postmaster.pid").read_text().split()[0])
        assert redis.process is not None
        pids = {"postgres": postmaster, "redis": redis.process.pid, "bolt": graph.pid}
        yield Servers(env, pids, postgres.create_database)


def seed_bolt(env: dict[str, str], data: Path) -> None:
    """The full seed set into the Bolt graph, as ``turn_overhead_bench.seed`` does for Ladybug
    (in its own process: the load generator keeps no driver)."""
    code = (
        "import asyncio\n"
        "from api.bootstrap import open_graph\n"
        "from api.settings import Settings\n"
        "from engine.seeding import seed_graph\n"
        "async def run():\n"
        "    async with open_graph(Settings(log_json=False)) as handle:\n"
        "        await seed_graph(handle.graph, handle.writer)\n"
        "asyncio.run(run())\n"
    )
    full = {**os.environ, "PYTHONPATH": str(ROOT), "REGINTEL_LOG_LEVEL": "WARNING",
            "REGINTEL_DATA_DIR": str(data), **env}  # fmt: skip
    began = time.monotonic()
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full, check=True)
    print(f"Bolt graph seeded in {time.monotonic() - began:.1f} s")


@dataclass
class Level:
    """What one configuration measured at one concurrency (both rounds)."""

    first: list[float] = field(default_factory=list)
    turns: int = 0
    errors: int = 0
    refused: int = 0
    worker_cpu: float = 0.0  # CPU seconds beyond the idle rate
    transactions: int = 0  # PostgreSQL's
    stores_cpu: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STORES, 0.0))


@dataclass
class Idle:
    """CPU seconds per second with no turn running (catch-up queries, the JVM, heartbeats)."""

    workers: dict[str, float]
    stores: dict[str, float]


def idle_rates(workers: list[Worker], servers: Servers) -> Idle:
    before, stores_before = {w.name: w.cpu_seconds() for w in workers}, servers.cpu()
    time.sleep(IDLE_SECONDS)
    stores_after = servers.cpu()
    return Idle(
        {w.name: (w.cpu_seconds() - before[w.name]) / IDLE_SECONDS for w in workers},
        {k: (stores_after[k] - stores_before[k]) / IDLE_SECONDS for k in STORES},
    )


def measure(
    worker: Worker, concurrency: int, turns: int, servers: Servers | None, idle: Idle, out: Level
) -> None:
    """One round into ``out``: samples, and the worker's and stores' CPU beyond idle."""
    worker_before = worker.cpu_seconds()
    transactions_before = servers.transactions() if servers else 0
    stores_before = servers.cpu() if servers else {}
    began = time.monotonic()
    samples = asyncio.run(overhead.engine_conversations(worker.base, concurrency, turns))
    took = time.monotonic() - began
    out.worker_cpu += worker.cpu_seconds() - worker_before - idle.workers[worker.name] * took
    if servers is not None:
        stores_after = servers.cpu()
        for k in STORES:
            out.stores_cpu[k] += stores_after[k] - stores_before[k] - idle.stores[k] * took
        time.sleep(STATS_DELAY)  # the backends publish their counts
        out.transactions += servers.transactions() - transactions_before - 1
    out.first += samples.first
    out.turns += samples.turns
    out.errors += samples.errors
    out.refused += len(samples.refused)


def direct(standin: str, concurrency: int, turns: int) -> list[float]:
    return asyncio.run(overhead.direct_conversations(standin, concurrency, turns)).first


def phase(args: argparse.Namespace, standin: str, workers: list[Worker], servers: Servers) -> None:
    print(f"\n## time to first token, ms, and CPU per turn ({overhead.load()})")
    for worker in workers:
        asyncio.run(overhead.engine_conversations(worker.base, 2, WARM_UP_TURNS // 2))
    direct(standin, 2, 2)  # the SDK builds its response types on first use
    idle = idle_rates(workers, servers)
    rates = ", ".join(f"{name} {rate * 1000:.1f}" for name, rate in idle.workers.items())
    stores = ", ".join(f"{k} {rate * 1000:.1f}" for k, rate in idle.stores.items())
    print(f"idle CPU, ms/s (subtracted below): workers {rates}; stores {stores}")
    print(
        f"{'':<26} {'turns':>5} {'p50':>7} {'p99':>7} {'+p50':>7} {'+p99':>7} {'errors':>6} "
        f"{'refused':>7} {'worker CPU':>10} {'stores CPU':>10}  {'pg / redis / bolt':<19} "
        f"{'pg xacts':>8}"
    )
    for concurrency in args.concurrency:
        per_round = max(1, args.turns // concurrency // 2)  # turns per conversation per round
        baseline: list[float] = []
        levels = {w.name: Level() for w in workers}
        for round_ in range(2):  # SDK, workers ... then workers reversed, SDK
            if round_ == 0:
                baseline += direct(standin, concurrency, per_round)
            for worker in workers if round_ == 0 else list(reversed(workers)):
                on_servers = servers if worker.name != "embedded" else None
                measure(worker, concurrency, per_round, on_servers, idle, levels[worker.name])
            if round_ == 1:
                baseline += direct(standin, concurrency, per_round)
        b50, b99 = pct(baseline, 0.5), pct(baseline, 0.99)
        print(f"# {overhead.load()}")
        print(
            f"{f'SDK direct, {concurrency} conc.':<26} {len(baseline):>5} {b50:>7.1f} {b99:>7.1f}"
        )
        for worker in workers:
            level = levels[worker.name]
            p50, p99 = pct(level.first, 0.5), pct(level.first, 0.99)
            turns = max(1, level.turns)
            per_store = [level.stores_cpu[k] / turns * 1000 for k in STORES]
            stores_cpu = f"{'-':>10}"
            if worker.name != "embedded":
                split = " / ".join(f"{v:.2f}" for v in per_store)
                stores_cpu = (
                    f"{sum(per_store):>10.2f}  {split:<19} {level.transactions / turns:>8.1f}"
                )
            print(
                f"{f'{worker.name}, {concurrency} conc.':<26} {len(level.first):>5} {p50:>7.1f} "
                f"{p99:>7.1f} {p50 - b50:>7.1f} {p99 - b99:>7.1f} {level.errors:>6} "
                f"{level.refused:>7} {level.worker_cpu / turns * 1000:>10.2f} {stores_cpu}"
            )
    print(
        "CPU: ms per turn, net of idle (clock ticks of 10 ms: the split is ±1-2 ms); stores: "
        "PostgreSQL + Redis + ArcadeDB; pg xacts: PostgreSQL transactions per turn"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 20])
    parser.add_argument("--turns", type=int, default=40, help="turns per configuration and level")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="NAME:VAR=VALUE: a further worker on the servers with one more setting "
        "(repeatable; e.g. servers-pool20:REGINTEL_POSTGRES_POOL_MAX=20)",
    )
    parser.add_argument("--first-token-ms", type=float, default=300.0)
    parser.add_argument("--tokens-per-second", type=float, default=40.0)
    args = parser.parse_args()
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    print(
        f"stand-in: first token {args.first_token_ms:g} ms, {args.tokens_per_second:g} tok/s; "
        f"{overhead.load()}"
    )
    with (
        tempfile.TemporaryDirectory() as tmp,
        overhead.standin_process(args) as standin,
        running_servers() as servers,
        contextlib.ExitStack() as stack,
    ):
        template = Path(tmp) / "seeded"
        began = time.monotonic()
        overhead.seed(template, str(ROOT))
        print(f"Ladybug graph seeded in {time.monotonic() - began:.1f} s")
        seed_bolt(servers.env, Path(tmp) / "seed-bolt")
        workers = []
        variants: dict[str, dict[str, str]] = {}
        for spec in args.variant:
            name, setting = spec.split(":", 1)
            var, value = setting.split("=", 1)
            variants.setdefault(name, dict(servers.env))[var] = value
        for name, env in [("embedded", {}), ("servers", servers.env), *variants.items()]:
            data = Path(tmp) / f"data-{name}"
            if name == "embedded":
                shutil.copytree(template, data)
            else:
                data.mkdir()
            worker = overhead.worker_process(name, ROOT, data, standin, {**LIMITS, **env})
            workers.append(stack.enter_context(worker))
        print(f"workers: {json.dumps({w.name: w.pid for w in workers})}")
        phase(args, standin, workers, servers)


if __name__ == "__main__":
    main()
