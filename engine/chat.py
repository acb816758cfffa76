"""One chat turn, DESIGN.md steps 2–10, in two steps: :meth:`ChatEngine.prepare` then
:meth:`ChatEngine.stream`.

``prepare`` does everything that may refuse the request — validation, the egress mode (a
refused ``off`` is a 403), the conversation lookup (another tenant's id is a 404) — and
raises :class:`errors.RegintelError` before any event exists, so the API turns it into a plain
4xx. ``stream`` never raises for an expected failure: a provider error, an egress block at
send time or a failed save become ``error`` events followed by ``done``.

Ordering that matters:

- Nothing before the first token waits on the graph: evidence and active-concept descriptions
  come from the in-memory :class:`EvidenceIndex`; the only awaits are the conversation store
  and the egress sanitiser.
- Self-population starts as a task the moment the ``capture_concepts`` tool arrives and is
  awaited after the text, for at most ``graph_write_timeout``. A slower write becomes a
  warning and goes on in the background; a failed one is retried by :class:`GraphWriteRetry`.
- The turn is saved exactly once, by its :class:`TurnRecord`, whatever happens after the
  stream started (ADR 0010).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Protocol

import structlog

from conversations.models import ConversationContext, NewMessage, StoredMessage
from conversations.port import ConversationStore
from egress.client import EgressContext
from egress.policy import EgressMode
from egress.sanitiser import SanitisedText
from egress.wire import ChatMessage, Done, Error, LlmRequest, StreamChunk, Text, Tool
from engine.concepts import CAPTURE_TOOL, CAPTURE_TOOL_NAME, parse_capture_payload
from engine.events import (
    ConceptsEvent,
    DoneEvent,
    ErrorEvent,
    MetadataEvent,
    TextEvent,
    TurnEvent,
    TurnWarning,
    WarningEvent,
)
from engine.evidence import Evidence, EvidenceIndex
from engine.graph_retry import GraphWriteRetry
from engine.grounding import ground_answer, refusal_sentence
from engine.lexicon import ConceptLexicon
from engine.prompt import ASPECTS, Aspect, PromptInputs, build_messages, detect_jurisdictions
from engine.router import LlmRouter
from engine.self_population import ResolvedConcept, SelfPopulation
from engine.turn_record import TurnRecord
from errors import InvalidInput, RegintelError

__all__ = ["ChatEngine", "ChatLimits", "EgressGateway", "PreparedTurn", "TurnRequest"]

log = structlog.get_logger(__name__)


class EgressGateway(Protocol):
    """What the engine needs of :class:`egress.client.EgressClient`."""

    def stream(
        self, request: LlmRequest, ctx: EgressContext
    ) -> AsyncGenerator[StreamChunk, None]: ...

    async def sanitise_message(self, ctx: EgressContext, text: str) -> SanitisedText: ...

    async def effective_mode(self, ctx: EgressContext) -> EgressMode: ...


@dataclass(frozen=True)
class TurnRequest:
    tenant_id: str
    user_id: str
    message: str
    conversation_id: str | None = None
    egress_mode: EgressMode | None = None  # the per-call override the client asked for


@dataclass(frozen=True)
class ChatLimits:
    max_message_chars: int = 8000
    history_messages: int = 8
    evidence_k: int = 6
    max_active_nodes: int = 40
    graph_write_timeout: float = 2.0


@dataclass(frozen=True)
class PreparedTurn:
    """A turn that was accepted: everything :meth:`ChatEngine.stream` needs, nothing sent yet."""

    request: TurnRequest
    conversation_id: str
    message: str  # as the user typed it (stored as ``content``)
    question: str  # sanitised (stored as ``content_sanitised``)
    ctx: EgressContext
    jurisdictions: list[str]
    evidence: Evidence
    llm_request: LlmRequest


class ChatEngine:
    def __init__(
        self,
        *,
        store: ConversationStore,
        egress: EgressGateway,
        router: LlmRouter,
        evidence: EvidenceIndex,
        population: SelfPopulation,
        retry: GraphWriteRetry,
        lexicon: ConceptLexicon | None = None,
        limits: ChatLimits | None = None,
        aspects: Sequence[Aspect] = ASPECTS,
    ) -> None:
        self._store = store
        self._egress = egress
        self._router = router
        self._evidence = evidence
        self._population = population
        self._retry = retry
        self._lexicon = lexicon
        self._limits = limits or ChatLimits()
        self._aspects = tuple(aspects)
        self._background: set[asyncio.Task[Any]] = set()

    async def aclose(self) -> None:
        """Let background saves and graph writes finish (they must not be lost)."""
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    async def run_turn(self, request: TurnRequest) -> AsyncGenerator[TurnEvent, None]:
        """:meth:`prepare` then :meth:`stream`, for callers that need no status code (CLI)."""
        prepared = await self.prepare(request)
        async with aclosing(self.stream(prepared)) as events:
            async for event in events:
                yield event

    async def prepare(self, request: TurnRequest) -> PreparedTurn:
        """Validate, resolve the egress mode, load the conversation and build the prompt.

        Raises :class:`errors.InvalidInput`, :class:`errors.EgressBlocked` (a refused ``off``),
        :class:`errors.NotFound` (unknown or another tenant's conversation) or a store error;
        nothing has been sent or saved when it does.
        """
        message = request.message.strip()
        if not message:
            raise InvalidInput("message must not be empty")
        if len(message) > self._limits.max_message_chars:
            raise InvalidInput(f"message is longer than {self._limits.max_message_chars} chars")
        store, tenant = self._store, request.tenant_id
        override = request.egress_mode
        # The mode first: a refused "off" is a 403 that must not leave an empty conversation.
        mode = await self._egress.effective_mode(
            EgressContext(tenant, request.user_id, request.conversation_id or "", override)
        )
        if request.conversation_id:
            conversation = await store.get_conversation(tenant, request.conversation_id)
        else:
            conversation = await store.create_conversation(tenant, request.user_id)
        history = await store.recent_messages(
            tenant, conversation.id, self._limits.history_messages
        )
        context = await store.load_context(tenant, conversation.id)
        ctx = EgressContext(tenant, request.user_id, conversation.id, override)
        sanitised = await self._egress.sanitise_message(ctx, message)
        # Sanitised once, when stored; "off" (only where the tenant allows it) sends originals.
        unsanitised = mode is EgressMode.OFF
        jurisdictions = detect_jurisdictions(message)
        evidence = self._evidence.search(
            sanitised.text,
            self._limits.evidence_k,
            jurisdictions,
            self._named_concepts(sanitised.text, jurisdictions),
        )
        refusal = None if evidence.answerable else refusal_sentence(evidence.verdict)
        if refusal is not None:  # the gate decided: nothing is evidence, the model is told so
            evidence = Evidence(hits=[], verdict=evidence.verdict)
        prompt = build_messages(
            PromptInputs(
                question=ChatMessage(role="user", content=message)
                if unsanitised
                else sanitised.as_message("user"),
                jurisdictions=jurisdictions,
                active=self._evidence.descriptions(context.active_node_ids),
                evidence=evidence.hits,
                refusal=refusal,
                history=[_history_message(m, unsanitised) for m in history],
            ),
            self._aspects,
        )
        route = self._router.route("main_chat")
        return PreparedTurn(
            request=request,
            conversation_id=conversation.id,
            message=message,
            question=sanitised.text,
            ctx=ctx,
            jurisdictions=jurisdictions,
            evidence=evidence,
            llm_request=LlmRequest(
                provider=route.provider, model=route.model, messages=prompt, tools=[CAPTURE_TOOL]
            ),
        )

    async def stream(self, turn: PreparedTurn) -> AsyncGenerator[TurnEvent, None]:
        """Stream the answer of a prepared turn; saved exactly once by its :class:`TurnRecord`."""
        population: list[asyncio.Task[list[ResolvedConcept]]] = []
        record = TurnRecord(save=lambda r: self._save(turn, r), spawn=self._spawn)
        async with record:
            yield MetadataEvent(turn.conversation_id, turn.jurisdictions, turn.evidence.ids())
            async with aclosing(self._provider_events(turn, record, population)) as events:
                async for event in events:
                    yield event
            resolved = await self._await_population(population, record)
            if resolved:
                yield ConceptsEvent([_concept_data(r) for r in resolved])
            for warning in record.warnings:
                yield WarningEvent(warning)
            grounding = ground_answer(record.answer, turn.evidence, self._evidence.get)
            if grounding.rejected:
                # A model citing what this turn did not retrieve: say so, never pass it on.
                warning = TurnWarning(
                    "unknown_citation",
                    f"cited ids not in this turn's evidence: {grounding.rejected}",
                )
                record.warnings.append(warning)
                yield WarningEvent(warning)
            record.grounding = grounding
            record.complete(list(dict.fromkeys([*grounding.cited, *(r.id for r in resolved)])))
        if record.save_error is not None:
            exc = record.save_error
            if isinstance(exc, RegintelError):
                yield ErrorEvent(exc.code, f"the conversation could not be saved: {exc.message}")
            else:
                yield ErrorEvent("internal_error", "the conversation could not be saved")
        grounding = record.grounding
        yield DoneEvent(
            turn.conversation_id,
            record.referenced,
            record.usage,
            record.warnings,
            record.status,
            citations=[c.data() for c in grounding.citations] if grounding else [],
            confidence=grounding.confidence if grounding else 0.0,
            refused=None if turn.evidence.answerable else _reason(turn.evidence),
        )

    def _named_concepts(self, question: str, jurisdictions: Sequence[str]) -> list[str]:
        """Graph concepts the question names (they focus the evidence search)."""
        if self._lexicon is None:
            return []
        primary = jurisdictions[0] if jurisdictions else None
        hits = self._lexicon.match(question, jurisdiction=primary)
        return [hit.entry.key for hit in hits if hit.entry.scheme == "graph"]

    async def _provider_events(
        self,
        turn: PreparedTurn,
        record: TurnRecord,
        population: list[asyncio.Task[list[ResolvedConcept]]],
    ) -> AsyncGenerator[TurnEvent, None]:
        try:
            async with aclosing(self._egress.stream(turn.llm_request, turn.ctx)) as chunks:
                async for chunk in chunks:
                    if isinstance(chunk, Text):
                        record.answer_parts.append(chunk.delta)
                        yield TextEvent(chunk.delta)
                    elif isinstance(chunk, Tool):
                        self._on_tool(chunk, record, population)
                    elif isinstance(chunk, Error):
                        record.fail()
                        yield ErrorEvent(chunk.code, chunk.error)
                        return
                    elif isinstance(chunk, Done):
                        record.usage = {
                            "inputTokens": chunk.usage.input_tokens,
                            "outputTokens": chunk.usage.output_tokens,
                        }
        except RegintelError as exc:  # e.g. EgressBlocked: nothing was sent
            record.fail()
            yield ErrorEvent(exc.code, exc.message)
        except Exception:  # a provider bug must still end the turn cleanly, with what we have
            log.exception("provider_stream_crashed", provider=turn.llm_request.provider)
            record.fail()
            yield ErrorEvent("internal_error", "the answer stopped unexpectedly")

    def _on_tool(
        self,
        chunk: Tool,
        record: TurnRecord,
        population: list[asyncio.Task[list[ResolvedConcept]]],
    ) -> None:
        if chunk.name != CAPTURE_TOOL_NAME:
            record.warnings.append(TurnWarning("unknown_tool", f"ignored tool {chunk.name!r}"))
            return
        try:
            concepts = parse_capture_payload(chunk.args)
        except RegintelError as exc:
            record.warnings.append(TurnWarning(exc.code, exc.message))
            return
        if not population:  # one capture per turn; a second tool call is ignored
            task = self._spawn(self._population.resolve_all(concepts), log_failure=False)
            task.add_done_callback(lambda t: self._retry.on_population_done(t, concepts))
            population.append(task)

    async def _await_population(
        self, population: list[asyncio.Task[list[ResolvedConcept]]], record: TurnRecord
    ) -> list[ResolvedConcept]:
        if not population:
            return []
        task = population[0]
        done, _ = await asyncio.wait({task}, timeout=self._limits.graph_write_timeout)
        if not done:
            record.warnings.append(
                TurnWarning("graph_write_pending", "concept capture is still being written")
            )
            return []
        exc = task.exception()
        if exc is None:
            return task.result()
        code = exc.code if isinstance(exc, RegintelError) else "graph_write_failed"
        message = exc.message if isinstance(exc, RegintelError) else "concept capture failed"
        record.warnings.append(TurnWarning(code, message))
        return []

    async def _save(self, turn: PreparedTurn, record: TurnRecord) -> None:
        answer = record.answer
        answer_sanitised = (
            (await self._egress.sanitise_message(turn.ctx, answer)).text if answer else ""
        )
        await self._store.save_turn(
            turn.request.tenant_id,
            turn.conversation_id,
            [
                NewMessage(role="user", content=turn.message, content_sanitised=turn.question),
                NewMessage(
                    role="assistant",
                    content=answer,
                    content_sanitised=answer_sanitised,
                    status=record.status,
                    referenced_nodes=list(record.referenced),
                ),
            ],
            ConversationContext(active_node_ids=list(record.referenced)),
            max_active_nodes=self._limits.max_active_nodes,
        )

    def _spawn(self, work: Awaitable[Any], *, log_failure: bool = True) -> asyncio.Task[Any]:
        """A background task that :meth:`aclose` waits for (saves and graph writes)."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        if log_failure:
            task.add_done_callback(_log_failure)
        return task


def _reason(evidence: Evidence) -> str:
    reason = evidence.verdict.reason
    return reason.value if reason is not None else "no_evidence"


def _history_message(stored: StoredMessage, unsanitised: bool) -> ChatMessage:
    """A stored message as prompt history: its sanitised text was sanitised when it was stored,
    so it carries that mark; in ``off`` the original goes, unmarked (egress sends it as is)."""
    if unsanitised:
        return ChatMessage(role=stored.role, content=stored.content)
    return SanitisedText(text=stored.content_sanitised).as_message(stored.role)


def _concept_data(resolved: ResolvedConcept) -> dict[str, Any]:
    return {
        "id": resolved.id,
        "prefLabel": resolved.pref_label,
        "status": resolved.status,
        "created": resolved.created,
        "matchedBy": resolved.matched_by,
        "alignedWith": list(resolved.aligned_with),
    }


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("background_task_failed", error=repr(task.exception()))
