"""What the usage accounting adds to a turn (ADR 0050): the ledger's one upsert per turn, and
the quota check's aggregate read for a tenant with a quota, on SQLite and on PostgreSQL (a
throwaway cluster, as the tests start), in wall time and CPU per call and in statements.

    .venv/bin/python -m bench.usage_accounting_bench --turns 500

A turn without accounting makes neither call; these are the whole of its added work (the
pricing is two multiplications). With Redis (ADR 0050 session-6 addendum) the check is one
Lua call (``TOTALS_LUA``: the month's counted totals, or a fill opened; it was one ``HMGET``
before the session-8 addendum) and a record adds one Lua call after the upsert: measured
against a throwaway redis-server too.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conversations.models import UsageEntry
from conversations.postgres import APP_ROLE, PostgresConversationStore
from conversations.sqlite import SqliteConversationStore
from infra.quota_counter import RedisQuotaCounter
from infra.redis_client import connect_redis
from tests.support.postgres import running_postgres
from tests.support.redis import running_redis


async def measure(store: Any, turns: int) -> dict[str, float]:
    await store.init()
    try:
        day = datetime.now(UTC).date()
        entry = UsageEntry(day=day, provider="openai", model="gpt-4o-mini", input_tokens=1000,
                           output_tokens=200, cost_micros=270)  # fmt: skip
        users = [f"user-{n}" for n in range(20)]
        await store.record_usage("acme", users[0], entry)  # warm: connections, statements
        wall, cpu = time.perf_counter(), time.process_time()
        for n in range(turns):
            await store.record_usage("acme", users[n % len(users)], entry)
        record = ((time.perf_counter() - wall) / turns, (time.process_time() - cpu) / turns)
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(turns):
            await store.usage_by_model("acme", day.replace(day=1))
        check = ((time.perf_counter() - wall) / turns, (time.process_time() - cpu) / turns)
    finally:
        await store.aclose()
    return {
        "record_ms": record[0] * 1000,
        "record_cpu_ms": record[1] * 1000,
        "quota_check_ms": check[0] * 1000,
        "quota_check_cpu_ms": check[1] * 1000,
    }


async def measure_counter(url: str, turns: int) -> dict[str, float]:
    """The Redis counter's share: a check (``totals``) and a record's ``add``."""
    client = connect_redis(url)
    counter = RedisQuotaCounter(client, "bench")
    month = datetime.now(UTC).date().replace(day=1)
    try:
        await counter.seed("acme", month, 0, 0)  # warm: the connection, the scripts
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(turns):
            await counter.add("acme", month, 1200, 270)
        record = ((time.perf_counter() - wall) / turns, (time.process_time() - cpu) / turns)
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(turns):
            await counter.totals("acme", month)
        check = ((time.perf_counter() - wall) / turns, (time.process_time() - cpu) / turns)
    finally:
        await client.aclose()
    return {
        "record_ms": record[0] * 1000,
        "record_cpu_ms": record[1] * 1000,
        "quota_check_ms": check[0] * 1000,
        "quota_check_cpu_ms": check[1] * 1000,
    }


def show(name: str, figures: dict[str, float], statements: str) -> None:
    print(
        f"{name:10} record {figures['record_ms']:.3f} ms (CPU {figures['record_cpu_ms']:.3f}) | "
        f"quota check {figures['quota_check_ms']:.3f} ms "
        f"(CPU {figures['quota_check_cpu_ms']:.3f}) | {statements}"
    )


async def main(turns: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        sqlite = await measure(SqliteConversationStore(Path(folder) / "c.db"), turns)
    show("sqlite", sqlite, "each: BEGIN IMMEDIATE, 1 statement, COMMIT (on the loop)")
    with running_postgres() as cluster:
        dsn = cluster.create_database("usage_bench")
        postgres = await measure(PostgresConversationStore(dsn, app_role=APP_ROLE), turns)
    show("postgres", postgres, "each: 1 transaction: SET ROLE, claims, 1 statement")
    with running_redis() as redis:
        counted = await measure_counter(redis.url(), turns)
    show("redis", counted, "check: 1 EVALSHA; record: +1 EVALSHA after the store's upsert")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=500)
    asyncio.run(main(parser.parse_args().turns))
