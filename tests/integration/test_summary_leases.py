"""One model-summary call at a time per conversation across API workers (issue 27, ADR 0065
session 8 addendum): the lease in Redis (``SET NX PX``, a real redis-server) and, without Redis,
in the conversation store (SQLite, and PostgreSQL as the app role under row-level security);
two summarisers (two workers) sharing one lease make one call for a conversation at a time, and
a lease store that is down lets the call be made."""

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field

import pytest

from conversations.models import ConversationContext, NewMessage
from conversations.port import SummaryLeases
from egress.client import EgressContext
from egress.sanitiser import SanitisedText
from egress.wire import Done, LlmRequest, StreamChunk, Text, Usage
from engine.metrics import EngineCounters
from engine.model_summary import SUMMARY_TASK, ModelSummariser, SummaryJob
from engine.router import LlmRouter, Route
from infra.redis_client import connect_redis
from infra.summary_lease import RedisSummaryLeases

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def store(conversation_backend):
    store = conversation_backend.open()
    await store.init()
    yield store
    await store.aclose()


@pytest.fixture
async def redis(redis_server):
    client = connect_redis(redis_server.url(), timeout_s=5)
    yield client
    await client.aclose()


async def held_once_at_a_time(leases: SummaryLeases) -> None:
    take, give = leases.acquire_summary_lease, leases.release_summary_lease
    assert await take("acme", "c1", "worker-a", 60, user_id="alice")
    assert not await take("acme", "c1", "worker-b", 60, user_id="alice")  # a holds it
    assert await take("acme", "c2", "worker-b", 60, user_id="alice")  # another conversation
    assert await take("globex", "c1", "worker-b", 60, user_id="carol")  # another tenant's c1
    await give("acme", "c1", "worker-b", user_id="alice")  # not b's to give
    assert not await take("acme", "c1", "worker-b", 60, user_id="alice")
    await give("acme", "c1", "worker-a", user_id="alice")
    assert await take("acme", "c1", "worker-b", 60, user_id="alice")  # free again
    # a holder that never gives it back (a worker that died): free once it expires
    assert await take("acme", "c3", "worker-a", 0.2, user_id="alice")
    assert not await take("acme", "c3", "worker-b", 60, user_id="alice")
    await asyncio.sleep(0.5)
    assert await take("acme", "c3", "worker-b", 60, user_id="alice")
    await give("acme", "c3", "worker-a", user_id="alice")  # a's expired lease: b keeps it
    assert not await take("acme", "c3", "worker-a", 60, user_id="alice")


async def test_the_redis_lease_is_held_by_one_worker_at_a_time(redis, redis_prefix):
    await held_once_at_a_time(RedisSummaryLeases(redis, redis_prefix))


async def test_the_store_lease_is_held_by_one_worker_at_a_time(store):
    await held_once_at_a_time(store)


async def test_erasure_takes_the_store_lease_and_rls_hides_it(store, conversation_backend, request):
    cid = (await store.create_conversation("acme", "alice")).id
    said = [NewMessage(role="user", content="q", content_sanitised="q")]
    await store.save_turn("acme", cid, said, ConversationContext(), user_id="alice")
    assert await store.acquire_summary_lease("acme", cid, "worker-a", 60, user_id="alice")
    if conversation_backend.name == "postgres":
        from tests.support.postgres import as_app_role

        dsn = request.getfixturevalue("postgres_dsn")
        leases = "SELECT count(*) FROM regintel.summary_leases"
        assert await as_app_role(dsn, "acme", leases, user_id="alice") == [(1,)]
        assert await as_app_role(dsn, "acme", leases, user_id="bob") == [(0,)]  # owner only
        assert await as_app_role(dsn, "globex", leases, user_id="alice") == [(0,)]
    await store.erase_conversation("acme", cid, user_id="alice", requested_by="alice")
    assert await store.acquire_summary_lease("acme", cid, "worker-b", 60, user_id="alice")


@dataclass
class HeldEgress:
    """A summary provider whose answers wait for ``gate``; counts the calls it gets."""

    gate: asyncio.Event = field(default_factory=asyncio.Event)
    calls: int = 0
    called: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def reached(self, calls: int) -> None:
        async with self.called:
            await asyncio.wait_for(self.called.wait_for(lambda: self.calls >= calls), 30)

    async def stream(
        self, request: LlmRequest, ctx: EgressContext
    ) -> AsyncGenerator[StreamChunk, None]:
        async with self.called:
            self.calls += 1
            self.called.notify_all()
        await self.gate.wait()
        yield Text("The user asked about VAT.")
        yield Done(Usage(10, 5))

    async def sanitise_message(self, ctx: EgressContext, text: str) -> SanitisedText:
        return SanitisedText(text=text)


@dataclass
class Stored:
    rows: list[str] = field(default_factory=list)

    async def set_model_summary(self, tenant_id, conversation_id, last_message_id, text, by, **_):
        self.rows.append(last_message_id)
        return True


def worker(egress: HeldEgress, leases: SummaryLeases | None, stored: Stored) -> ModelSummariser:
    router = LlmRouter(
        default=Route("extractive", "extractive-v1"),
        by_task={SUMMARY_TASK: Route("openai", "gpt-4o-mini")},
    )
    return ModelSummariser(
        egress=egress, router=router, store=stored, counters=EngineCounters(), leases=leases
    )


def job(last: str) -> SummaryJob:
    return SummaryJob("c9", last, "", (("user", "What is VAT?"), ("assistant", "23%.")))


async def one_call_at_a_time(leases: SummaryLeases) -> None:
    egress, stored = HeldEgress(), Stored()
    a, b = worker(egress, leases, stored), worker(egress, leases, stored)
    ctx = EgressContext("acme", "alice", "c9")
    first = asyncio.create_task(a.summarise(ctx, job("m2")))
    await egress.reached(1)  # a holds the lease and is in its call
    assert await b.summarise(ctx, job("m4")) is False  # held by worker a: no call
    assert b._counters.get("model_summaries_held_elsewhere") == 1
    egress.gate.set()
    assert await asyncio.wait_for(first, 30) is True
    assert await b.summarise(ctx, job("m6")) is True  # given back: b's turn
    assert egress.calls == 2 and stored.rows == ["m2", "m6"]
    # without the lease (before session 8) both would have called at once
    egress.gate.clear()
    c, d = worker(egress, None, stored), worker(egress, None, stored)
    both = [asyncio.create_task(w.summarise(ctx, job(m))) for w, m in ((c, "m8"), (d, "m9"))]
    await egress.reached(4)
    egress.gate.set()
    assert await asyncio.gather(*both) == [True, True]


async def test_two_workers_make_one_summary_call_at_a_time_with_redis(redis, redis_prefix):
    await one_call_at_a_time(RedisSummaryLeases(redis, redis_prefix))


async def test_two_workers_make_one_summary_call_at_a_time_with_the_store(store):
    await one_call_at_a_time(store)


async def test_a_lease_store_that_is_down_lets_the_call_be_made() -> None:
    gone = connect_redis("redis://127.0.0.1:1/0", timeout_s=0.2)  # nothing listens there
    try:
        egress, stored = HeldEgress(), Stored()
        egress.gate.set()
        model = worker(egress, RedisSummaryLeases(gone, "t"), stored)
        assert await model.summarise(EgressContext("acme", "alice", "c9"), job("m2")) is True
        assert model._counters.get("summary_lease_unavailable") == 2  # taking, giving back
        assert stored.rows == ["m2"]
    finally:
        await gone.aclose()
