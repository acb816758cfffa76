"""The Redis adapters against a real redis-server started by the harness: the graph event bus,
the shared token buckets (one Lua script) and the ingestion job queue on Streams."""

import asyncio

import pytest

from engine.ingestion import IngestionJob
from engine.ingestion.redis_queue import RedisIngestionQueue
from engine.ingestion.worker import ConceptEnricher, Enrichment, IngestionWorker, running_worker
from errors import RateLimited, RateLimiterUnavailable, StoreUnavailable
from graph.bus import GraphChange
from graph.bus_redis import RedisGraphBus
from graph.models import WriteOutcome, WriteResult
from infra.rate_limit import BucketLimits, RedisRateLimiter
from infra.redis_client import connect_redis

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def client(redis_server):
    redis = connect_redis(redis_server.url(), timeout_s=0.5)
    yield redis
    await redis.aclose()


async def test_a_change_published_by_one_worker_reaches_the_other_once(client, redis_prefix):
    a, b = RedisGraphBus(client, redis_prefix), RedisGraphBus(client, redis_prefix)
    got_a: list[GraphChange] = []
    got_b: list[GraphChange] = []
    arrived = asyncio.Event()

    async def on_a(change):
        got_a.append(change)

    async def on_b(change):
        got_b.append(change)
        arrived.set()

    a.subscribe(on_a)
    b.subscribe(on_b)
    await a.start()
    await b.start()
    change = GraphChange(
        origin=a.origin,
        timestamp="2030-01-01T00:00:00.000000Z",
        results=[WriteResult(outcome=WriteOutcome.CREATED, node_id="TAX:IE:VAT")],
    )
    await a.publish(change)
    async with asyncio.timeout(5):
        await arrived.wait()
    await asyncio.sleep(0.2)
    assert got_b == [change]
    assert got_a == []  # its own message is not news to it
    await a.aclose()
    await b.aclose()


async def test_the_bus_survives_redis_going_away_and_reports_the_gap(redis_server, redis_prefix):
    client = connect_redis(redis_server.url(), timeout_s=0.5)
    bus, gap = RedisGraphBus(client, redis_prefix), asyncio.Event()
    bus.subscribe(lambda change: asyncio.sleep(0), on_gap=gap.set)
    await bus.start()
    redis_server.stop()
    try:
        change = GraphChange(origin="x", timestamp="2030-01-01T00:00:00.000000Z")
        await bus.publish(change)  # does not raise
        assert bus.publish_failures == 1
    finally:
        redis_server.start()
    async with asyncio.timeout(10):
        await gap.wait()
    await bus.aclose()
    await client.aclose()


async def test_two_workers_share_one_bucket_and_refusals_say_when_to_retry(client, redis_prefix):
    limits = BucketLimits(tenant_per_minute=600, user_per_minute=60, burst_seconds=3)  # 3 tokens
    one, two = (RedisRateLimiter(client, redis_prefix, limits) for _ in range(2))
    await one.check("acme", "alice")
    await two.check("acme", "alice")
    await one.check("acme", "alice")
    with pytest.raises(RateLimited) as refused:
        await two.check("acme", "alice")
    assert refused.value.code == "rate_limited"
    assert refused.value.retry_after >= 1
    await one.check("acme", "bob")  # another user of the tenant still has his own bucket
    keys = sorted(k.decode() for k in await client.keys(f"{redis_prefix}:rl:*"))
    assert keys == [f"{redis_prefix}:rl:t:acme", f"{redis_prefix}:rl:u:acme:alice",
                    f"{redis_prefix}:rl:u:acme:bob"]  # fmt: skip


async def test_a_refusal_by_one_bucket_costs_the_other_nothing(client, redis_prefix):
    limits = BucketLimits(tenant_per_minute=60, user_per_minute=600, burst_seconds=2)  # tenant 2
    limiter = RedisRateLimiter(client, redis_prefix, limits)
    await limiter.check("globex", "carol")
    await limiter.check("globex", "carol")
    with pytest.raises(RateLimited):
        await limiter.check("globex", "carol")
    user = await client.hget(f"{redis_prefix}:rl:u:globex:carol", "tokens")
    assert float(user) == pytest.approx(18, abs=0.2)  # 20 - 2: the refused request took none


async def test_when_redis_is_down_the_limiter_fails_open_or_closed_as_configured(
    redis_server, redis_prefix
):
    client = connect_redis(redis_server.url(), timeout_s=0.5)
    skipped: list[int] = []
    open_ = RedisRateLimiter(
        client, redis_prefix, BucketLimits(), "open", lambda: skipped.append(1)
    )
    closed = RedisRateLimiter(client, redis_prefix, BucketLimits(), "closed")
    redis_server.stop()
    try:
        await open_.check("acme", "alice")  # passes
        with pytest.raises(RateLimiterUnavailable):
            await closed.check("acme", "alice")
    finally:
        redis_server.start()
    assert skipped == [1]
    await closed.check("acme", "alice")  # back to normal
    await client.aclose()


def queue(client, prefix, **kwargs):
    return RedisIngestionQueue(client, prefix, **kwargs)


async def test_jobs_are_deduplicated_claimed_and_acked(client, redis_prefix):
    jobs = queue(client, redis_prefix)
    assert await jobs.enqueue(IngestionJob("TAX:IE:VAT", "missing"))
    assert not await jobs.enqueue(IngestionJob("TAX:IE:VAT", "sparse"))  # waits already
    [delivery] = await jobs.claim("worker-1")
    assert (delivery.job, delivery.attempt) == (IngestionJob("TAX:IE:VAT", "missing"), 1)
    assert await jobs.claim("worker-2") == []
    await jobs.ack(delivery)
    stats = await jobs.stats()
    assert (stats.waiting, stats.in_progress, stats.dead) == (0, 0, 0)
    assert await jobs.enqueue(IngestionJob("TAX:IE:VAT", "sparse"))  # done: may queue again


async def test_a_job_whose_worker_dies_before_acking_is_redelivered(client, redis_prefix):
    jobs = queue(client, redis_prefix, claim_idle_s=0.2)
    await jobs.enqueue(IngestionJob("WELFARE:IE:JSA", "missing"))
    [taken] = await jobs.claim("doomed-worker")  # ... which dies without acking
    assert await jobs.claim("survivor") == []  # not idle long enough yet
    await asyncio.sleep(0.3)
    [again] = await jobs.claim("survivor")
    assert (again.id, again.job, again.attempt) == (taken.id, taken.job, 2)
    await jobs.ack(again)
    assert (await jobs.stats()).in_progress == 0


async def test_a_poison_job_lands_in_the_dead_letter_stream_after_n_tries(client, redis_prefix):
    jobs = queue(client, redis_prefix, max_attempts=3, backoff_s=0.05)
    await jobs.enqueue(IngestionJob("TAX:IE:POISON", "missing"))
    attempts = []
    async with asyncio.timeout(10):
        while (await jobs.stats()).dead == 0:
            for delivery in await jobs.claim("worker"):
                attempts.append(delivery.attempt)
                await jobs.fail(delivery, "parser crashed")
            await asyncio.sleep(0.02)
    assert attempts == [1, 2, 3]  # retried with back-off, then dead-lettered
    assert await jobs.dead_letters() == [
        (IngestionJob("TAX:IE:POISON", "missing"), "parser crashed")
    ]
    assert await jobs.claim("worker") == []


class RecordingEnricher(ConceptEnricher):
    """Enriches nothing; remembers which concepts it was asked about."""

    def __init__(self) -> None:
        self.done: list[str] = []
        self.arrived = asyncio.Event()

    async def enrich(self, concept_id: str) -> Enrichment:
        self.done.append(concept_id)
        self.arrived.set()
        return Enrichment(concept_id, "no_source")


async def test_the_apps_worker_outlives_a_redis_outage_and_takes_jobs_again(
    redis_server, redis_prefix
):
    client = connect_redis(redis_server.url(), timeout_s=0.5)
    jobs = queue(client, redis_prefix)
    enricher = RecordingEnricher()
    async with running_worker(IngestionWorker(jobs, enricher, idle_s=0.05)) as worker:
        redis_server.stop()
        try:
            with pytest.raises(StoreUnavailable):
                await worker.run_once()  # what the background loop meets meanwhile
            await asyncio.sleep(0.3)  # several rounds of its loop without Redis
        finally:
            redis_server.start()
        assert await jobs.enqueue(IngestionJob("TAX:IE:AFTER_THE_OUTAGE", "missing"))
        async with asyncio.timeout(10):
            await enricher.arrived.wait()
    assert enricher.done == ["TAX:IE:AFTER_THE_OUTAGE"]
    await client.aclose()
