"""One chat turn, DESIGN.md steps 2–10, in two steps: :meth:`ChatEngine.prepare` then
:meth:`ChatEngine.stream`.

``prepare`` does everything that may refuse the request — validation, the egress mode (a
refused ``off`` is a 403), the conversation lookup (another tenant's id, and another user's
private conversation, is a 404; another user's shared conversation is read-only, a 403) — and
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
- The question is stored, with an empty answer marked ``streaming``, at the end of
  ``prepare``: before the model is called. The answer is written as it streams, at a bounded
  rate, and finished exactly once by its :class:`TurnRecord`, whatever happens after the
  stream started (ADR 0010, ADR 0018). A killed process keeps the question and the answer so
  far, which reads as ``interrupted``.

Traces (ADR 0028; a no-op tracer unless tracing is on): ``turn.retrieval`` in ``prepare``;
in ``stream``, the router's ``turn.provider`` spans (each with its ``turn.egress``),
``turn.capture`` (a task: it ends when the write does, also after the answer) and
``turn.save``, children of the span current when ``stream`` runs (``turn.stream``, see
:class:`infra.metrics.MeteredChatEngine`). Spans carry counts and closed sets, never text or
ids (:mod:`infra.spans`).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from typing import Any, Protocol

import structlog
from opentelemetry.context import Context
from opentelemetry.trace import NoOpTracer, Tracer

from conversations.models import ConversationContext, NewMessage, StoredMessage
from conversations.port import ConversationStore
from egress.client import EgressContext
from egress.policy import EgressMode
from egress.sanitiser import SanitisedText
from egress.wire import ChatMessage, Done, Error, LlmRequest, StreamChunk, Text, Tool
from engine.as_at import AsAt, resolve_as_at
from engine.capture_repair import CaptureRepair
from engine.capture_screen import forbidden_terms, screen_concepts
from engine.concepts import (
    CAPTURE_TOOL,
    CAPTURE_TOOL_NAME,
    CapturedConcept,
    parse_capture_payload,
)
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
from engine.evidence import Evidence, EvidenceHit, EvidenceIndex, describe
from engine.evidence_cache import EvidenceCache
from engine.graph_retry import GraphWriteRetry
from engine.grounding import ground_answer, refusal_sentence
from engine.lexicon import ConceptLexicon
from engine.lexicon_capture import lexicon_concepts
from engine.metrics import EngineCounters
from engine.prompt import ASPECTS, Aspect, PromptInputs, build_messages, detect_jurisdictions
from engine.router import LlmRouter
from engine.self_population import ResolvedConcept, SelfPopulation
from engine.timeline import TimelineRule, compute, concerns_timeline
from engine.turn_record import TurnRecord
from errors import ConversationReadOnly, InvalidInput, RegintelError
from graph.models import utc_timestamp
from infra.spans import stage, turn_tracing

__all__ = [
    "ChatEngine",
    "ChatLimits",
    "EgressGateway",
    "PreparedTurn",
    "TurnRequest",
    "conversation_jurisdictions",
]

log = structlog.get_logger(__name__)


class EgressGateway(Protocol):
    """What the engine needs of :class:`egress.client.EgressClient`."""

    def stream(
        self, request: LlmRequest, ctx: EgressContext
    ) -> AsyncGenerator[StreamChunk, None]: ...

    async def sanitise_message(self, ctx: EgressContext, text: str) -> SanitisedText: ...

    async def effective_mode(
        self, ctx: EgressContext, *, task: str = ..., provider: str = ..., model: str = ...
    ) -> EgressMode: ...

    async def bind_policy(
        self, ctx: EgressContext, *, task: str = ..., provider: str = ..., model: str = ...
    ) -> EgressContext: ...


@dataclass(frozen=True)
class TurnRequest:
    tenant_id: str
    user_id: str
    message: str
    conversation_id: str | None = None
    egress_mode: EgressMode | None = None  # the per-call override the client asked for
    as_at: date | None = None  # the request's ``asAt``; a date in the question wins (ADR 0032)


@dataclass(frozen=True)
class ChatLimits:
    max_message_chars: int = 8000
    history_messages: int = 8
    evidence_k: int = 6
    max_active_nodes: int = 40
    graph_write_timeout: float = 2.0
    answer_write_interval: float = 0.25  # at most one checkpoint of a streaming answer per …
    answer_write_min_chars: int = 64  # … and only once this much new text arrived, or
    answer_keepalive: float = 10.0  # … this often regardless (a third of the store's lease)


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
    answer_id: str  # the assistant message, saved ``streaming`` before the model is called
    as_at: AsAt | None = None  # the window the evidence was in force in
    # Material changes of the conversation's active nodes since its last turn (ADR 0035).
    changed: list[dict[str, str]] = field(default_factory=list)
    # The turn's trace (its ``turn`` span), carried from prepare to stream; None untraced.
    trace: Context | None = field(default=None, compare=False, repr=False)


@dataclass
class _CaptureState:
    """The capture side of one turn, besides the graph task itself."""

    tool_seen: bool = False
    answer_only: bool = False  # the provider ran without tools (Done.answer_only)
    malformed: tuple[Any, str] | None = None  # arguments and error, awaiting the one repair
    forbidden: frozenset[str] = frozenset()  # the tenant's and user's ids: never a label
    jurisdictions: tuple[str, ...] = ()  # the turn's: a capture never guesses another
    drops: Counter[str] = field(default_factory=Counter)  # what the capture screen removed


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
        counters: EngineCounters | None = None,
        today: Callable[[], date] | None = None,
        tracer: Tracer | None = None,
        evidence_cache_entries: int = 256,
    ) -> None:
        self._store = store
        self._egress = egress
        self._router = router
        self._evidence = evidence
        self._population = population
        self._retry = retry
        self._lexicon = lexicon
        self.counters = counters or EngineCounters()
        self._repair = CaptureRepair(egress, router, self.counters)
        self._limits = limits or ChatLimits()
        self._aspects = tuple(aspects)
        self._evidence_cache = EvidenceCache(evidence_cache_entries)
        self._background: set[asyncio.Task[Any]] = set()
        self._today = today or (lambda: datetime.now(UTC).date())
        self._tracer = tracer or NoOpTracer()

    async def aclose(self) -> None:
        """Let background saves and graph writes finish (they must not be lost)."""
        while self._background:  # a task may leave another (a late capture's context)
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
        route = self._router.route("main_chat", tenant)
        # The mode first: a refused "off" is a 403 that must not leave an empty conversation
        # (egress audits the refusal). The policies are read here once and travel with the
        # turn's context to every egress call of the turn (ADR 0029, second pass).
        bound = await self._egress.bind_policy(
            EgressContext(tenant, request.user_id, request.conversation_id or "", override),
            task="main_chat",
            provider=route.provider,
            model=route.model,
        )
        mode = await self._egress.effective_mode(bound)  # from the bound policies: no read
        user = request.user_id
        if request.conversation_id:
            # The conversation, its history and its context: one transaction (ADR 0029).
            # Another user's private conversation is a 404, one they shared is read-only.
            state = await store.load_turn(
                tenant, request.conversation_id, self._limits.history_messages, user_id=user
            )
            conversation, context = state.conversation, state.context
            if conversation.user_id != user:
                raise ConversationReadOnly("only its owner may post into a shared conversation")
            # another turn's answer still streaming is not history yet
            history = [m for m in state.history if m.status != "streaming"]
        else:  # a conversation created just now has no history and an empty context
            conversation = await store.create_conversation(tenant, user)
            history, context = [], ConversationContext()
        ctx = replace(bound, conversation_id=conversation.id)
        sanitised = await self._egress.sanitise_message(ctx, message)
        history = await self._sanitise_interrupted(ctx, history)
        # Sanitised once, when stored; "off" (only where the tenant allows it) sends originals.
        unsanitised = mode is EgressMode.OFF
        jurisdictions = conversation_jurisdictions(message, history)
        with stage("turn.retrieval", tracer=self._tracer) as span:
            # The date the question is about (or the request's asAt, or today): evidence is
            # what was in force then; the words that named it are not searched for (ADR 0032).
            as_at = resolve_as_at(
                sanitised.text,
                request.as_at,
                self._today(),
                jurisdictions,
                self._evidence.act_start,
            )
            query = as_at.without_date(sanitised.text)
            focus = self._named_concepts(query, jurisdictions)
            window = as_at.window()
            k = self._limits.evidence_k
            # The same question against the same index finds the same evidence: kept per
            # tenant until the index changes (engine.evidence_cache, ADR 0029 third pass).
            evidence = self._evidence_cache.search(
                self._evidence.generation, tenant, query, k, jurisdictions, focus, window,
                lambda: self._evidence.search(query, k, jurisdictions, focus, as_at=window),
            )  # fmt: skip
            span.set_attributes({
                "regintel.evidence.hits": len(evidence.hits),
                "regintel.evidence.answerable": evidence.answerable,
                "regintel.evidence.jurisdictions": len(jurisdictions),
                "regintel.as_at.origin": as_at.origin,
            })  # fmt: skip
        refusal = None if evidence.answerable else refusal_sentence(evidence.verdict)
        if refusal is not None:  # the gate decided: nothing is evidence, the model is told so
            evidence = Evidence(hits=[], verdict=evidence.verdict)
        computed = self._computed_dates(message, evidence, as_at)
        changed = self._changed_since_last_turn(context.active_node_ids, history)
        await self._evidence.ensure_known(context.active_node_ids)  # written by another worker?
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
                as_at=as_at.label(),
                as_at_named=as_at.origin != "today",
                computed=computed,
                changed=[(c["nodeId"], c["description"]) for c in changed],
            ),
            self._aspects,
        )
        # The question is kept before the model is called (a crash keeps it); the answer is
        # written as it streams (ADR 0018). One transaction: both or nothing.
        _, answer = await store.save_turn(
            tenant,
            conversation.id,
            [
                NewMessage(role="user", content=message, content_sanitised=sanitised.text),
                NewMessage(role="assistant", content="", content_sanitised="", status="streaming"),
            ],
            ConversationContext(),
            user_id=user,
            max_active_nodes=self._limits.max_active_nodes,
        )
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
            answer_id=answer.id,
            as_at=as_at,
            changed=changed,
        )

    def _changed_since_last_turn(
        self, active: Sequence[str], history: Sequence[StoredMessage]
    ) -> list[dict[str, str]]:
        """Material changes (ADR 0035) of the nodes the conversation relied on, recorded after
        its last stored message; from the in-memory index (nothing here waits on the graph)."""
        if not active or not history:
            return []
        last = max(m.created_at for m in history)
        since = utc_timestamp(last if last.tzinfo else last.replace(tzinfo=UTC))
        return [
            {"nodeId": str(event.properties.get("change_of") or ""), "changeId": event.id,
             "description": str(event.properties.get("description") or ""),
             "at": str(event.properties.get("created_at") or "")}
            for event in self._evidence.changes_since(active, since)
        ]  # fmt: skip

    def _computed_dates(
        self, question: str, evidence: Evidence, as_at: AsAt
    ) -> list[tuple[str, str]]:
        """Dates the timeline engine computes from the evidence's ``Timeline`` rules (and the
        rules its nodes ``HAS_TIMELINE``), at the turn's date, for a question about a timeline
        (ADR 0033). The rules join the evidence, so the answer may cite them."""
        if not evidence.hits or not concerns_timeline(question):
            return []
        computed: list[tuple[str, str]] = []
        known = set(evidence.ids())
        for node in self._evidence.timelines_of(evidence.ids())[:3]:
            rule = TimelineRule.from_node(node.id, dict(node.properties))
            if rule is None:
                continue
            computed.append((node.id, compute(rule, as_at.start).text))
            if node.id not in known:
                evidence.hits.append(EvidenceHit(node=node, text=describe(node), score=0.0))
                known.add(node.id)
        return computed

    async def stream(self, turn: PreparedTurn) -> AsyncGenerator[TurnEvent, None]:
        """Stream the answer of a prepared turn; saved exactly once by its :class:`TurnRecord`."""
        population: list[asyncio.Task[list[ResolvedConcept]]] = []
        capture = _CaptureState(
            forbidden=forbidden_terms((turn.request.tenant_id, turn.request.user_id)),
            jurisdictions=tuple(turn.jurisdictions),
        )
        limits = self._limits
        record = TurnRecord(
            save=lambda r: self._save(turn, r),
            spawn=self._spawn,
            checkpoint=lambda r: self._checkpoint(turn, r),
            write_interval=limits.answer_write_interval,
            write_min_chars=limits.answer_write_min_chars,
            keepalive=limits.answer_keepalive,
        )
        async with record:
            window = turn.as_at
            yield MetadataEvent(
                turn.conversation_id,
                turn.jurisdictions,
                turn.evidence.ids(),
                as_at=None
                if window is None
                else {"from": window.start.isoformat(), "to": window.end.isoformat(),
                      "origin": window.origin},
                changed=turn.changed,
            )  # fmt: skip
            # The router and egress open their spans with this turn's tracer (infra.spans).
            with turn_tracing(self._tracer):
                events = self._provider_events(turn, record, population, capture)
                async with aclosing(events) as provider_events:
                    async for event in provider_events:
                        yield event
                await self._finish_capture(turn, record, population, capture)
            if capture.drops:  # counts only: the dropped text is chat, never repeated
                counts = ", ".join(f"{k} {n}" for k, n in sorted(capture.drops.items()))
                record.warnings.append(TurnWarning("capture_screened", f"dropped: {counts}"))
            resolved = await self._await_population(population, record, turn)
            if resolved:
                yield ConceptsEvent([_concept_data(r) for r in resolved])
            for warning in record.warnings:
                yield WarningEvent(warning)
            days = turn.as_at.window() if turn.as_at is not None else None
            grounding = ground_answer(
                record.answer,
                turn.evidence,
                self._evidence.get,
                lambda node_id: self._evidence.conflicts_of(node_id, days),
            )
            if grounding.rejected:
                # A model citing what this turn did not retrieve: say so, never pass it on.
                warning = TurnWarning(
                    "unknown_citation",
                    f"cited ids not in this turn's evidence: {grounding.rejected}",
                )
                record.warnings.append(warning)
                yield WarningEvent(warning)
            record.grounding = grounding
            kept = [r.id for r in resolved if r.skipped is None]  # a skipped one is not a node
            record.complete(list(dict.fromkeys([*grounding.cited, *kept])))
        if record.save_error is not None:
            exc = record.save_error
            if isinstance(exc, RegintelError):
                saved = f"the conversation could not be saved: {exc.public_message}"
                yield ErrorEvent(exc.code, saved)
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
            capture_pending=record.capture_pending,
        )

    async def _sanitise_interrupted(
        self, ctx: EgressContext, history: list[StoredMessage]
    ) -> list[StoredMessage]:
        """History with each ``interrupted`` answer sanitised now. Its process died before the
        final save, and checkpoints store no sanitised form (ADR 0038); every other message was
        sanitised once, when it was stored."""
        for n, stored in enumerate(history):
            if stored.status == "interrupted" and stored.content:
                text = (await self._egress.sanitise_message(ctx, stored.content)).text
                history[n] = stored.model_copy(update={"content_sanitised": text})
        return history

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
        capture: _CaptureState,
    ) -> AsyncGenerator[TurnEvent, None]:
        upstream = self._router.stream(self._egress, turn.llm_request, turn.ctx)
        try:
            async with aclosing(upstream) as chunks:
                async for chunk in chunks:
                    if isinstance(chunk, Text):
                        record.add_text(chunk.delta)
                        yield TextEvent(chunk.delta)
                    elif isinstance(chunk, Tool):
                        capture.tool_seen = True
                        self._on_tool(chunk, record, population, capture)
                    elif isinstance(chunk, Error):
                        record.fail()
                        yield ErrorEvent(chunk.code, chunk.error)
                        return
                    elif isinstance(chunk, Done):
                        capture.answer_only = chunk.answer_only
                        record.usage = {
                            "inputTokens": chunk.usage.input_tokens,
                            "outputTokens": chunk.usage.output_tokens,
                        }
        except RegintelError as exc:  # e.g. EgressBlocked: nothing was sent
            record.fail()
            yield ErrorEvent(exc.code, exc.public_message)
        except RecursionError:
            # A provider parsing absurdly nested tool arguments (json.loads recurses): the
            # answer is whole, only the capture is unreadable. Reject it like any invalid
            # capture; the turn completes.
            log.warning("tool_arguments_too_deep", provider=turn.llm_request.provider)
            record.warnings.append(
                TurnWarning("malformed_tool_payload", "tool arguments are nested too deeply")
            )
        except Exception:  # a provider bug must still end the turn cleanly, with what we have
            log.exception("provider_stream_crashed", provider=turn.llm_request.provider)
            record.fail()
            yield ErrorEvent("internal_error", "the answer stopped unexpectedly")

    def _on_tool(
        self,
        chunk: Tool,
        record: TurnRecord,
        population: list[asyncio.Task[list[ResolvedConcept]]],
        capture: _CaptureState | None = None,
    ) -> None:
        if chunk.name != CAPTURE_TOOL_NAME:
            record.warnings.append(TurnWarning("unknown_tool", f"ignored tool {chunk.name!r}"))
            return
        try:
            concepts = parse_capture_payload(chunk.args)
        except RegintelError as exc:
            if capture is not None and capture.malformed is None and not population:
                capture.malformed = (chunk.args, exc.message)  # one repair, after the answer
            else:
                record.warnings.append(TurnWarning(exc.code, exc.message))
            return
        self._capture(concepts, population, capture)

    def _capture(
        self,
        concepts: list[CapturedConcept],
        population: list[asyncio.Task[list[ResolvedConcept]]],
        capture: _CaptureState | None = None,
    ) -> None:
        if capture is not None:  # labels are vocabulary, not chat (ADR 0017)
            concepts = screen_concepts(concepts, forbidden=capture.forbidden, drops=capture.drops)
        if not population and concepts:  # one capture per turn; a second tool call is ignored
            known = capture.jurisdictions if capture is not None else None
            task = self._spawn(self._resolve_captured(concepts, known), log_failure=False)
            task.add_done_callback(lambda t: self._retry.on_population_done(t, concepts, known))
            population.append(task)

    async def _resolve_captured(
        self, concepts: list[CapturedConcept], known: Sequence[str] | None
    ) -> list[ResolvedConcept]:
        """Self-population of one capture, in its own task: its span ends when the write does,
        after the answer if it outlives it (the task copied the turn's trace context)."""
        with stage(
            "turn.capture", {"regintel.capture.concepts": len(concepts)}, tracer=self._tracer
        ) as span:
            resolved = await self._population.resolve_all(concepts, known)
            span.set_attributes({
                "regintel.capture.resolved": sum(r.skipped is None for r in resolved),
                "regintel.capture.created": sum(r.created for r in resolved),
                "regintel.capture.skipped": sum(r.skipped is not None for r in resolved),
            })  # fmt: skip
            return resolved

    async def _finish_capture(
        self,
        turn: PreparedTurn,
        record: TurnRecord,
        population: list[asyncio.Task[list[ResolvedConcept]]],
        capture: _CaptureState,
    ) -> None:
        """After the answer: the one repair call of a malformed capture, or, for a provider
        that ran answer-only, the lexicon's capture from the question and the answer."""
        if capture.malformed is not None and not population:
            args, error = capture.malformed
            route = (turn.llm_request.provider, turn.llm_request.model)
            outcome = await self._repair.repair(turn.ctx, turn.question, args, error, route)
            if isinstance(outcome, TurnWarning):
                record.warnings.append(outcome)
            else:
                self._capture(outcome, population, capture)
        elif capture.answer_only and not capture.tool_seen and self._lexicon is not None:
            found = lexicon_concepts(
                self._lexicon, f"{turn.question}\n{record.answer}", turn.jurisdictions
            )
            if found:
                self.counters.inc("answer_only_captures")
                self._on_tool(Tool(CAPTURE_TOOL_NAME, {"concepts": found}), record, population)

    async def _await_population(
        self,
        population: list[asyncio.Task[list[ResolvedConcept]]],
        record: TurnRecord,
        turn: PreparedTurn,
    ) -> list[ResolvedConcept]:
        if not population:
            return []
        task = population[0]
        done, _ = await asyncio.wait({task}, timeout=self._limits.graph_write_timeout)
        if not done:
            # Not lost: the write goes on in the background and, when it ends, its concepts
            # join the conversation's context (the next turn sees them); done says so.
            record.capture_pending = True
            task.add_done_callback(lambda t: self._late_capture(turn, t))
            record.warnings.append(
                TurnWarning("graph_write_pending", "concept capture is still being written")
            )
            return []
        exc = task.exception()
        if exc is None:
            return task.result()
        code = exc.code if isinstance(exc, RegintelError) else "graph_write_failed"
        message = exc.public_message if isinstance(exc, RegintelError) else "concept capture failed"
        record.warnings.append(TurnWarning(code, message))
        return []

    def _late_capture(self, turn: PreparedTurn, task: asyncio.Task[list[ResolvedConcept]]) -> None:
        """A capture that outlived its turn ended: its concepts join the conversation's
        context (a failed one is the retry's, :class:`GraphWriteRetry`)."""
        if task.cancelled() or task.exception() is not None:
            return
        ids = [r.id for r in task.result() if r.skipped is None]
        if not ids:
            return
        self.counters.inc("late_captures")
        self._spawn(self._save_late_context(turn, ids))

    async def _save_late_context(self, turn: PreparedTurn, ids: list[str]) -> None:
        with stage("turn.save", {"regintel.save.part": "context"}, tracer=self._tracer):
            await self._store.save_turn(
                turn.request.tenant_id,
                turn.conversation_id,
                [],  # no message: the context update alone, merged like a turn's
                ConversationContext(active_node_ids=ids),
                user_id=turn.request.user_id,
                max_active_nodes=self._limits.max_active_nodes,
            )

    async def _checkpoint(self, turn: PreparedTurn, record: TurnRecord) -> None:
        """The answer so far, as the user saw it. No sanitised form and no PII scan: the final
        save writes it; an answer that never gets there is sanitised when it is next read as
        history (``_sanitise_interrupted``, ADR 0038)."""
        await self._store.checkpoint_answer(
            turn.request.tenant_id,
            turn.conversation_id,
            turn.answer_id,
            record.answer,
            "",
            user_id=turn.request.user_id,
        )

    async def _save(self, turn: PreparedTurn, record: TurnRecord) -> None:
        attributes = {
            "regintel.save.part": "answer",
            "regintel.turn.status": record.status,
            "regintel.save.checkpoints": record.checkpoints,
        }
        with stage("turn.save", attributes, tracer=self._tracer):
            await self._save_answer(turn, record)

    async def _save_answer(self, turn: PreparedTurn, record: TurnRecord) -> None:
        answer = record.answer
        answer_sanitised = (
            (await self._egress.sanitise_message(turn.ctx, answer)).text if answer else ""
        )
        finished = await self._store.finish_answer(
            turn.request.tenant_id,
            turn.conversation_id,
            turn.answer_id,
            NewMessage(
                role="assistant",
                content=answer,
                content_sanitised=answer_sanitised,
                status=record.status,
                referenced_nodes=list(record.referenced),
            ),
            ConversationContext(active_node_ids=list(record.referenced)),
            user_id=turn.request.user_id,
            max_active_nodes=self._limits.max_active_nodes,
        )
        if not finished:  # only an operator's hand could have finished it: say so, keep going
            log.warning("answer_already_finished", conversation_id=turn.conversation_id)

    def _spawn(self, work: Awaitable[Any], *, log_failure: bool = True) -> asyncio.Task[Any]:
        """A background task that :meth:`aclose` waits for (saves and graph writes)."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        if log_failure:
            task.add_done_callback(_log_failure)
        return task


def conversation_jurisdictions(message: str, history: Sequence[StoredMessage]) -> list[str]:
    """The jurisdictions this turn is about: those the message names, else those the latest
    earlier question of the conversation named ("And the reduced rate?" after "VAT in Ireland"
    stays Irish). None named anywhere: none, never a default (ADR 0023)."""
    if found := detect_jurisdictions(message):
        return found
    for stored in reversed(history):
        if stored.role == "user" and (found := detect_jurisdictions(stored.content_sanitised)):
            return found
    return []


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
    data: dict[str, Any] = {
        "id": resolved.id,
        "prefLabel": resolved.pref_label,
        "status": resolved.status,
        "created": resolved.created,
        "matchedBy": resolved.matched_by,
        "alignedWith": list(resolved.aligned_with),
    }
    if resolved.skipped is not None:  # nothing written: out_of_coverage, ... (ADR 0023)
        data["skipped"] = resolved.skipped
    return data


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("background_task_failed", error=repr(task.exception()))
