"""Adapters refuse use after ``aclose`` (httpx's client state): each raises ``AdapterClosed``
instead of reconnecting, and closing twice is quiet. The stores have their cases in their
conformance suites (``graph/test_conformance.py``, ``test_sqlite_store.py``), the chat engine
in ``test_chat_engine.py``, the graph write service in ``tests/unit/test_write_service.py``;
here are the buses, the change detector, the capture retry, the evidence index, the retention
job, the rate limiters, the ingestion queues, tracing and the providers (the local embedding
model in ``tests/unit/embeddings/test_embeddings.py``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import partial
from pathlib import Path

import pytest

from conversations.models import ErasureTotals
from conversations.retention import RetentionJob
from egress.wire import ChatMessage, LlmProvider, LlmRequest
from engine.evidence import EvidenceIndex
from engine.graph_retry import GraphWriteRetry
from engine.ingestion import IngestionWorkQueue, InMemoryIngestionQueue
from engine.ingestion.queue import IngestionJob, JobDelivery
from engine.ingestion.redis_queue import RedisIngestionQueue
from engine.ingestion.sqlite_queue import SqliteIngestionQueue
from engine.lexicon import ConceptLexicon
from engine.providers.anthropic_messages import AnthropicMessagesProvider
from engine.providers.extractive import ExtractiveProvider
from engine.providers.openai_chat import OpenAIChatProvider
from engine.providers.openai_responses import OpenAIResponsesProvider
from engine.self_population import SelfPopulation
from errors import AdapterClosed
from graph.backends.ladybug import LadybugGraphStore
from graph.bus import GraphChange, InProcessGraphBus
from graph.bus_redis import RedisGraphBus
from graph.detector import ChangeDetector
from graph.ingress_guard import IngressGuard
from graph.schema import load_schema
from graph.write_service import GraphWriteService
from infra.rate_limit import BucketLimits, InProcessRateLimiter, RedisRateLimiter
from infra.redis_client import connect_redis
from infra.tracing import Tracing
from tests.support.fakes import EmailOnlyScanner

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

Call = Callable[[], Awaitable[object]]


async def refuses(calls: list[Call]) -> None:
    for call in calls:
        with pytest.raises(AdapterClosed, match="closed"):
            await call()


async def test_the_in_process_bus_refuses_use_after_close():
    bus = InProcessGraphBus()
    await bus.aclose()

    async def subscribe() -> None:
        bus.subscribe(lambda change: bus.ping())

    change = GraphChange(origin="x", timestamp="2026-01-01T00:00:00.000000Z")
    await refuses([lambda: bus.publish(change), bus.start, bus.ping, subscribe])
    await bus.aclose()


async def test_the_redis_bus_refuses_use_after_close(redis_server, redis_prefix):
    client = connect_redis(redis_server.url(), timeout_s=0.5)
    try:
        bus = RedisGraphBus(client, redis_prefix)
        await bus.start()
        await bus.aclose()
        change = GraphChange(origin="x", timestamp="2026-01-01T00:00:00.000000Z")
        await refuses([lambda: bus.publish(change), bus.start, bus.ping])
        assert bus.published == 0  # nothing reached Redis
        await bus.aclose()
    finally:
        await client.aclose()


async def test_the_change_detector_refuses_use_and_drops_late_changes_after_close(tmp_path: Path):
    store = LadybugGraphStore(tmp_path / "g.lbdb", load_schema())
    await store.init_schema()
    detector = ChangeDetector(store)
    detector.start()
    await detector.aclose()

    async def subscribe() -> None:
        detector.subscribe()

    async def start() -> None:
        detector.start()

    await refuses([subscribe, start, detector.flush, detector.catch_up])
    # The write service, closed after the detector, may still drain a change into it.
    await detector.on_local([], "2026-01-01T00:00:00.000000Z")
    await detector.aclose()
    await store.aclose()


async def test_the_graph_write_retry_refuses_to_restart_after_close(tmp_path: Path):
    store = LadybugGraphStore(tmp_path / "g.lbdb", load_schema())
    await store.init_schema()
    writer = GraphWriteService(store, IngressGuard(load_schema(), EmailOnlyScanner()))
    population = SelfPopulation(store, writer, EvidenceIndex(store), InMemoryIngestionQueue())
    retry = GraphWriteRetry(population)
    retry.start_schedule(60.0)
    await retry.aclose()

    async def resume() -> None:
        retry.resume()

    async def schedule() -> None:
        retry.start_schedule(60.0)

    await refuses([resume, schedule])
    await retry.aclose()
    await writer.aclose()
    await store.aclose()


async def test_the_evidence_index_refuses_a_rebuild_after_close(tmp_path: Path):
    store = LadybugGraphStore(tmp_path / "g.lbdb", load_schema())
    await store.init_schema()
    index = EvidenceIndex(store)
    await index.refresh()
    await index.aclose()
    await refuses([index.refresh])
    index.schedule_refresh()  # the write service's last notifications: quietly nothing
    assert len(index) == 0  # what it holds can still be read
    await index.aclose()
    await store.aclose()


class ErasureCalls:
    """An expired-erasure store that counts the passes asked of it."""

    def __init__(self) -> None:
        self.calls: list[datetime] = []

    async def erase_expired(self, before: datetime, batch: int = 200) -> ErasureTotals:
        self.calls.append(before)
        return ErasureTotals()


async def test_the_retention_job_refuses_to_run_or_restart_after_close():
    store = ErasureCalls()
    job = RetentionJob(store, 30, interval=3600.0, jitter=3600.0)
    await job.run_once()
    job.start()
    await job.aclose()

    async def start() -> None:
        job.start()

    await refuses([job.run_once, start])
    assert len(store.calls) == 1  # only the pass before the close
    await job.aclose()


async def test_the_rate_limiters_refuse_use_after_close(redis_server, redis_prefix):
    local = InProcessRateLimiter()
    await local.check("acme", "alice")
    await local.aclose()
    client = connect_redis(redis_server.url(), timeout_s=0.5)
    try:
        shared = RedisRateLimiter(client, redis_prefix, BucketLimits())
        await shared.check("acme", "alice")
        await shared.aclose()
        await refuses([lambda: local.check("acme", "alice"), lambda: shared.check("acme", "a")])
        await local.aclose()
        await shared.aclose()
    finally:
        await client.aclose()


async def test_the_ingestion_queues_refuse_use_after_close(
    tmp_path: Path, redis_server, redis_prefix
):
    client = connect_redis(redis_server.url(), timeout_s=0.5)
    try:
        queues: list[IngestionWorkQueue] = [
            InMemoryIngestionQueue(),
            SqliteIngestionQueue(tmp_path / "jobs.sqlite"),
            RedisIngestionQueue(client, redis_prefix),
        ]
        job = IngestionJob(concept_id="TAX:IE:WEALTH_TAX", reason="missing")
        delivery = JobDelivery("1", job, 1)
        for queue in queues:
            assert await queue.enqueue(job)
            await queue.aclose()
            await refuses(
                [
                    partial(queue.enqueue, job),
                    partial(queue.claim, "worker"),
                    partial(queue.ack, delivery),
                    partial(queue.fail, delivery, "boom"),
                    queue.stats,
                    queue.dead_letters,
                ]
            )
            await queue.aclose()
    finally:
        await client.aclose()


async def test_tracing_refuses_a_flush_after_close_and_shuts_down_once():
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracing = Tracing(None, exporter=exporter)
    with tracing.tracer.start_as_current_span("before"):
        pass
    await tracing.aclose()
    assert [span.name for span in exporter.get_finished_spans()] == ["before"]  # flushed

    async def flush() -> None:
        tracing.flush()

    await refuses([flush])
    await tracing.aclose()


async def test_the_model_providers_refuse_a_stream_after_close():
    request = LlmRequest(
        provider="p", model="m", messages=[ChatMessage(role="user", content="VAT?")]
    )
    providers: list[LlmProvider] = [
        ExtractiveProvider(ConceptLexicon.from_eurovoc()),
        OpenAIResponsesProvider(api_key="k", base_url="http://127.0.0.1:9/v1"),
        OpenAIChatProvider(api_key="k", base_url="http://127.0.0.1:9/v1"),
        AnthropicMessagesProvider(api_key="k", base_url="http://127.0.0.1:9"),
    ]
    for provider in providers:
        await provider.aclose()
        stream = provider.stream(request)
        with pytest.raises(AdapterClosed, match="closed"):
            await anext(stream)
        await provider.aclose()
