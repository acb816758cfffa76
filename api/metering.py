"""Turns and guard rejections, counted into :class:`infra.metrics.Metrics` and traced.

:class:`MeteredTurns` wraps any :class:`engine.turn.TurnEngine` (the composition root hands it
the :class:`engine.turn.ChatEngine`) and is one itself: it changes nothing in what a turn
yields. With tracing on it also opens the turn's spans (ADR 0028): one trace per turn, a
``turn`` span from ``prepare`` to the end of the stream, with ``turn.prepare`` and
``turn.stream`` under it; the engine's stages (``turn.retrieval``; ``turn.provider`` with its
``turn.egress``, ``turn.capture``, ``turn.save``) are their children. It is handed the same
tracer as the engine it wraps; it reads nothing of the engine but its port.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import replace

from opentelemetry.trace import (
    INVALID_SPAN,
    NoOpTracer,
    Tracer,
    get_current_span,
    set_span_in_context,
)

from conversations.models import MessageStatus
from engine.events import ConceptsEvent, DoneEvent, ErrorEvent, TextEvent, TurnEvent, WarningEvent
from engine.metrics import EngineCounters
from engine.turn import PreparedTurn, TurnEngine, TurnRequest, run_turn
from graph.ingress_guard import GuardRejection, RejectionLog
from infra.metrics import Metrics
from infra.spans import error_code, mark_failed, stage

__all__ = ["CAPTURE_WARNINGS", "CountingRejectionLog", "MeteredTurns"]

#: Warnings that say what became of a capture, and the ``outcome`` label they count under.
CAPTURE_WARNINGS = {
    "capture_screened": "screened",
    "malformed_tool_payload": "malformed",
    "graph_write_rejected": "rejected",
    "graph_pii_rejected": "rejected",
    "graph_schema_violation": "rejected",
    "graph_write_pending": "pending",
    "graph_unavailable": "pending",
}


class CountingRejectionLog(RejectionLog):
    """The guard's rejection log, counting each rejection by its code."""

    def __init__(self, metrics: Metrics, limit: int = 500) -> None:
        super().__init__(limit=limit)
        self._metrics = metrics

    def record(self, rejection: GuardRejection) -> None:
        super().record(rejection)
        self._metrics.guard_rejections.labels(code=rejection.code).inc()


class MeteredTurns:
    """A turn engine, its turns counted and (with tracing on) traced: a ``turn`` span over
    ``turn.prepare`` (conversation, retrieval, prompt) and ``turn.stream`` (egress, provider,
    capture, save), with events at the first token, the concepts and the end.

    ``turn.stream`` is current for the whole stream (its stages find it as their parent); the
    engine's consumer opens no spans. A turn prepared but never streamed leaves its ``turn``
    span unended: it is not exported."""

    def __init__(self, engine: TurnEngine, *, metrics: Metrics, tracer: Tracer | None) -> None:
        self._engine = engine
        self._metrics = metrics
        self._tracer = tracer or NoOpTracer()

    @property
    def counters(self) -> EngineCounters:
        return self._engine.counters

    async def aclose(self) -> None:
        await self._engine.aclose()

    def run_turn(self, request: TurnRequest) -> AsyncGenerator[TurnEvent, None]:
        """:meth:`prepare` then :meth:`stream`, both metered."""
        return run_turn(self, request)

    async def prepare(self, request: TurnRequest) -> PreparedTurn:
        turn = self._tracer.start_span("turn")
        trace = set_span_in_context(turn)
        try:
            with stage("turn.prepare", tracer=self._tracer, context=trace):
                prepared = await self._engine.prepare(request)
        except BaseException as exc:  # refused before any event: the trace ends here
            mark_failed(turn, error_code(exc))
            turn.end()
            raise
        return replace(prepared, trace=trace)

    async def store_refused(self, request: TurnRequest, status: MessageStatus) -> str:
        return await self._engine.store_refused(request, status)

    async def stream(self, turn: PreparedTurn) -> AsyncGenerator[TurnEvent, None]:
        started, first = time.monotonic(), True
        status, error = "interrupted", None
        root = get_current_span(turn.trace) if turn.trace is not None else INVALID_SPAN
        try:
            with stage("turn.stream", tracer=self._tracer, context=turn.trace) as span:
                try:
                    # aclosing: a client gone mid-stream must close the engine's stream now, so
                    # that its TurnRecord saves the partial answer (ADR 0010), not at GC time.
                    async with aclosing(self._engine.stream(turn)) as events:
                        async for event in events:
                            self._observe(event)
                            if isinstance(event, TextEvent) and first:
                                first = False
                                self._metrics.first_token.observe(time.monotonic() - started)
                                span.add_event("first_token")
                            elif isinstance(event, ConceptsEvent):
                                span.add_event("concepts", {"count": len(event.concepts)})
                            elif isinstance(event, ErrorEvent):
                                error = error or event.code
                                span.add_event("error", {"code": event.code})
                            elif isinstance(event, DoneEvent):
                                status = event.status
                                if event.capture_pending:
                                    span.set_attribute("regintel.turn.capture_pending", True)
                            yield event
                finally:
                    span.set_attribute("regintel.turn.status", status)
                    self._metrics.turns.labels(status=status).inc()
        finally:
            root.set_attribute("regintel.turn.status", status)
            if error is not None:
                mark_failed(root, error)
            root.end()

    def _observe(self, event: TurnEvent) -> None:
        if isinstance(event, ErrorEvent):
            self._metrics.provider_errors.labels(code=event.code).inc()
        elif isinstance(event, ConceptsEvent):
            for concept in event.concepts:
                outcome = str(concept.get("matchedBy") or concept.get("status") or "resolved")
                self._metrics.captures.labels(outcome=outcome).inc()
        elif isinstance(event, WarningEvent) and event.warning.code == "llm_fallback":
            self._metrics.llm_fallbacks.inc()
        elif isinstance(event, WarningEvent) and event.warning.code in CAPTURE_WARNINGS:
            self._metrics.captures.labels(outcome=CAPTURE_WARNINGS[event.warning.code]).inc()
