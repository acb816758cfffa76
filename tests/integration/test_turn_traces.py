"""OpenTelemetry spans of a real turn (ADR 0028): one trace per turn, a span per stage, nested
under the turn's span even across tasks, and never a payload or an id in what they carry.

The stores, graph, self-population, router and real egress (with its sanitiser, policies and
audit) come from the app's composition root (``Harness``); the engine over them is the app's
``MeteredTurns`` over a ``ChatEngine``, both with the tracer of an ``infra.tracing.Tracing``
that exports to the SDK's ``InMemorySpanExporter``. (``bootstrap`` builds its ``Tracing`` from
settings only, an OTLP endpoint, so the exporter cannot be handed to it.)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from api.metering import MeteredTurns
from egress.policy import TenantPolicy
from egress.wire import Done, Error, LlmRequest, StreamChunk, Text, Usage
from engine.events import TurnEvent
from engine.router import CallTimeouts, LlmRouter, Route
from engine.turn import ChatEngine, ChatLimits, TurnRequest
from errors import InvalidInput
from infra.metrics import Metrics
from infra.spans import turn_tracer
from infra.tracing import Tracing
from tests.integration.test_chat_engine import VAT, Harness
from tests.support.fakes import tool

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

TENANT, USER = "tenant-7f3a", "user-91bc"
SLOW_TENANT = "tenant-slow-5d20"  # routed to a provider slower than the first-token timeout
QUESTION = "What is the VAT rate in Ireland? Write to me at someone@example.org please."
STAGES = {
    "turn",
    "turn.prepare",
    "turn.retrieval",
    "turn.stream",
    "turn.provider",
    "turn.egress",
    "turn.capture",
    "turn.save",
}


@dataclass
class Traced:
    harness: Harness
    engine: MeteredTurns
    tracing: Tracing
    exporter: InMemorySpanExporter
    events: list[TurnEvent] = field(default_factory=list)

    async def turn(self, message: str = QUESTION, tenant: str = TENANT) -> list[TurnEvent]:
        request = TurnRequest(tenant, USER, message)
        self.events = [event async for event in self.engine.run_turn(request)]
        return self.events

    def spans(self) -> list[ReadableSpan]:
        self.tracing.flush()
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.name == name]

    def one(self, name: str) -> ReadableSpan:
        [span] = self.named(name)
        return span


@dataclass
class SlowProvider:
    """Answers after ``delay`` seconds (longer than the router's first-token timeout)."""

    delay: float
    name: str = "slow"

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        await asyncio.sleep(self.delay)
        yield Text("too late")
        yield Done()

    async def aclose(self) -> None:
        return None


@pytest.fixture
async def traced(tmp_path: Path) -> AsyncIterator[Traced]:
    harness = Harness(tmp_path, real_egress=True)
    providers: dict[str, Any] = harness.providers
    providers["slow"] = SlowProvider(delay=2.0)
    await harness.start()
    exporter = InMemorySpanExporter()
    tracing = Tracing(None, exporter=exporter)
    c = harness.container
    chat = ChatEngine(
        tracer=tracing.tracer,
        store=c.conversations,
        egress=c.egress,
        router=LlmRouter(
            Route("scripted", "m"), by_tenant={SLOW_TENANT: {"*": Route("slow", "s")}},
            timeouts=CallTimeouts(first_token=1.0),  # the slow provider answers after 2 s
        ),
        evidence=c.evidence,
        population=c.population,
        retry=c.retry,
        lexicon=c.lexicon,
        limits=ChatLimits(graph_write_timeout=10.0),  # room for a busy suite run (2 s was missed)
    )  # fmt: skip
    engine = MeteredTurns(chat, metrics=Metrics(), tracer=tracing.tracer)
    try:
        yield Traced(harness, engine, tracing, exporter)
    finally:
        await engine.aclose()
        await tracing.aclose()
        await harness.close()


def number(span: ReadableSpan, key: str) -> float:
    value = (span.attributes or {})[key]
    assert isinstance(value, int | float), value
    return value


def parent_of(span: ReadableSpan, spans: Sequence[ReadableSpan]) -> str | None:
    by_id = {s.context.span_id: s.name for s in spans}
    return by_id.get(span.parent.span_id) if span.parent is not None else None


def carried(spans: Sequence[ReadableSpan]) -> Iterator[str]:
    """Every value a span carries: attributes, event attributes, status descriptions."""
    for span in spans:
        yield span.name
        yield str(span.status.description or "")
        for value in (span.attributes or {}).values():
            yield str(value)
        for event in span.events:
            yield event.name
            for value in (event.attributes or {}).values():
                yield str(value)


def assert_no_payload_or_id(spans: Sequence[ReadableSpan], *secrets: str) -> None:
    values = list(carried(spans))
    assert values
    for secret in (TENANT, USER, QUESTION, "someone@example.org", "VAT rate", *secrets):
        leaks = [v for v in values if secret.lower() in v.lower()]
        assert not leaks, f"{secret!r} in {leaks}"


async def test_a_turn_is_one_trace_with_a_span_per_stage(traced: Traced) -> None:
    provider = traced.harness.provider
    provider.script = [
        Text("It is 23% [IE:RATE:VAT_STANDARD]."),
        tool({"concepts": [VAT]}),
        Done(Usage(3, 4)),
    ]
    events = await traced.turn()
    done = events[-1].data()
    assert done["status"] == "complete" and not done["capturePending"]
    spans = traced.spans()
    assert {s.name for s in spans} == STAGES
    assert len(spans) == len(STAGES)  # one each: one call, one capture, one save
    assert len({s.context.trace_id for s in spans}) == 1
    parents = {s.name: parent_of(s, spans) for s in spans}
    assert parents == {
        "turn": None,
        "turn.prepare": "turn",
        "turn.retrieval": "turn.prepare",
        "turn.stream": "turn",
        "turn.provider": "turn.stream",
        "turn.egress": "turn.provider",  # egress is the call's first step
        "turn.capture": "turn.stream",  # its own task: the context came along
        "turn.save": "turn.stream",  # the final save's task, too
    }

    call = traced.one("turn.provider")
    assert call.attributes is not None
    assert call.attributes["regintel.llm.provider"] == "scripted"
    assert call.attributes["regintel.llm.model"] == "m"
    assert call.attributes["regintel.llm.task"] == "main_chat"
    assert call.attributes["regintel.llm.outcome"] == "ok"
    assert number(call, "regintel.llm.first_token_ms") >= 0
    assert [e.name for e in call.events] == ["first_token"]
    assert call.status.status_code is StatusCode.UNSET
    egress = traced.one("turn.egress")
    assert egress.attributes is not None
    assert egress.attributes["regintel.egress.mode"] == "enforce"
    assert number(egress, "regintel.egress.placeholders") >= 1  # the e-mail address
    assert egress.end_time is not None and call.end_time is not None
    assert egress.end_time <= call.end_time
    assert number(traced.one("turn.retrieval"), "regintel.evidence.hits") >= 1
    capture = traced.one("turn.capture").attributes
    assert capture is not None
    assert (capture["regintel.capture.concepts"], capture["regintel.capture.created"]) == (1, 1)
    save = traced.one("turn.save").attributes
    assert save is not None and save["regintel.turn.status"] == "complete"
    assert traced.one("turn").attributes == {"regintel.turn.status": "complete"}
    assert_no_payload_or_id(spans, done["conversationId"], "23%")


async def test_a_provider_failure_marks_the_provider_span_as_an_error(traced: Traced) -> None:
    traced.harness.provider.script = [Error("upstream said no", code="provider_unavailable")]
    events = await traced.turn()
    assert events[-1].data()["status"] == "error"
    call = traced.one("turn.provider")
    assert call.status.status_code is StatusCode.ERROR
    assert call.status.description == "provider_unavailable"
    assert call.attributes is not None
    assert call.attributes["regintel.llm.outcome"] == "error"
    assert call.attributes["error.type"] == "provider_unavailable"
    turn = traced.one("turn")
    assert turn.status.status_code is StatusCode.ERROR
    assert turn.attributes == {
        "regintel.turn.status": "error",
        "error.type": "provider_unavailable",
    }
    assert traced.one("turn.egress").status.status_code is StatusCode.UNSET
    assert_no_payload_or_id(traced.spans(), "upstream said no")


async def test_a_first_token_timeout_is_an_error_of_the_provider_span(traced: Traced) -> None:
    events = await traced.turn(tenant=SLOW_TENANT)
    assert [e.data()["code"] for e in events if e.type == "error"] == ["provider_timeout"]
    call = traced.one("turn.provider")
    assert call.status.status_code is StatusCode.ERROR
    assert call.status.description == "provider_timeout"
    assert call.attributes is not None and call.attributes["regintel.llm.provider"] == "slow"
    assert "regintel.llm.first_token_ms" not in call.attributes


async def test_an_egress_refusal_marks_the_egress_span_with_its_code(traced: Traced) -> None:
    adapters = traced.harness.container.conversations.egress_adapters()
    await adapters.policies.set_tenant_policy(
        TENANT, TenantPolicy(allowed_providers=frozenset({"openai"}))
    )
    events = await traced.turn()
    assert [e.data()["code"] for e in events if e.type == "error"] == ["egress_blocked"]
    egress = traced.one("turn.egress")
    assert egress.status.status_code is StatusCode.ERROR
    assert egress.status.description == "egress_blocked"
    assert egress.attributes is not None and egress.attributes["regintel.egress.violations"] == 1
    call = traced.one("turn.provider")
    assert call.attributes is not None and call.attributes["regintel.llm.outcome"] == "blocked"
    # the refusal's message names the provider and the policy; no span repeats it
    assert_no_payload_or_id(traced.spans(), "tenant policy", "provider_not_allowed")


async def test_a_capture_finished_after_the_answer_is_still_a_child_of_the_turn(
    traced: Traced,
) -> None:
    population = traced.harness.population
    gate = asyncio.Event()
    original = population._resolve

    async def slow(concept: Any, jurisdictions: Any) -> Any:
        await gate.wait()
        return await original(concept, jurisdictions)

    population._resolve = slow  # type: ignore[method-assign]
    traced.harness.provider.script = [Text("VAT is 23%."), tool({"concepts": [VAT]}), Done()]
    events = await traced.turn()
    assert events[-1].data()["capturePending"] is True
    assert not traced.named("turn.capture")  # still being written: not ended, not exported
    stream = traced.one("turn.stream")
    assert stream.attributes is not None
    assert stream.attributes["regintel.turn.capture_pending"] is True

    gate.set()
    with anyio.fail_after(10):
        while True:
            if len(traced.named("turn.save")) == 2:  # the late capture's context, too
                break
            await anyio.sleep(0.02)
    spans = traced.spans()
    capture = traced.one("turn.capture")
    assert capture.context.trace_id == stream.context.trace_id
    assert parent_of(capture, spans) == "turn.stream"
    assert capture.start_time is not None and capture.end_time is not None
    assert stream.end_time is not None and capture.end_time > stream.end_time
    late = [
        s for s in traced.named("turn.save") if s.attributes == {"regintel.save.part": "context"}
    ]
    assert len(late) == 1 and parent_of(late[0], spans) == "turn.stream"
    assert_no_payload_or_id(spans)


async def test_a_refused_turn_ends_its_trace_in_prepare(traced: Traced) -> None:
    with pytest.raises(InvalidInput):
        await traced.turn("   ")
    spans = traced.spans()
    assert {s.name for s in spans} == {"turn", "turn.prepare"}
    turn = traced.one("turn")
    assert turn.status.status_code is StatusCode.ERROR
    assert turn.status.description == "invalid_input"
    assert traced.one("turn.prepare").status.description == "invalid_input"


async def test_outside_a_turn_the_tracer_is_a_no_op(traced: Traced) -> None:
    assert not turn_tracer().start_span("anything").is_recording()
    traced.harness.provider.script = [Text("Hello."), Done()]
    await traced.turn()
    assert not turn_tracer().start_span("anything").is_recording()  # reset after the turn


async def test_prepare_and_stream_in_different_tasks_are_one_trace(traced: Traced) -> None:
    """As the API runs them: prepare in the request's task, the stream in the SSE task."""
    traced.harness.provider.script = [Text("VAT is 23%."), tool({"concepts": [VAT]}), Done()]
    engine = traced.engine
    prepared = await asyncio.create_task(engine.prepare(TurnRequest(TENANT, USER, QUESTION)))

    async def consume() -> list[TurnEvent]:
        return [event async for event in engine.stream(prepared)]

    await asyncio.create_task(consume())
    # A capture slower than the turn's graph-write timeout (0.2 s: a loaded machine) ends after
    # the answer (capturePending) and its span with it: wait for it, as the late-capture test does.
    with anyio.fail_after(10):
        while True:
            if traced.named("turn.capture"):
                break
            await anyio.sleep(0.02)
    spans = traced.spans()
    assert {s.name for s in spans} == STAGES
    assert len({s.context.trace_id for s in spans}) == 1
    assert parent_of(traced.one("turn.stream"), spans) == "turn"
    assert parent_of(traced.one("turn.provider"), spans) == "turn.stream"
