"""The composition root: every adapter is built here, from settings, and nowhere else.

``bootstrap(settings, **overrides)`` is called by the FastAPI lifespan and by the CLI; tests
pass fakes or real adapters through ``overrides``. Nothing connects at import time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from api.settings import Settings
from conversations.postgres import PostgresConversationStore
from conversations.postgres_egress import (
    PostgresAuditSink,
    PostgresPolicyStore,
    PostgresPseudonymVault,
)
from conversations.sqlite import SqliteConversationStore
from conversations.sqlite_egress import SqliteAuditSink, SqlitePolicyStore, SqlitePseudonymVault
from egress.audit import AuditSink
from egress.client import EgressClient
from egress.pii import PiiDetector, build_ingress_detector, build_pii_detector
from egress.policy import EgressMode, PolicyStore
from egress.sanitiser import PseudonymVault, Sanitiser
from egress.wire import LlmProvider
from engine.chat import ChatEngine, ChatLimits, EgressGateway
from engine.evidence import EvidenceIndex
from engine.graph_outbox import GraphOutbox
from engine.graph_retry import GraphWriteRetry
from engine.graph_sync import GraphSync
from engine.ingestion import IngestionQueue, InMemoryIngestionQueue
from engine.lexicon import ConceptLexicon
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

log = structlog.get_logger(__name__)


@dataclass
class Container:
    settings: Settings
    schema: GraphSchema
    graph: GraphStore
    guard: IngressGuard
    writer: GraphWriteService
    conversations: SqliteConversationStore | PostgresConversationStore
    evidence: EvidenceIndex
    lexicon: ConceptLexicon
    ingestion: IngestionQueue
    population: SelfPopulation
    retry: GraphWriteRetry
    egress: EgressGateway
    providers: dict[str, LlmProvider]
    engine: ChatEngine
    patches: PatchFeed

    async def aclose(self) -> None:
        await self.engine.aclose()
        await self.retry.aclose()
        for provider in self.providers.values():
            await provider.aclose()
        await self.conversations.aclose()
        await self.graph.aclose()


def build_graph_store(settings: Settings, schema: GraphSchema) -> GraphStore:
    from graph.factory import build_graph_store as build

    return build(
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


def build_pii_scanner() -> PiiScanner:
    """The ingress guard's detector: egress's recognisers, confident names only."""
    return build_ingress_detector()


async def bootstrap(settings: Settings | None = None, **overrides: Any) -> Container:
    settings = settings or Settings()
    schema: GraphSchema = overrides.get("schema") or load_schema()
    graph: GraphStore = overrides.get("graph") or build_graph_store(settings, schema)
    await graph.init_schema()
    pii: PiiScanner = overrides.get("pii_scanner") or build_pii_scanner()
    guard = IngressGuard(schema, pii)
    writer = GraphWriteService(graph, guard)

    conversations = overrides.get("conversations") or build_conversation_store(settings)
    await conversations.init()

    evidence = EvidenceIndex(graph)
    lexicon: ConceptLexicon = overrides.get("lexicon") or ConceptLexicon.from_eurovoc()
    sync = GraphSync(graph, evidence, lexicon)
    await sync.start()
    writer.subscribe(sync.on_change)
    patches = PatchFeed(graph)
    writer.subscribe(patches.on_change)

    ingestion: IngestionQueue = overrides.get("ingestion") or InMemoryIngestionQueue()
    population = SelfPopulation(graph, writer, evidence, ingestion)
    retry = GraphWriteRetry(population, GraphOutbox(settings.data_dir / "graph_outbox.jsonl"))
    if resumed := retry.resume():
        log.info("graph_writes_resumed", captures=resumed)
    providers: dict[str, LlmProvider] = overrides.get("providers") or build_providers(
        settings, lexicon
    )
    egress: EgressGateway = overrides.get("egress") or build_egress(
        settings, providers, conversations, overrides.get("egress_detector")
    )
    router = LlmRouter(Route(settings.llm_provider, settings.llm_model))
    engine = ChatEngine(
        store=conversations,
        egress=egress,
        router=router,
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
    )
    log.info("bootstrapped", graph=settings.graph_backend, indexed_nodes=len(evidence))
    return Container(
        settings=settings, schema=schema, graph=graph, guard=guard, writer=writer,
        conversations=conversations, evidence=evidence, lexicon=lexicon, ingestion=ingestion,
        population=population, retry=retry, egress=egress, providers=providers, engine=engine,
        patches=patches,
    )  # fmt: skip


def build_providers(settings: Settings, lexicon: ConceptLexicon) -> dict[str, LlmProvider]:
    """The offline extractive provider always; OpenAI's Responses API when it is configured."""
    providers: dict[str, LlmProvider] = {"extractive": ExtractiveProvider(lexicon)}
    if settings.llm_provider == "openai":
        if not settings.openai_api_key:
            raise InvalidInput("REGINTEL_OPENAI_API_KEY is required when LLM_PROVIDER=openai")
        providers["openai"] = OpenAIResponsesProvider(
            api_key=settings.openai_api_key, base_url=settings.openai_base_url
        )
    return providers


def build_conversation_store(
    settings: Settings,
) -> SqliteConversationStore | PostgresConversationStore:
    """SQLite by default; PostgreSQL (Supabase) with row-level security when configured."""
    if settings.conversation_store == "postgres":
        if not settings.postgres_dsn:
            raise InvalidInput("REGINTEL_POSTGRES_DSN is required when CONVERSATION_STORE=postgres")
        return PostgresConversationStore(
            settings.postgres_dsn,
            min_size=settings.postgres_pool_min,
            max_size=settings.postgres_pool_max,
            app_role=settings.postgres_app_role or None,
            timeout=settings.postgres_timeout_seconds,
            prepare_threshold=settings.postgres_prepare_threshold,
        )
    return SqliteConversationStore(Path(settings.resolved_sqlite_path))


def build_egress(
    settings: Settings,
    providers: dict[str, LlmProvider],
    store: SqliteConversationStore | PostgresConversationStore,
    detector: PiiDetector | None = None,
) -> EgressClient:
    """Egress over the conversation store's policies, pseudonym vault and audit table."""
    vault: PseudonymVault
    policies: PolicyStore
    audit: AuditSink
    if isinstance(store, PostgresConversationStore):
        vault, policies, audit = (
            PostgresPseudonymVault(store),
            PostgresPolicyStore(store),
            PostgresAuditSink(store),
        )
    else:
        vault, policies, audit = (
            SqlitePseudonymVault(store),
            SqlitePolicyStore(store),
            SqliteAuditSink(store),
        )
    return EgressClient(
        providers,
        Sanitiser(detector or build_pii_detector(), vault),
        policies,
        audit,
        default_mode=EgressMode(settings.egress_default_mode),
    )
