"""The composition root: every adapter is built here, from settings, and nowhere else.

``bootstrap(settings, **overrides)`` is called by the FastAPI lifespan, by the CLI and by the
tests, which pass fakes or real adapters through the typed :class:`Overrides`. Nothing
connects at import time.

Lifetimes (STYLE.md 10a): every adapter that holds a resource is entered into one
``AsyncExitStack`` as soon as it exists, so a failure half-way (a store that does not answer,
a bad setting) closes what was already opened — the Ladybug file lock, the PostgreSQL pool —
before the error propagates. :meth:`Container.aclose` closes everything in reverse order
within ``settings.shutdown_timeout_seconds``; a close that fails is logged and the others
still run. :func:`open_graph` is the graph-only part for CLI commands that need nothing else.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, Unpack

import structlog

from api.settings import Settings, unknown_variables
from conversations.factory import build_conversation_store
from conversations.port import ConversationBackend
from egress.client import EgressClient
from egress.pii import PiiDetector, build_ingress_detector, build_pii_detector
from egress.policy import EgressMode
from egress.sanitiser import Sanitiser
from egress.wire import LlmProvider
from engine.chat import ChatEngine, ChatLimits, EgressGateway
from engine.evidence import EvidenceIndex
from engine.graph_outbox import GraphOutbox
from engine.graph_retry import GraphWriteRetry
from engine.graph_sync import GraphSync
from engine.ingestion import IngestionQueue, InMemoryIngestionQueue
from engine.lexicon import ConceptLexicon
from engine.prompt import ASPECTS, Aspect
from engine.providers.extractive import ExtractiveProvider
from engine.providers.openai_responses import OpenAIResponsesProvider
from engine.router import LlmRouter, Route
from engine.self_population import SelfPopulation
from errors import InvalidInput
from graph.ingress_guard import IngressGuard, PiiScanner
from graph.patches import PatchFeed
from graph.port import GraphStore
from graph.schema import GraphSchema, load_schema
from graph.write_service import GraphWriteService

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


@dataclass
class GraphHandle:
    """The rules graph and its write path: what graph-only commands need."""

    schema: GraphSchema
    graph: GraphStore
    guard: IngressGuard
    writer: GraphWriteService


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
    engine: ChatEngine
    patches: PatchFeed
    _stack: AsyncExitStack

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
    settings: Settings | None = None, **overrides: Unpack[Overrides]
) -> AsyncIterator[GraphHandle]:
    """The graph and its write service only (seed, ingest, review commands)."""
    settings = settings or Settings()
    stack = AsyncExitStack()
    try:
        handle = await _graph(stack, settings, overrides)
    except BaseException:
        await _close(stack, settings.shutdown_timeout_seconds)
        raise
    try:
        yield handle
    finally:
        await _close(stack, settings.shutdown_timeout_seconds)


async def _graph(stack: AsyncExitStack, settings: Settings, overrides: Overrides) -> GraphHandle:
    schema = overrides.get("schema") or load_schema()
    graph = overrides.get("graph") or _build_graph_store(settings, schema)
    stack.push_async_callback(graph.aclose)
    await graph.init_schema()
    guard = IngressGuard(schema, overrides.get("pii_scanner") or build_ingress_detector())
    writer = GraphWriteService(graph, guard)
    stack.push_async_callback(writer.aclose)  # listeners drain before the graph closes
    return GraphHandle(schema, graph, guard, writer)


async def _assemble(stack: AsyncExitStack, settings: Settings, overrides: Overrides) -> Container:
    handle = await _graph(stack, settings, overrides)
    graph, writer = handle.graph, handle.writer

    conversations = overrides.get("conversations") or _build_conversation_store(settings)
    stack.push_async_callback(conversations.aclose)
    await conversations.init()

    evidence = EvidenceIndex(graph)
    stack.push_async_callback(evidence.aclose)
    lexicon = overrides.get("lexicon") or ConceptLexicon.from_eurovoc()
    sync = GraphSync(graph, evidence, lexicon)
    await sync.start()
    writer.subscribe(sync.on_change)
    patches = PatchFeed(graph)
    writer.subscribe(patches.on_change)

    ingestion = overrides.get("ingestion") or InMemoryIngestionQueue()
    population = SelfPopulation(graph, writer, evidence, ingestion)
    outbox = await GraphOutbox.open(settings.data_dir / "graph_outbox.jsonl")
    retry = GraphWriteRetry(population, outbox, first_delay=overrides.get("retry_first_delay", 1.0))
    stack.push_async_callback(retry.aclose)
    if resumed := retry.resume():
        log.info("graph_writes_resumed", captures=resumed)

    providers = dict(overrides.get("providers") or _build_providers(settings, lexicon))
    for provider in providers.values():
        stack.push_async_callback(provider.aclose)
    egress = overrides.get("egress") or _build_egress(
        settings, providers, conversations, overrides.get("egress_detector")
    )
    engine = ChatEngine(
        store=conversations,
        egress=egress,
        router=overrides.get("router")
        or LlmRouter(Route(settings.llm_provider, settings.llm_model)),
        evidence=evidence,
        population=population,
        retry=retry,
        lexicon=lexicon,
        limits=ChatLimits(
            max_message_chars=settings.max_message_chars,
            history_messages=settings.history_messages,
            evidence_k=settings.evidence_k,
            max_active_nodes=settings.max_active_nodes,
            graph_write_timeout=settings.graph_write_timeout_seconds,
        ),
        aspects=overrides.get("aspects", ASPECTS),
    )
    stack.push_async_callback(engine.aclose)  # closed first: its saves need the stores
    log.info("bootstrapped", graph=settings.graph_backend, indexed_nodes=len(evidence))
    return Container(
        settings=settings, schema=handle.schema, graph=graph, guard=handle.guard, writer=writer,
        conversations=conversations, evidence=evidence, lexicon=lexicon, ingestion=ingestion,
        population=population, retry=retry, egress=egress, providers=providers, engine=engine,
        patches=patches, _stack=stack,
    )  # fmt: skip


async def _close(stack: AsyncExitStack, deadline: float) -> None:
    """Close in reverse order; a failing close is logged, a hanging one is cut at ``deadline``."""
    try:
        async with asyncio.timeout(deadline):
            await stack.aclose()
    except TimeoutError:
        log.error("shutdown_deadline_passed", seconds=deadline)
    except Exception:
        log.exception("shutdown_failed")


def _build_graph_store(settings: Settings, schema: GraphSchema) -> GraphStore:
    from graph.factory import build_graph_store

    return build_graph_store(
        settings.graph_backend,
        schema=schema,
        ladybug_path=settings.resolved_ladybug_path,
        bolt_uri=settings.bolt_uri,
        bolt_user=settings.bolt_user,
        bolt_password=settings.bolt_password,
        bolt_database=settings.bolt_database,
        bolt_dialect=settings.bolt_dialect,
        bolt_max_pool_size=settings.bolt_max_pool_size,
        bolt_timeout_s=settings.bolt_timeout_seconds,
    )


def _build_providers(settings: Settings, lexicon: ConceptLexicon) -> dict[str, LlmProvider]:
    """The offline extractive provider always; OpenAI's Responses API when it is configured."""
    providers: dict[str, LlmProvider] = {"extractive": ExtractiveProvider(lexicon)}
    if settings.llm_provider == "openai":
        if not settings.openai_api_key:
            raise InvalidInput("REGINTEL_OPENAI_API_KEY is required when LLM_PROVIDER=openai")
        providers["openai"] = OpenAIResponsesProvider(
            api_key=settings.openai_api_key, base_url=settings.openai_base_url
        )
    return providers


def _build_conversation_store(settings: Settings) -> ConversationBackend:
    """SQLite by default; PostgreSQL (Supabase) with row-level security when configured."""
    if settings.conversation_store == "postgres" and not settings.postgres_dsn:
        raise InvalidInput("REGINTEL_POSTGRES_DSN is required when CONVERSATION_STORE=postgres")
    return build_conversation_store(
        settings.conversation_store,
        sqlite_path=Path(settings.resolved_sqlite_path),
        postgres_dsn=settings.postgres_dsn,
        postgres_app_role=settings.postgres_app_role,
        postgres_pool_min=settings.postgres_pool_min,
        postgres_pool_max=settings.postgres_pool_max,
        postgres_timeout_seconds=settings.postgres_timeout_seconds,
        postgres_prepare_threshold=settings.postgres_prepare_threshold,
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
    )
