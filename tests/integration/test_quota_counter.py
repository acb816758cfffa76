"""Quotas across API workers with Redis (issue 27, ADR 0050 addendum): two ``UsageTurns`` (two
workers) over one conversation store (SQLite, and PostgreSQL as the app role) and one real
redis-server. What one worker records, the other refuses on, answered by Redis (the ledger is
not read again); a counter that fails or is gone falls back to the store, which still refuses;
a store and a counter both down: the configured open or closed."""

from datetime import UTC, datetime
from typing import Any, cast

import pytest

from api.usage import PriceTable, Quotas, UsageTurns
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
