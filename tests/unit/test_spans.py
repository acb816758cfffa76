"""What a stage's span keeps of a failure: its code, never its message (ADR 0028)."""

from __future__ import annotations

import asyncio

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from errors import NotFound
from infra.spans import stage, turn_tracer, turn_tracing

pytestmark = pytest.mark.unit


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def test_a_failed_stage_keeps_the_code_not_the_message(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    with pytest.raises(NotFound), stage("turn.x", tracer=provider.get_tracer("t")):
        raise NotFound("conversation conv-123 of tenant-9 not found")
    with pytest.raises(ValueError), stage("turn.y", tracer=provider.get_tracer("t")):
        raise ValueError("the question was: how much tax do I owe")
    x, y = exporter.get_finished_spans()
    assert (x.status.status_code, x.status.description) == (StatusCode.ERROR, "not_found")
    assert x.attributes == {"error.type": "not_found"}
    assert (y.status.description, y.attributes) == ("ValueError", {"error.type": "ValueError"})
    assert not x.events and not y.events  # no exception event: it would carry the message


def test_a_cancelled_stage_is_not_an_error(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    with pytest.raises(asyncio.CancelledError), stage("turn.x", tracer=provider.get_tracer("t")):
        raise asyncio.CancelledError
    [span] = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.UNSET
    assert span.attributes == {"regintel.cancelled": True}


def test_the_turn_tracer_is_the_engines_inside_a_turn_and_a_no_op_outside(
    provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    tracer = provider.get_tracer("t")
    assert not turn_tracer().start_span("outside").is_recording()
    with turn_tracing(tracer):
        assert turn_tracer() is tracer
        with stage("turn.egress"):  # no tracer given: the turn's
            pass
    assert not turn_tracer().start_span("outside").is_recording()
    assert [s.name for s in exporter.get_finished_spans()] == ["turn.egress"]
