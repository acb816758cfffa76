"""One chat turn (docs/architecture.md, "One chat turn") in two steps: :meth:`ChatEngine.prepare`
then :meth:`ChatEngine.stream`.

``prepare`` (:mod:`engine.turn.prepare`, its steps and their order in its docstring) does
everything that may refuse the request — validation, the egress mode (a refused ``off`` is a
403), the conversation lookup (another tenant's id, and another user's private conversation, is
a 404; another user's shared conversation is read-only, a 403) — and raises
:class:`errors.RegintelError` before any event exists, so the API turns it into a plain 4xx.
``stream`` never raises for an expected failure: a provider error, an egress block at send time
or a failed save become ``error`` events followed by ``done``.

Ordering that matters:

- Before the first token, the awaits are the conversation store, the egress sanitiser and one
  graph read by id, made only when the conversation's active concepts are unknown to this
  worker's index (``TurnPreparer.know_active_concepts``, ADR 0042); evidence and descriptions
  come from the in-memory :class:`EvidenceIndex`.
- The capture (:class:`engine.turn.capture.CaptureCoordinator`) starts self-population as a
  task the moment the ``capture_concepts`` tool arrives; it is awaited after the text, for at
  most ``graph_write_timeout``. A slower write becomes a warning and goes on in the background;
  a failed one is retried by :class:`GraphWriteRetry`.
- The question is stored, with an empty answer marked ``streaming``, at the end of
  ``prepare``: before the model is called. The answer is written as it streams, at a bounded
  rate, and finished exactly once by its :class:`TurnRecord` through the turn's
  :class:`TurnWrites`, whatever happens after the stream started (ADR 0010, ADR 0018). A killed
  process keeps the question and the answer so far, which reads as ``interrupted``.

Traces (ADR 0028; a no-op tracer unless tracing is on): ``turn.retrieval`` in ``prepare``;
in ``stream``, the router's ``turn.provider`` spans (each with its ``turn.egress``),
``turn.capture`` (a task: it ends when the write does, also after the answer) and
``turn.save``, children of the span current when ``stream`` runs (``turn.stream``, see
:class:`api.metering.MeteredTurns`). Spans carry counts and closed sets, never text or ids
(:mod:`infra.spans`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from datetime import UTC, date, datetime
from typing import Any, Protocol, TypeVar

import structlog
from opentelemetry.trace import NoOpTracer, Tracer

from conversations.models import MessageStatus
from conversations.port import TurnStore
from egress.wire import Done, Error, Text, Tool
from engine.events import (
    ConceptsEvent,
    DoneEvent,
    ErrorEvent,
    MetadataEvent,
    ProgressEvent,
    TextEvent,
    TurnEvent,
    TurnWarning,
    WarningEvent,
)
from engine.evidence import Evidence, EvidenceIndex
from engine.graph_retry import GraphWriteRetry
from engine.grounding import ground_answer
from engine.lexicon import ConceptLexicon
from engine.metrics import EngineCounters
from engine.model_summary import ModelSummariser
from engine.prompt import ASPECTS, Aspect
from engine.router import LlmRouter, Route
from engine.self_population import ResolvedConcept, SelfPopulation
from engine.turn.cancel import CancelFlag, RunningTurns
from engine.turn.capture import CaptureCoordinator, CaptureParts, CaptureRepair
from engine.turn.prepare import ChatLimits, EgressGateway, PreparedTurn, TurnPreparer, TurnRequest
from engine.turn.record import TurnRecord
from engine.turn.what_if import WhatIfStep
from engine.turn.writes import TurnWrites
from errors import RegintelError
from infra.lifetime import Lifetime
from infra.spans import turn_tracing

__all__ = ["ChatEngine", "TurnEngine", "run_turn"]

log = structlog.get_logger(__name__)

T = TypeVar("T")


class TurnEngine(Protocol):
    """A chat turn as the API drives it: prepare (may refuse), then stream; ``aclose`` waits
    for the turn's background work, and the engine refuses new turns after it.
    :class:`ChatEngine` is one; the API's metering wraps one."""

    @property
    def counters(self) -> EngineCounters:
        """The engine's process-wide counters (repairs, fallbacks, late captures)."""
        ...

    async def prepare(self, request: TurnRequest) -> PreparedTurn: ...

    async def store_refused(self, request: TurnRequest, status: MessageStatus) -> str:
        """Store the question of a turn refused before :meth:`prepare` (the quota, ADR 0050)
        with ``status`` and no answer; its conversation's id. Nothing is sent."""
        ...

    def stream(self, turn: PreparedTurn) -> AsyncGenerator[TurnEvent, None]: ...

    def run_turn(self, request: TurnRequest) -> AsyncGenerator[TurnEvent, None]: ...

    async def aclose(self) -> None: ...


async def run_turn(engine: TurnEngine, request: TurnRequest) -> AsyncGenerator[TurnEvent, None]:
    """``engine.prepare`` then ``engine.stream``, for callers that need no status code (CLI)."""
    prepared = await engine.prepare(request)
    async with aclosing(engine.stream(prepared)) as events:
        async for event in events:
            yield event


class ChatEngine:
    def __init__(
        self,
        *,
        store: TurnStore,
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
        what_if: WhatIfStep | None = None,
        summariser: ModelSummariser | None = None,
        running: RunningTurns | None = None,
    ) -> None:
        self._store = store
        self._summariser = summariser
        # the turns streaming here, for an erasure to cancel (engine.turn.cancel)
        self.running = running or RunningTurns()
        self._egress = egress
        self._router = router
        self._evidence = evidence
        self.counters = counters or EngineCounters()
        self._limits = limits or ChatLimits()
        self._background: set[asyncio.Task[Any]] = set()
        self._lifetime = Lifetime("the chat engine")
        self._tracer = tracer or NoOpTracer()
        self._preparer = TurnPreparer(
            store=store,
            egress=egress,
            router=router,
            evidence=evidence,
            lexicon=lexicon,
            limits=self._limits,
            aspects=aspects,
            today=today or (lambda: datetime.now(UTC).date()),
            tracer=self._tracer,
            evidence_cache_entries=evidence_cache_entries,
            what_if=what_if,
        )
        self._capture = CaptureParts(
            population=population,
            retry=retry,
            repair=CaptureRepair(egress, router, self.counters),
            lexicon=lexicon,
            counters=self.counters,
            tracer=self._tracer,
            write_timeout=self._limits.graph_write_timeout,
        )

    async def aclose(self) -> None:
        """Refuse new turns, and let background saves and graph writes finish (they must not
        be lost). Afterwards :meth:`prepare` and :meth:`stream` raise
        :class:`errors.AdapterClosed`; a turn already streaming finishes."""
        self._lifetime.close()
        while self._background:  # a task may leave another (a late capture's context)
            await asyncio.gather(*self._background, return_exceptions=True)

    def run_turn(self, request: TurnRequest) -> AsyncGenerator[TurnEvent, None]:
        """:meth:`prepare` then :meth:`stream`, for callers that need no status code (CLI)."""
        return run_turn(self, request)

    async def prepare(self, request: TurnRequest) -> PreparedTurn:
        """Validate, resolve the egress mode, load the conversation, find the evidence, build
        the prompt and store the question (:mod:`engine.turn.prepare`).

        Raises :class:`errors.InvalidInput`, :class:`errors.EgressBlocked` (a refused ``off``),
        :class:`errors.NotFound` (unknown or another tenant's conversation) or a store error;
        nothing has been sent or saved when it does; :class:`errors.AdapterClosed` after
        :meth:`aclose`.
        """
        self._lifetime.check()
        return await self._preparer.prepare(request)

    async def store_refused(self, request: TurnRequest, status: MessageStatus) -> str:
        """The question of a turn refused before :meth:`prepare` (a tenant past its hard
        quota), stored alone with ``status`` (:meth:`TurnPreparer.store_refused`)."""
        self._lifetime.check()
        return await self._preparer.store_refused(request, status)

    async def stream(self, turn: PreparedTurn) -> AsyncGenerator[TurnEvent, None]:
        """Stream the answer of a prepared turn; saved exactly once by its :class:`TurnRecord`.
        Raises :class:`errors.AdapterClosed` after :meth:`aclose`, before anything is sent."""
        self._lifetime.check()
        limits = self._limits
        writes = TurnWrites(
            turn,
            store=self._store,
            egress=self._egress,
            tracer=self._tracer,
            max_active_nodes=limits.max_active_nodes,
        )
        record = TurnRecord(
            save=writes.finish,
            spawn=self._spawn,
            checkpoint=writes.checkpoint,
            write_interval=limits.answer_write_interval,
            write_min_chars=limits.answer_write_min_chars,
            keepalive=limits.answer_keepalive,
        )
        capture = CaptureCoordinator(
            self._capture,
            turn,
            spawn=self._spawn,
            warnings=record.warnings,
            late_context=writes.late_context,
        )
        async with record:
            window = turn.as_at
            yield MetadataEvent(
                turn.conversation_id,
                turn.jurisdictions,
                turn.evidence.ids(),
                as_at=None
                if window is None
                else {
                    "from": window.start.isoformat(),
                    "to": window.end.isoformat(),
                    "origin": window.origin,
                },
                changed=turn.changed,
            )
            yield ProgressEvent("retrieval", {"hits": len(turn.evidence.ids())})
            # The router and egress open their spans with this turn's tracer (infra.spans).
            request = turn.request
            with (
                turn_tracing(self._tracer),
                self.running.track(
                    request.tenant_id, request.user_id, turn.conversation_id
                ) as erased,
            ):
                yield ProgressEvent("prompt_sent")
                yield ProgressEvent("waiting_for_model")
                events = self._provider_events(turn, record, capture, erased)
                async with aclosing(events) as provider_events:
                    async for event in provider_events:
                        yield event
                if (
                    turn.summary_job is not None
                    and self._summariser is not None
                    and not erased.cancelled
                ):
                    # the summary this turn stored, by a configured model: in the background,
                    # after the model's answer, waited for by nobody but aclose (ADR 0065)
                    self._spawn(self._summariser.summarise(turn.ctx, turn.summary_job))
                if capture.started:
                    yield ProgressEvent("capture")
                resolved = await capture.finish(record.answer, answer_only=record.answer_only)
            record.capture_pending = capture.pending
            if resolved:
                own = frozenset(turn.active)
                yield ConceptsEvent([_concept_data(r, own) for r in resolved])
            for warning in record.warnings:
                yield WarningEvent(warning)
            record.warnings[:0] = record.told  # told as they happened: in `done` too, first
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
            scenario=turn.scenario,
        )

    async def _provider_events(
        self,
        turn: PreparedTurn,
        record: TurnRecord,
        capture: CaptureCoordinator,
        erased: CancelFlag,
    ) -> AsyncGenerator[TurnEvent, None]:
        """The model's stream as turn events: text into the record, tool calls to the capture,
        ``Done``'s usage into the record (and whether the provider ran answer-only). Its
        conversation erased meanwhile (``erased``): the upstream call is closed and the turn
        ends with an error, saving nothing more."""
        fallbacks: list[TurnWarning] = []

        def fell_back(route: Route, after: str) -> None:
            answered = f"{route.provider}:{route.model}"
            fallbacks.append(
                TurnWarning("llm_fallback", f"answered by the fallback route {answered} ({after})")
            )

        upstream = self._router.stream(self._egress, turn.llm_request, turn.ctx, fell_back)
        try:
            async with aclosing(upstream) as chunks:
                async for chunk in chunks:
                    if erased.cancelled:  # leaving closes the upstream call (aclosing)
                        record.fail()
                        yield ErrorEvent("conversation_erased", _ERASED)
                        return
                    while fallbacks:  # said before the fallback route's first chunk
                        warning = fallbacks.pop(0)
                        record.told.append(warning)
                        yield WarningEvent(warning)
                    if isinstance(chunk, Text):
                        record.add_text(chunk.delta)
                        yield TextEvent(chunk.delta)
                    elif isinstance(chunk, Tool):
                        capture.feed(chunk)
                    elif isinstance(chunk, Error):
                        record.fail()
                        yield ErrorEvent(chunk.code, chunk.error)
                        return
                    elif isinstance(chunk, Done):
                        record.answer_only = chunk.answer_only
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

    def _spawn(self, work: Awaitable[T], *, log_failure: bool = True) -> asyncio.Task[T]:
        """A background task that :meth:`aclose` waits for (saves and graph writes)."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        if log_failure:
            task.add_done_callback(_log_failure)
        return task


_ERASED = "the conversation was erased while the answer was streaming"


def _reason(evidence: Evidence) -> str:
    reason = evidence.verdict.reason
    return reason.value if reason is not None else "no_evidence"


def _concept_data(resolved: ResolvedConcept, own: frozenset[str]) -> dict[str, Any]:
    """The ``concepts`` event's entry for one resolved concept.

    A quarantined concept this conversation did not capture before (not in its context,
    ``own``) was captured by another conversation, perhaps another tenant's: it is told as a
    first capture, byte for byte, so that no reply says someone else asked (ADR 0020,
    issue 26). Its id is one the mention spells itself (``engine.matching``)."""
    quarantined = resolved.status == "provisional" and resolved.skipped is None
    foreign = quarantined and not resolved.created and resolved.id not in own
    data: dict[str, Any] = {
        "id": resolved.id,
        "prefLabel": resolved.pref_label,
        "status": resolved.status,
        "created": resolved.created or foreign,
        "matchedBy": "created" if foreign else resolved.matched_by,
        "alignedWith": list(resolved.aligned_with),
    }
    if resolved.skipped is not None:  # nothing written: out_of_coverage, ... (ADR 0023)
        data["skipped"] = resolved.skipped
    return data


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("background_task_failed", error=repr(task.exception()))
