"""Spans of a chat turn's stages (ADR 0028): who opens them, and what they may carry.

The chat engine owns the app's tracer (a no-op one unless ``REGINTEL_OTLP_ENDPOINT`` is set).
The router and egress are built once and shared by every turn, so they have no tracer of
their own: for the length of a turn's stream the engine makes its tracer the *turn tracer* of
the current context (:func:`turn_tracing`), and they open their spans with
:func:`turn_tracer`, a no-op tracer outside a turn. A context variable is a deliberate
exception to "no global state": its value belongs to one context, like OpenTelemetry's own
current span, and it reaches the tasks a turn starts (``asyncio`` copies the context into a
new task: the background capture, the final save).

What a span may carry: names of stages, providers and models, modes, counts, closed sets of
outcomes and error codes. Never a payload, question or answer text, a tenant, user or
conversation id. :func:`stage` and :func:`mark_failed` keep that on failure too: they record
the error's code (a :class:`~errors.RegintelError`'s ``code``, else the exception's class
name) as the status and ``error.type``, never the message or the traceback, which may quote a
question or an id. A cancelled stage is not an error: it says ``regintel.cancelled``.

Spans that outlive a ``yield`` (an async generator's) are started with ``start_span`` and
never made current: the current span of a generator leaks into its consumer between items.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from opentelemetry.context import Context
from opentelemetry.trace import NoOpTracer, Span, Status, StatusCode, Tracer
from opentelemetry.util.types import AttributeValue

from errors import RegintelError

__all__ = ["error_code", "mark_failed", "stage", "turn_tracer", "turn_tracing"]

_NO_TRACER = NoOpTracer()
_TURN_TRACER: ContextVar[Tracer | None] = ContextVar("regintel_turn_tracer", default=None)


def turn_tracer() -> Tracer:
    """The tracer of the turn running in this context; a no-op tracer outside a turn."""
    return _TURN_TRACER.get() or _NO_TRACER


@contextmanager
def turn_tracing(tracer: Tracer) -> Iterator[None]:
    """Make ``tracer`` the turn tracer of this context (and of the tasks started inside)."""
    token = _TURN_TRACER.set(tracer)
    try:
        yield
    finally:
        try:
            _TURN_TRACER.reset(token)
        except ValueError:  # a generator finalised in another context: that one never saw it
            pass


def error_code(exc: BaseException) -> str:
    """A closed-set name for a failure: its Regintel code, else its class name."""
    return exc.code if isinstance(exc, RegintelError) else type(exc).__name__


def mark_failed(span: Span, code: str) -> None:
    """Status ``ERROR`` with ``code`` (never a message: it may quote the question)."""
    span.set_status(Status(StatusCode.ERROR, code))
    span.set_attribute("error.type", code)


@contextmanager
def stage(
    name: str,
    attributes: Mapping[str, AttributeValue] | None = None,
    *,
    tracer: Tracer | None = None,
    context: Context | None = None,
) -> Iterator[Span]:
    """A span around one stage, current inside the block.

    ``tracer``: the engine's own; the turn tracer otherwise. ``context``: the parent's, when
    it is not the current one.
    """
    with (tracer or turn_tracer()).start_as_current_span(
        name,
        context=context,
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        try:
            yield span
        except (asyncio.CancelledError, GeneratorExit):
            span.set_attribute("regintel.cancelled", True)
            raise
        except Exception as exc:
            mark_failed(span, error_code(exc))
            raise
