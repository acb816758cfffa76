"""Prometheus metrics (``GET /metrics``): one registry per app, never the global one.

What is counted, and with which labels (never a payload, a tenant or a user id):

- ``regintel_turns_total{status}``: turns by the status their ``done`` event reports;
- ``regintel_time_to_first_token_seconds``: from the start of the stream to the first text;
- ``regintel_provider_errors_total{code}``: ``error`` events (``provider_*`` codes and others);
- ``regintel_captures_total{outcome}``: resolved concepts by how they were resolved
  (``created``, ``exact``, ``alias``, …) and rejected captures (``rejected``);
- ``regintel_guard_rejections_total{code}``: ingress guard rejections by type;
- ``regintel_patch_subscribers``: live graph-stream subscribers of this process;
- ``regintel_rate_limited_total{area}``: requests refused by the rate limiter, and
  ``regintel_rate_limiter_unavailable_total``: checks skipped or refused because Redis was down.

:class:`MeteredChatEngine` is the chat engine with its stream observed; it changes nothing in
what the stream yields. With tracing on it also opens the turn's spans (ADR 0028): one trace per
turn, a ``turn`` span from ``prepare`` to the end of the stream, with ``turn.prepare`` and
``turn.stream`` under it; the engine's stages (``turn.retrieval``; ``turn.provider`` with its
``turn.egress``, ``turn.capture``, ``turn.save``) are their children.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import replace
from typing import Any

from opentelemetry.trace import INVALID_SPAN, Tracer, get_current_span, set_span_in_context
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from engine.chat import ChatEngine, PreparedTurn, TurnRequest
from engine.events import ConceptsEvent, DoneEvent, ErrorEvent, TextEvent, TurnEvent, WarningEvent
from graph.ingress_guard import GuardRejection, RejectionLog
from infra.spans import error_code, mark_failed, stage

__all__ = [
    "CAPTURE_WARNINGS",
    "CONTENT_TYPE",
    "CountingRejectionLog",
    "MeteredChatEngine",
    "Metrics",
]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
CAPTURE_WARNINGS = {
    "capture_screened": "screened",
    "malformed_tool_payload": "malformed",
    "graph_write_rejected": "rejected",
    "graph_pii_rejected": "rejected",
    "graph_schema_violation": "rejected",
    "graph_write_pending": "pending",
    "graph_unavailable": "pending",
}


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.turns = Counter("regintel_turns", "Chat turns by final status", ["status"], registry=r)
        self.first_token = Histogram(
            "regintel_time_to_first_token_seconds",
            "From the start of a turn's stream to its first text",
            buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
            registry=r,
        )
        self.provider_errors = Counter(
            "regintel_provider_errors", "Error events of turns by code", ["code"], registry=r
        )
        self.captures = Counter(
            "regintel_captures", "Captured concepts by outcome", ["outcome"], registry=r
        )
        self.guard_rejections = Counter(
            "regintel_guard_rejections", "Ingress guard rejections by type", ["code"], registry=r
        )
        self.patch_subscribers = Gauge(
            "regintel_patch_subscribers", "Live graph stream subscribers", registry=r
        )
        self.rate_limited = Counter(
            "regintel_rate_limited", "Requests refused by the rate limiter", ["area"], registry=r
        )
        self.rate_limiter_unavailable = Counter(
            "regintel_rate_limiter_unavailable",
            "Rate-limit checks made while Redis did not answer",
            registry=r,
        )

    def watch_subscribers(self, count: Callable[[], int]) -> None:
        self.patch_subscribers.set_function(lambda: float(count()))

    def render(self) -> bytes:
        return generate_latest(self.registry)


class CountingRejectionLog(RejectionLog):
    """The guard's rejection log, counting each rejection by its code."""

    def __init__(self, metrics: Metrics, limit: int = 500) -> None:
        super().__init__(limit=limit)
        self._metrics = metrics

    def record(self, rejection: GuardRejection) -> None:
        super().record(rejection)
        self._metrics.guard_rejections.labels(code=rejection.code).inc()


class MeteredChatEngine(ChatEngine):
    """The chat engine, its turns counted and (with tracing on) traced: a ``turn`` span over
    ``turn.prepare`` (conversation, retrieval, prompt) and ``turn.stream`` (egress, provider,
    capture, save), with events at the first token, the concepts and the end.

    ``turn.stream`` is current for the whole stream (its stages find it as their parent); the
    engine's consumer opens no spans. A turn prepared but never streamed leaves its ``turn``
    span unended: it is not exported."""

    def __init__(
        self, *args: Any, metrics: Metrics, tracer: Tracer | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, tracer=tracer, **kwargs)
        self._metrics = metrics

    async def prepare(self, request: TurnRequest) -> PreparedTurn:
        turn = self._tracer.start_span("turn")
        trace = set_span_in_context(turn)
        try:
            with stage("turn.prepare", tracer=self._tracer, context=trace):
                prepared = await super().prepare(request)
        except BaseException as exc:  # refused before any event: the trace ends here
            mark_failed(turn, error_code(exc))
            turn.end()
            raise
        return replace(prepared, trace=trace)

    async def stream(self, turn: PreparedTurn) -> AsyncGenerator[TurnEvent, None]:
        started, first = time.monotonic(), True
        status, error = "interrupted", None
        root = get_current_span(turn.trace) if turn.trace is not None else INVALID_SPAN
        try:
            with stage("turn.stream", tracer=self._tracer, context=turn.trace) as span:
                try:
                    # aclosing: a client gone mid-stream must close the engine's stream now, so
                    # that its TurnRecord saves the partial answer (ADR 0010), not at GC time.
                    async with aclosing(super().stream(turn)) as events:
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
        elif isinstance(event, WarningEvent) and event.warning.code in CAPTURE_WARNINGS:
            self._metrics.captures.labels(outcome=CAPTURE_WARNINGS[event.warning.code]).inc()
