"""Quotas across API workers with Redis (issue 27, ADR 0050 addendum): two ``UsageTurns`` (two
workers) over one conversation store (SQLite, and PostgreSQL as the app role) and one real
redis-server. What one worker records, the other refuses on, answered by Redis (the ledger is
not read again); a counter that fails or is gone falls back to the store, which still refuses;
a store and a counter both down: the configured open or closed."""

import asyncio
from datetime import UTC, datetime
from typing import Any, cast

import pytest

from api.usage import PriceTable, Quotas, UsageTurns
from conversations.models import UsageEntry
from conversations.port import UsageLedger
from engine.turn import TurnEngine, TurnRequest
from errors import ConversationStoreUnavailable, QuotaExceeded, QuotaUnavailable
from infra.quota_counter import RedisQuotaCounter
from infra.redis_client import connect_redis

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

PRICES = PriceTable({"openai/gpt-4o-mini": (1.0, 2.0)})
QUOTAS: Quotas = {"acme": {"tokens": 2000}}
ASK = TurnRequest(tenant_id="acme", user_id="alice", message="What is VAT?")


class Engine:
    """The wrapped engine: counts the turns prepared (a refused one never is) and stores the
    refused question's status."""

    def __init__(self) -> None:
        self.prepared = 0
        self.refused: list[str] = []

    async def prepare(self, request: TurnRequest) -> Any:
        self.prepared += 1
        return type("Prepared", (), {"answer_id": f"a{self.prepared}"})()

    async def store_refused(self, request: TurnRequest, status: str) -> str:
        self.refused.append(status)
        return "c1"


class CountingLedger:
    """The store's ledger, its quota reads counted (or failing when ``down``)."""

    def __init__(self, ledger: UsageLedger) -> None:
        self._ledger = ledger
        self.reads = 0
        self.down = False

    async def record_usage(self, tenant_id, user_id, entry):
        await self._ledger.record_usage(tenant_id, user_id, entry)

    async def usage_by_model(self, tenant_id, since, *, user_id=None):
        self.reads += 1
        if self.down:
            raise ConversationStoreUnavailable("connection refused")
        return await self._ledger.usage_by_model(tenant_id, since, user_id=user_id)


def worker(ledger, counter, when_down="open") -> tuple[UsageTurns, Engine]:
    engine = Engine()
    turns = UsageTurns(
        cast(TurnEngine, engine),
        cast(UsageLedger, ledger),
        PRICES,
        QUOTAS,
        when_store_down=when_down,
        counter=counter,
    )
    return turns, engine


@pytest.fixture
async def store(conversation_backend):
    store = conversation_backend.open()
    await store.init()
    yield store
    await store.aclose()


@pytest.fixture
async def redis(redis_server):
    client = connect_redis(redis_server.url(), timeout_s=0.5)
    yield client
    await client.aclose()


async def test_what_one_worker_records_the_other_refuses_on_from_redis(store, redis, redis_prefix):
    ledger = CountingLedger(store)
    a, a_engine = worker(ledger, RedisQuotaCounter(redis, redis_prefix))
    b, b_engine = worker(ledger, RedisQuotaCounter(redis, redis_prefix))
    await a.prepare(ASK)  # seeds the month's copy from the store: 0
    await b.prepare(ASK)  # from Redis
    assert ledger.reads == 1
    await a.record_call("acme", "alice", "openai", "gpt-4o-mini", 1200, 300)  # 1,500
    await b.prepare(ASK)
    await b.record_call("acme", "bob", "openai", "gpt-4o-mini", 400, 100)  # 2,000: at the quota
    for turns, engine in ((a, a_engine), (b, b_engine)):
        with pytest.raises(QuotaExceeded):
            await turns.prepare(ASK)
        assert engine.refused == ["quota_exceeded"]
    assert ledger.reads == 1  # every check after the first: Redis
    month = datetime.now(UTC).date().replace(day=1)
    counter = RedisQuotaCounter(redis, redis_prefix)
    # 1,200 + 2 x 300 + 400 + 2 x 100 = 2,400 micros of cost
    assert await counter.totals("acme", month) == (2000, 2400)
    assert 0 < await redis.ttl(counter.key("acme", month)) <= 300
    # the copy agrees with the store's own totals
    used = await store.usage_by_model("acme", month)
    assert sum(u.input_tokens + u.output_tokens for u in used) == 2000
    # a tenant without a quota is neither counted nor read
    await a.record_call("globex", "gina", "openai", "gpt-4o-mini", 10, 0)
    assert await counter.totals("globex", month) is None


async def test_a_copy_gone_or_a_counter_down_falls_back_to_the_store(store, redis, redis_prefix):
    ledger = CountingLedger(store)
    a, _ = worker(ledger, RedisQuotaCounter(redis, redis_prefix))
    await a.prepare(ASK)
    await a.record_call("acme", "alice", "openai", "gpt-4o-mini", 1800, 200)
    month = datetime.now(UTC).date().replace(day=1)
    await redis.delete(RedisQuotaCounter(redis, redis_prefix).key("acme", month))  # expired
    b, _ = worker(ledger, RedisQuotaCounter(redis, redis_prefix))
    with pytest.raises(QuotaExceeded):  # seeded again from the store: 2,000
        await b.prepare(ASK)
    assert ledger.reads == 2

    gone = connect_redis("redis://127.0.0.1:1/0", timeout_s=0.2)  # nothing listens there
    try:
        c, _ = worker(ledger, RedisQuotaCounter(gone, redis_prefix))
        with pytest.raises(QuotaExceeded):  # the store still says so
            await c.prepare(ASK)
        assert c.counter_unavailable == 2 and ledger.reads == 3  # read, then seed failed
        await c.record_call("acme", "alice", "openai", "gpt-4o-mini", 1, 0)  # recorded anyway
        assert c.counter_unavailable == 3

        ledger.down = True  # the store down too: the configured mode
        open_, open_engine = worker(ledger, RedisQuotaCounter(gone, redis_prefix), "open")
        await open_.prepare(ASK)
        assert open_engine.prepared == 1 and open_.unchecked == 1
        closed, closed_engine = worker(ledger, RedisQuotaCounter(gone, redis_prefix), "closed")
        with pytest.raises(QuotaUnavailable):
            await closed.prepare(ASK)
        assert closed_engine.prepared == 0
    finally:
        await gone.aclose()


class PausingLedger(CountingLedger):
    """A ledger whose next quota read waits, once it has read, until ``resume`` is set: the
    moment between a worker's ledger read and its seed (the "fill race", ADR 0050 session 8)."""

    def __init__(self, ledger: UsageLedger) -> None:
        super().__init__(ledger)
        self.read_done = asyncio.Event()
        self.resume = asyncio.Event()
        self.pause = True

    async def usage_by_model(self, tenant_id, since, *, user_id=None):
        used = await super().usage_by_model(tenant_id, since, user_id=user_id)
        if self.pause:
            self.pause = False
            self.read_done.set()
            await self.resume.wait()
        return used


async def _ledger_tokens(store, month) -> int:
    return sum(u.input_tokens + u.output_tokens for u in await store.usage_by_model("acme", month))


async def test_a_call_recorded_while_another_worker_fills_the_copy_is_counted(
    store, redis, redis_prefix
):
    """Worker a finds no copy and reads the ledger; worker b records a call before a seeds.
    The copy must hold b's call (before session 8 it held only what a read)."""
    month = datetime.now(UTC).date().replace(day=1)
    await store.record_usage("acme", "alice", _entry(1000))  # this month so far: 1,000
    ledger = PausingLedger(store)
    a, a_engine = worker(ledger, RedisQuotaCounter(redis, redis_prefix))
    b, _ = worker(CountingLedger(store), RedisQuotaCounter(redis, redis_prefix))
    checking = asyncio.create_task(a.prepare(ASK))
    await asyncio.wait_for(ledger.read_done.wait(), 30)  # a read 1,000, not seeded yet
    await b.record_call("acme", "bob", "openai", "gpt-4o-mini", 900, 100)  # 2,000: the quota
    ledger.resume.set()
    with pytest.raises(QuotaExceeded):  # a's seed returns the copy with b's call: 2,000
        await asyncio.wait_for(checking, 30)
    assert a_engine.prepared == 0 and a_engine.refused == ["quota_exceeded"]
    counter = RedisQuotaCounter(redis, redis_prefix)
    assert await counter.totals("acme", month) == (2000, 1000 + 900 + 200)
    assert await _ledger_tokens(store, month) == 2000
    with pytest.raises(QuotaExceeded):  # from the copy: the ledger is not read again
        await a.prepare(ASK)
    assert ledger.reads == 1 and a_engine.prepared == 0
    assert await redis.exists(counter.fill_key("acme", month)) == 0  # the fill is gone


async def test_two_workers_recording_at_once_while_the_copy_expires_never_undercount(
    store, redis, redis_prefix
):
    """Two workers check and record 60 calls at once while the copy is dropped (expired) again
    and again: the copy never falls behind the ledger, and a copy seeded when all is quiet
    equals it."""
    month = datetime.now(UTC).date().replace(day=1)
    counter = RedisQuotaCounter(redis, redis_prefix)
    quotas: Quotas = {"acme": {"tokens": 10**9}}
    workers = [
        UsageTurns(
            cast(TurnEngine, Engine()),
            cast(UsageLedger, store),
            PRICES,
            quotas,
            counter=RedisQuotaCounter(redis, redis_prefix),
        )
        for _ in range(2)
    ]

    async def turn(n: int) -> None:
        turns = workers[n % 2]
        await turns.prepare(ASK)
        await turns.record_call("acme", f"u{n % 5}", "openai", "gpt-4o-mini", 10 + n, 1)

    async def expire() -> None:
        for _ in range(15):
            await redis.delete(counter.key("acme", month))
            await asyncio.sleep(0)

    await asyncio.wait_for(asyncio.gather(*(turn(n) for n in range(60)), expire()), timeout=120)
    await workers[0].prepare(ASK)  # a copy exists again (seeded if the last drop removed it)
    held = await counter.totals("acme", month)
    ledger = await _ledger_tokens(store, month)
    assert ledger == sum(11 + n for n in range(60))
    assert held is not None and held[0] >= ledger
    await redis.delete(counter.key("acme", month))
    await workers[1].prepare(ASK)  # seeded when quiet: exactly the ledger
    assert (await counter.totals("acme", month) or (0, 0))[0] == ledger


def _entry(tokens: int) -> UsageEntry:
    return UsageEntry(
        day=datetime.now(UTC).date(),
        provider="openai",
        model="gpt-4o-mini",
        input_tokens=tokens,
        output_tokens=0,
        cost_micros=tokens,
    )
