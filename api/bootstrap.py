"""The composition root: every adapter is built here, from settings, and nowhere else.

``bootstrap(settings, **overrides)`` is called by the FastAPI lifespan, by the CLI and by the
tests, which pass fakes or real adapters through the typed :class:`Overrides`. Nothing
connects at import time.

Lifetimes (docs/architecture.md, "Conventions"): every adapter that holds a resource is entered
into one ``AsyncExitStack`` as soon as it exists, so a failure half-way (a store that does not
answer, a bad setting) closes what was already opened — the Ladybug file lock, the PostgreSQL
pool — before the error propagates. :meth:`Container.aclose` closes everything in reverse order
within ``settings.shutdown_timeout_seconds``; a close that fails is logged and the others
still run. :func:`open_graph` is the graph-only part for CLI commands that need nothing else.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, Unpack

import structlog
from redis.asyncio import Redis

from api.admission import LoopLag, TurnAdmission, turn_admission
from api.embedder import build_settings_embedder
from api.metering import CountingRejectionLog, MeteredTurns
from api.providers import build_providers, build_router
from api.settings import Settings, unknown_variables
from api.tokens import SupabaseTokens
from api.topology import build_bus, build_ingestion_queue, build_rate_limiter, build_redis
from api.usage import PriceTable, UsageTurns
from conversations.factory import build_conversation_store
from conversations.port import ConversationBackend
from conversations.retention import RetentionJob
from egress.client import EgressClient
from egress.originals import JsonlOriginalRequestSink
from egress.pii import PiiDetector, build_ingress_detector, build_pii_detector
from egress.policy import EgressMode
from egress.sanitiser import Sanitiser
from egress.wire import LlmProvider
from embeddings import Embedder
from embeddings.factory import open_vectors
from engine.evidence import EvidenceIndex
from engine.graph_outbox import GraphOutbox
from engine.graph_retry import GraphWriteRetry
from engine.graph_sync import GraphSync
from engine.ingestion import IngestionQueue, IngestionWorkQueue
from engine.ingestion.worker import ConceptEnricher, IngestionWorker, running_worker
from engine.lexicon import ConceptLexicon
from engine.metrics import EngineCounters
from engine.model_summary import ModelSummariser
from engine.prompt import ASPECTS, Aspect
from engine.retrieval.cache import IndexCache
from engine.router import LlmRouter
from engine.self_population import SelfPopulation
from engine.turn import ChatEngine, ChatLimits, EgressGateway, TurnEngine
from engine.turn.cancel import ErasureNotices, LocalErasureNotices
from engine.turn.what_if import WhatIfStep
from errors import InvalidInput
from graph.bus import GraphBus, announcer
from graph.detector import ChangeDetector
from graph.ingress_guard import IngressGuard, PiiScanner
from graph.port import GraphStore
from graph.quarantine import ReviewedGraph
from graph.schema import GraphSchema, load_schema
from graph.write_service import GraphWriteService
from infra.erasure_notices import RedisErasureNotices
from infra.metrics import Metrics
from infra.quota_counter import RedisQuotaCounter
from infra.rate_limit import RateLimiter
from infra.summary_lease import RedisSummaryLeases
from infra.tracing import Tracing

__all__ = ["Container", "GraphHandle", "Overrides", "bootstrap", "open_graph"]

log = structlog.get_logger(__name__)


class Overrides(TypedDict, total=False):
    """Adapters a caller (a test, a benchmark) builds itself instead of from settings."""

    schema: GraphSchema
    graph: GraphStore
    pii_scanner: PiiScanner
    conversations: ConversationBackend
    lexicon: ConceptLexicon
    ingestion: IngestionQueue
    providers: Mapping[str, LlmProvider]
    egress: EgressGateway
    egress_detector: PiiDetector
    router: LlmRouter
    aspects: Sequence[Aspect]
    retry_first_delay: float
    bus: GraphBus
    rate_limiter: RateLimiter
    embedder: Embedder  # the semantic channel's (tests pass NoEmbedder or a small fake)


@dataclass
class GraphHandle:
    """The rules graph and its write path: what graph-only commands need."""

    schema: GraphSchema
    graph: GraphStore
    guard: IngressGuard
    writer: GraphWriteService
    bus: GraphBus  # tells the other workers what this process wrote (ADR 0026)
    redis: Redis | None


@dataclass
class Container:
    """Every adapter of one running app; closed once, in reverse order of construction."""

    settings: Settings
    schema: GraphSchema
    graph: GraphStore
    guard: IngressGuard
    writer: GraphWriteService
    conversations: ConversationBackend
    evidence: EvidenceIndex
    lexicon: ConceptLexicon
    ingestion: IngestionQueue
    population: SelfPopulation
    retry: GraphWriteRetry
    egress: EgressGateway
    providers: dict[str, LlmProvider]
    engine: TurnEngine
    patches: ChangeDetector  # graph patches: batching, log, filters (ADR 0027)
    bus: GraphBus
    rate_limiter: RateLimiter
    metrics: Metrics
    tracing: Tracing
    reviewed: ReviewedGraph  # the graph reads tenants may make (ADR 0020)
    _stack: AsyncExitStack
    admission: TurnAdmission | None = None  # chat turns in flight (ADR 0030); set by bootstrap
    tokens: SupabaseTokens | None = None  # Supabase access tokens, when configured (ADR 0024)
    # erasures told to every worker, which cancels its turns of them (ADR 0048 addendum)
    erasure_notices: ErasureNotices | None = None

    async def aclose(self) -> None:
        await _close(self._stack, self.settings.shutdown_timeout_seconds)


async def bootstrap(settings: Settings | None = None, **overrides: Unpack[Overrides]) -> Container:
    """Build the whole app; on any failure, close what was opened and re-raise."""
    settings = settings or Settings()
    if unknown := unknown_variables():
        log.warning("unknown_settings_ignored", variables=unknown)
    stack = AsyncExitStack()
    try:
        return await _assemble(stack, settings, overrides)
    except BaseException:
        await _close(stack, settings.shutdown_timeout_seconds)
        raise


@asynccontextmanager
async def open_graph(
    settings: Settings | None = None, *, read_only: bool = False, **overrides: Unpack[Overrides]
) -> AsyncIterator[GraphHandle]:
    """The graph and its write service only (seed, ingest, review commands). ``read_only``:
    for commands that only read, which then work beside a running server (the embedded store
    lets one process write and others read)."""
    settings = settings or Settings()
    stack = AsyncExitStack()
    try:
        handle = await _graph(stack, settings, overrides, read_only=read_only)
    except BaseException:
        await _close(stack, settings.shutdown_timeout_seconds)
        raise
    try:
        yield handle
    finally:
        await _close(stack, settings.shutdown_timeout_seconds)


async def _graph(
    stack: AsyncExitStack,
    settings: Settings,
    overrides: Overrides,
    metrics: Metrics | None = None,
    *,
    read_only: bool = False,
) -> GraphHandle:
    schema = overrides.get("schema") or load_schema()
    graph = overrides.get("graph") or _build_graph_store(settings, schema, read_only=read_only)
    stack.push_async_callback(graph.aclose)
    await graph.init_schema()
    redis = build_redis(settings)
    if redis is not None:
        stack.push_async_callback(redis.aclose)
    bus = overrides.get("bus") or build_bus(settings, redis)
    stack.push_async_callback(bus.aclose)
    rejections = CountingRejectionLog(metrics) if metrics is not None else None
    scanner = overrides.get("pii_scanner") or build_ingress_detector()
    guard = IngressGuard(schema, scanner, rejections)
    writer = GraphWriteService(graph, guard)
    stack.push_async_callback(writer.aclose)  # listeners drain before the graph and bus close
    writer.subscribe(announcer(bus))  # the CLI's writes reach the workers too
    return GraphHandle(schema, graph, guard, writer, bus, redis)


async def _assemble(stack: AsyncExitStack, settings: Settings, overrides: Overrides) -> Container:
    """Build every adapter in dependency order; each is entered into ``stack`` as it is made,
    so what closes first is what was built last (the engine, whose saves need the stores)."""
    metrics = Metrics()
    tracing = Tracing(settings.otlp_endpoint, settings.otel_service_name)
    stack.push_async_callback(tracing.aclose)
    handle = await _graph(stack, settings, overrides, metrics)
    conversations = await _conversations(stack, settings, overrides)
    evidence, lexicon, sync = await _read_side(stack, settings, handle, overrides)
    patches = await _graph_changes(stack, settings, handle, sync)
    metrics.watch_subscribers(lambda: patches.subscribers)
    rate_limiter = overrides.get("rate_limiter") or build_rate_limiter(
        settings, handle.redis, metrics
    )
    stack.push_async_callback(rate_limiter.aclose)
    ingestion, population, retry = await _capture(
        stack, settings, overrides, handle, evidence, lexicon
    )
    router, providers, egress = _llm(stack, settings, overrides, lexicon, conversations)
    counters = EngineCounters()
    summariser = (
        ModelSummariser(
            egress=egress,
            router=router,
            store=conversations,
            counters=counters,
            min_new_tokens=settings.conversation_summary_min_new_tokens,
            # one call at a time per conversation across workers: Redis, else the store
            leases=RedisSummaryLeases(handle.redis, settings.redis_prefix)
            if handle.redis is not None
            else conversations,
        )
        if settings.conversation_summary_by_model
        else None
    )
    chat = ChatEngine(
        counters=counters,
        summariser=summariser,
        tracer=tracing.tracer,
        store=conversations,
        egress=egress,
        router=router,
        evidence=evidence,
        population=population,
        retry=retry,
        lexicon=lexicon,
        limits=_chat_limits(settings),
        aspects=overrides.get("aspects", ASPECTS),
        what_if=WhatIfStep(conversations.scenario_store(), evidence, rules=evidence),
    )
    notices: ErasureNotices = (
        RedisErasureNotices(handle.redis, settings.redis_prefix)
        if handle.redis is not None
        else LocalErasureNotices()
    )
    notices.subscribe(chat.running.cancel)
    await notices.start()
    stack.push_async_callback(notices.aclose)
    prices = PriceTable(settings.usage_prices_per_million)
    priced = UsageTurns(
        chat,
        conversations,
        prices,
        settings.usage_monthly_quotas,
        metrics=metrics,
        when_store_down=settings.usage_quota_when_store_down,
        counter=RedisQuotaCounter(handle.redis, settings.redis_prefix)
        if handle.redis is not None and settings.usage_monthly_quotas
        else None,
    )
    if summariser is not None:  # a summary call's tokens count like a turn's (ADR 0050)
        summariser.on_usage = priced.record_call
    engine: TurnEngine = MeteredTurns(priced, metrics=metrics, tracer=tracing.tracer)
    stack.push_async_callback(engine.aclose)  # closed first: its saves need the stores
    log.info("bootstrapped", graph=settings.graph_backend, indexed_nodes=len(evidence))
    tokens = _build_tokens(settings)
    if tokens is not None:
        stack.push_async_callback(tokens.aclose)
    admission = turn_admission(settings, lag=await _loop_lag(stack))
    return Container(
        tokens=tokens,
        settings=settings,
        schema=handle.schema,
        graph=handle.graph,
        guard=handle.guard,
        writer=handle.writer,
        conversations=conversations,
        evidence=evidence,
        lexicon=lexicon,
        ingestion=ingestion,
        population=population,
        retry=retry,
        egress=egress,
        providers=providers,
        engine=engine,
        patches=patches,
        reviewed=ReviewedGraph(handle.graph),
        bus=handle.bus,
        rate_limiter=rate_limiter,
        metrics=metrics,
        tracing=tracing,
        _stack=stack,
        admission=admission,
        erasure_notices=notices,
    )


async def _conversations(
    stack: AsyncExitStack, settings: Settings, overrides: Overrides
) -> ConversationBackend:
    """The conversation store, migrated."""
    conversations = overrides.get("conversations") or _build_conversation_store(settings)
    stack.push_async_callback(conversations.aclose)
    await conversations.init()
    if days := settings.conversation_retention_days:  # erasure by age, in every worker (ADR 0048)
        retention = RetentionJob(conversations, days)
        stack.push_async_callback(retention.aclose)
        retention.start()
    return conversations


async def _read_side(
    stack: AsyncExitStack, settings: Settings, handle: GraphHandle, overrides: Overrides
) -> tuple[EvidenceIndex, ConceptLexicon, GraphSync]:
    """The in-memory evidence index and lexicon, loaded from the graph, and the sync that keeps
    them in step with this process's writes (other processes' come through the detector)."""
    embedder = overrides.get("embedder") or build_settings_embedder(settings)
    stack.callback(embedder.close)
    vectors = open_vectors(settings.data_dir, embedder)
    evidence = EvidenceIndex(
        handle.graph,
        embedder=embedder,
        vectors=vectors,
        index_cache=IndexCache(settings.data_dir / "index"),
    )
    stack.push_async_callback(evidence.aclose)
    lexicon = overrides.get("lexicon") or ConceptLexicon.from_eurovoc()
    sync = GraphSync(handle.graph, evidence, lexicon)
    await sync.start()
    handle.writer.subscribe(sync.on_change)
    return evidence, lexicon, sync


async def _graph_changes(
    stack: AsyncExitStack, settings: Settings, handle: GraphHandle, sync: GraphSync
) -> ChangeDetector:
    """The change fan-out (ADR 0027): this process's writes and the bus's messages feed one
    detector, which builds the patches and hands other processes' changes to ``sync``."""
    writer, bus = handle.writer, handle.bus
    patches = ChangeDetector(
        handle.graph,
        batch_window=settings.graph_batch_window_ms / 1000,
        log_size=settings.graph_patch_log_size,
        catch_up_interval=settings.graph_catch_up_seconds,
        origin=bus.origin,
        local_backlog=lambda: writer.pending_notifications,
    )
    stack.push_async_callback(patches.aclose)
    writer.subscribe(patches.on_local)
    patches.add_remote_listener(sync.on_change)  # other processes' writes (bus, catch-up)
    bus.subscribe(patches.on_remote, on_gap=patches.request_catch_up)
    await bus.start()
    patches.start()
    return patches


async def _capture(
    stack: AsyncExitStack,
    settings: Settings,
    overrides: Overrides,
    handle: GraphHandle,
    evidence: EvidenceIndex,
    lexicon: ConceptLexicon,
) -> tuple[IngestionQueue, SelfPopulation, GraphWriteRetry]:
    """Self-population, the ingestion queue (and its worker when this process runs one) and
    the retry of captures the graph could not take (resumed from the outbox)."""
    graph, writer = handle.graph, handle.writer
    ingestion = overrides.get("ingestion") or build_ingestion_queue(settings, handle.redis)
    stack.push_async_callback(ingestion.aclose)  # after its worker and every turn's enqueue
    population = SelfPopulation(graph, writer, evidence, ingestion, lexicon)
    if settings.ingestion_worker and isinstance(ingestion, IngestionWorkQueue):
        await stack.enter_async_context(
            running_worker(IngestionWorker(ingestion, ConceptEnricher(graph, writer, evidence)))
        )
    outbox = await GraphOutbox.open(settings.data_dir / "graph_outbox.jsonl")
    retry = GraphWriteRetry(population, outbox, first_delay=overrides.get("retry_first_delay", 1.0))
    stack.push_async_callback(retry.aclose)
    if resumed := retry.resume():
        log.info("graph_writes_resumed", captures=resumed)
    retry.start_schedule(settings.graph_retry_interval_seconds)
    return ingestion, population, retry


def _llm(
    stack: AsyncExitStack,
    settings: Settings,
    overrides: Overrides,
    lexicon: ConceptLexicon,
    conversations: ConversationBackend,
) -> tuple[LlmRouter, dict[str, LlmProvider], EgressGateway]:
    """The router, the providers it routes to, and the egress client every call goes through."""
    router = overrides.get("router") or build_router(settings)
    providers = dict(overrides.get("providers") or build_providers(settings, lexicon, router))
    for provider in providers.values():
        stack.push_async_callback(provider.aclose)
    egress = overrides.get("egress") or _build_egress(
        settings, providers, conversations, overrides.get("egress_detector")
    )
    return router, providers, egress


def _chat_limits(settings: Settings) -> ChatLimits:
    """The turn's limits, from the settings."""
    return ChatLimits(
        max_message_chars=settings.max_message_chars,
        history_messages=settings.history_messages,
        conversation_token_budget=settings.conversation_token_budget,
        evidence_k=settings.evidence_k,
        max_active_nodes=settings.max_active_nodes,
        graph_write_timeout=settings.graph_write_timeout_seconds,
        answer_write_interval=settings.answer_write_interval_seconds,
        answer_write_min_chars=settings.answer_write_min_chars,
        answer_keepalive=settings.stream_lease_seconds / 3,
    )


async def _loop_lag(stack: AsyncExitStack) -> LoopLag:
    """The event loop's lag, measured for admission control while the app runs (ADR 0030)."""
    lag = LoopLag()
    monitor = asyncio.get_running_loop().create_task(lag.run(), name="regintel-loop-lag")

    async def stop() -> None:
        monitor.cancel()
        with suppress(asyncio.CancelledError):
            await monitor

    stack.push_async_callback(stop)
    return lag


async def _close(stack: AsyncExitStack, deadline: float) -> None:
    """Close in reverse order; a failing close is logged, a hanging one is cut at ``deadline``."""
    try:
        async with asyncio.timeout(deadline):
            await stack.aclose()
    except TimeoutError:
        log.error("shutdown_deadline_passed", seconds=deadline)
    except Exception:
        log.exception("shutdown_failed")


def _build_graph_store(
    settings: Settings, schema: GraphSchema, *, read_only: bool = False
) -> GraphStore:
    from graph.factory import build_graph_store

    return build_graph_store(
        settings.graph_backend,
        schema=schema,
        ladybug_path=settings.resolved_ladybug_path,
        ladybug_read_only=read_only,
        bolt_uri=settings.bolt_uri,
        bolt_user=settings.bolt_user,
        bolt_password=settings.bolt_password.get_secret_value(),
        bolt_database=settings.bolt_database,
        bolt_dialect=settings.bolt_dialect,
        bolt_max_pool_size=settings.bolt_max_pool_size,
        bolt_timeout_s=settings.bolt_timeout_seconds,
    )


def _build_tokens(settings: Settings) -> SupabaseTokens | None:
    """The Supabase token verifier (nothing is fetched until a token needs a JWKS key)."""
    if not settings.supabase_configured:
        return None
    secret = settings.supabase_jwt_secret
    return SupabaseTokens.build(
        audience=settings.supabase_jwt_audience,
        issuer=settings.supabase_jwt_issuer,
        secret=secret.get_secret_value() if secret else None,
        jwks_url=settings.supabase_jwks_url,
        leeway_seconds=settings.supabase_jwt_leeway_seconds,
        jwks_max_age_seconds=settings.supabase_jwks_cache_seconds,
        jwks_min_refresh_seconds=settings.supabase_jwks_min_refresh_seconds,
        timeout_seconds=settings.supabase_jwks_timeout_seconds,
    )


def _build_conversation_store(settings: Settings) -> ConversationBackend:
    """SQLite by default; PostgreSQL (Supabase) with row-level security when configured."""
    if settings.conversation_store == "postgres" and not settings.postgres_dsn.get_secret_value():
        raise InvalidInput("REGINTEL_POSTGRES_DSN is required when CONVERSATION_STORE=postgres")
    return build_conversation_store(
        settings.conversation_store,
        sqlite_path=Path(settings.resolved_sqlite_path),
        postgres_dsn=settings.postgres_dsn.get_secret_value(),
        postgres_app_role=settings.postgres_app_role,
        postgres_pool_min=settings.postgres_pool_min,
        postgres_pool_max=settings.postgres_pool_max,
        postgres_timeout_seconds=settings.postgres_timeout_seconds,
        postgres_prepare_threshold=settings.postgres_prepare_threshold,
        stream_lease_seconds=settings.stream_lease_seconds,
    )


def _build_egress(
    settings: Settings,
    providers: Mapping[str, LlmProvider],
    store: ConversationBackend,
    detector: PiiDetector | None = None,
) -> EgressClient:
    """Egress over the conversation store's policies, pseudonym vault and audit table."""
    adapters = store.egress_adapters()
    return EgressClient(
        providers,
        Sanitiser(detector or build_pii_detector(), adapters.vault),
        adapters.policies,
        adapters.audit,
        default_mode=EgressMode(settings.egress_default_mode),
        originals=JsonlOriginalRequestSink(settings.data_dir / "egress_originals.jsonl")
        if settings.egress_keep_original_report_only
        else None,
    )
