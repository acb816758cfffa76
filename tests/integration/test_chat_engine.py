"""The chat turn on real embedded stores (Ladybug, SQLite) with a scripted provider."""

import asyncio

import anyio
import pytest

from conversations.sqlite import SqliteConversationStore
from egress.wire import Done, Text, Usage
from engine.chat import ChatEngine, ChatLimits, TurnRequest
from engine.evidence import EvidenceIndex
from engine.graph_outbox import GraphOutbox
from engine.graph_retry import GraphWriteRetry
from engine.ingestion import InMemoryIngestionQueue
from engine.router import LlmRouter, Route
from engine.self_population import SelfPopulation
from errors import ConversationStoreUnavailable, GraphUnavailable, InvalidInput, NotFound
from graph.backends.ladybug import LadybugGraphStore
from graph.ingress_guard import IngressGuard
from graph.models import EdgeWrite, NodeWrite
from graph.schema import load_schema
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner, PassThroughEgress, ScriptedProvider, error, tool

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

VAT = {
    "domain": "TAX",
    "kind": "VAT",
    "jurisdiction": "IE",
    "prefLabel": "Value-Added Tax",
    "altLabels": ["VAT"],
}
NEW = {
    "domain": "TAX",
    "kind": "CARBON_TAX",
    "jurisdiction": "IE",
    "prefLabel": "Carbon tax",
    "altLabels": ["carbon charge"],
}


class Harness:
    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.schema = load_schema()
        self.graph = LadybugGraphStore(tmp_path / "graph", self.schema)
        self.guard = IngressGuard(self.schema, EmailOnlyScanner())
        self.writer = GraphWriteService(self.graph, self.guard)
        self.store = SqliteConversationStore(tmp_path / "c.db")
        self.evidence = EvidenceIndex(self.graph)
        self.ingestion = InMemoryIngestionQueue()
        self.population = SelfPopulation(self.graph, self.writer, self.evidence, self.ingestion)
        self.retry = GraphWriteRetry(self.population, first_delay=0.01)
        self.provider = ScriptedProvider()

    async def start(self):
        await self.graph.init_schema()
        await self.store.init()
        await self.writer.upsert_nodes(
            [
                NodeWrite(id="IE", label="Jurisdiction", properties={"name": "Ireland"}),
                NodeWrite(
                    id="IE:REGIME:VAT",
                    label="Regime",
                    properties={"name": "Value-Added Tax", "description": "VAT on supplies."},
                ),
                NodeWrite(
                    id="IE:RATE:VAT_STANDARD",
                    label="Rate",
                    properties={"name": "VAT standard rate", "value": 23.0, "unit": "percent"},
                ),
            ]
        )
        await self.writer.upsert_edges(
            [
                EdgeWrite(
                    type="HAS_RATE",
                    source_id="IE:REGIME:VAT",
                    source_label="Regime",
                    target_id="IE:RATE:VAT_STANDARD",
                    target_label="Rate",
                ),
            ]
        )
        await self.evidence.refresh()
        self.engine = self.build_engine(PassThroughEgress({"scripted": self.provider}))

    def build_engine(self, egress, **limits):
        return ChatEngine(
            store=self.store,
            egress=egress,
            router=LlmRouter(Route("scripted", "m")),
            evidence=self.evidence,
            population=self.population,
            retry=self.retry,
            limits=ChatLimits(**limits),
        )

    async def turn(self, message="What is the VAT rate?", conversation_id=None, engine=None):
        request = TurnRequest("acme", "alice", message, conversation_id)
        return [event async for event in (engine or self.engine).run_turn(request)]

    async def close(self):
        await self.engine.aclose()
        await self.retry.aclose()
        await self.store.aclose()
        await self.graph.aclose()


@pytest.fixture
async def h(tmp_path):
    harness = Harness(tmp_path)
    await harness.start()
    yield harness
    await harness.close()


def by_type(events, kind):
    return [e for e in events if e.type == kind]


async def test_a_turn_streams_text_and_references_cited_and_resolved_nodes(h):
    h.provider.script = [
        Text("It is 23% [IE:RATE:VAT_STANDARD] "),
        Text("[NOT:A:NODE]."),
        tool({"concepts": [VAT]}),
        Done(Usage(5, 6)),
    ]
    events = await h.turn()
    assert [e.type for e in events] == ["metadata", "text", "text", "concepts", "warning", "done"]
    assert (
        events[-2].warning.code == "unknown_citation" and "NOT:A:NODE" in events[-2].warning.message
    )
    done = events[-1]
    assert done.referenced_nodes == ["IE:RATE:VAT_STANDARD", "TAX:IE:VAT"]
    assert done.usage == {"inputTokens": 5, "outputTokens": 6}
    [concept] = by_type(events, "concepts")[0].concepts
    assert concept == {
        "id": "TAX:IE:VAT",
        "prefLabel": "Value-Added Tax",
        "status": "provisional",
        "created": True,
        "matchedBy": "created",
        "alignedWith": ["IE:REGIME:VAT"],
    }
    # The new concept was aligned with the rule node it names and queued for ingestion.
    around = await h.graph.neighbourhood(["TAX:IE:VAT"])
    assert {(e.type, e.target) for e in around.edges} >= {("ALIGNS_WITH", "IE:REGIME:VAT")}
    assert [j.concept_id for j in h.ingestion.jobs] == ["TAX:IE:VAT"]


async def test_the_second_turn_sees_the_first_turns_concepts(h):
    h.provider.script = [Text("x"), tool({"concepts": [VAT]}), Done()]
    first = await h.turn()
    conversation_id = first[0].conversation_id
    h.provider.script = [Text("y"), Done()]
    await h.turn("And the reduced rate?", conversation_id)
    system = h.provider.requests[-1].messages[0].content
    assert "ACTIVE CONCEPTS" in system and "[TAX:IE:VAT]" in system
    history = [m.content for m in h.provider.requests[-1].messages[1:]]
    assert history == ["What is the VAT rate?", "x", "And the reduced rate?"]


async def test_an_alias_resolves_to_the_existing_concept(h):
    h.provider.script = [Text("x"), tool({"concepts": [VAT]}), Done()]
    await h.turn()
    alias = {**VAT, "kind": "VALUE_ADDED_TAX", "prefLabel": "value added tax", "altLabels": []}
    h.provider.script = [Text("x"), tool({"concepts": [alias]}), Done()]
    events = await h.turn()
    [concept] = by_type(events, "concepts")[0].concepts
    assert (concept["id"], concept["matchedBy"], concept["created"]) == (
        "TAX:IE:VAT",
        "alias",
        False,
    )
    assert await h.graph.get_nodes(["TAX:IE:VALUE_ADDED_TAX"]) == []


async def test_ten_conversations_naming_a_new_concept_create_it_once(h):
    h.provider.script = [Text("x"), tool({"concepts": [NEW]}), Done()]
    turns = await asyncio.gather(*[h.turn("Tell me about carbon tax") for _ in range(10)])
    created = [c["created"] for t in turns for c in by_type(t, "concepts")[0].concepts]
    assert created.count(True) == 1 and len(created) == 10
    counts = await h.graph.counts()
    assert counts.by_label["Concept"] == 1
    [node] = await h.graph.get_nodes(["TAX:IE:CARBON_TAX"])
    assert node.properties["status"] == "provisional"
    assert len(h.ingestion.jobs) == 1


async def test_a_malformed_tool_payload_is_a_warning_and_the_turn_completes(h):
    h.provider.script = [Text("answer"), tool({"concepts": [{"kind": "VAT"}]}), Done()]
    events = await h.turn()
    [warning] = by_type(events, "warning")
    assert warning.warning.code == "malformed_tool_payload"
    assert events[-1].status == "complete"
    stored = await h.store.recent_messages("acme", events[0].conversation_id, 10)
    assert [m.content for m in stored] == ["What is the VAT rate?", "answer"]


async def test_pii_in_a_graph_write_is_rejected_recorded_and_the_turn_completes(h):
    leaky = {**NEW, "altLabels": ["ask mary@example.ie"]}
    h.provider.script = [Text("answer"), tool({"concepts": [leaky]}), Done()]
    events = await h.turn()
    [warning] = by_type(events, "warning")
    assert warning.warning.code == "graph_pii_rejected"
    assert events[-1].status == "complete"
    assert h.guard.rejections.entries[-1].entity_types == ("EMAIL_ADDRESS",)
    assert await h.graph.get_nodes(["TAX:IE:CARBON_TAX"]) == []


async def test_a_provider_error_ends_the_turn_cleanly_and_keeps_the_messages(h):
    h.provider.script = [Text("partial "), error("upstream timed out")]
    events = await h.turn()
    assert [e.type for e in events] == ["metadata", "text", "error", "done"]
    assert events[-1].status == "error"
    stored = await h.store.recent_messages("acme", events[0].conversation_id, 10)
    assert [(m.role, m.status) for m in stored] == [("user", "complete"), ("assistant", "error")]


async def test_bad_input_and_unknown_ids_raise_before_streaming(h):
    with pytest.raises(InvalidInput):
        await h.turn("   ")
    with pytest.raises(InvalidInput):
        await h.turn("x" * 9000)
    with pytest.raises(NotFound):
        await h.turn(conversation_id="no-such-conversation")
    other = await h.store.create_conversation("globex", "carol")
    with pytest.raises(NotFound):
        await h.turn(conversation_id=other.id)


async def test_a_client_that_disconnects_mid_stream_loses_no_message(h):
    h.provider.script = [Text("first "), Text("second "), Text("third"), Done()]
    turn = h.engine.run_turn(TurnRequest("acme", "alice", "What is the VAT rate?"))
    metadata = await anext(turn)
    await anext(turn)  # one text chunk reached the client, then it went away
    await turn.aclose()
    await h.engine.aclose()  # background save finishes
    stored = await h.store.recent_messages("acme", metadata.conversation_id, 10)
    assert [(m.role, m.content, m.status) for m in stored] == [
        ("user", "What is the VAT rate?", "complete"),
        ("assistant", "first ", "partial"),
    ]


class FlakyGraphPopulation:
    """Wraps self-population so the first ``failures`` calls find the graph down."""

    def __init__(self, inner, failures):
        self.inner, self.failures, self.calls = inner, failures, 0

    def screen(self, concepts):
        self.inner.screen(concepts)

    async def resolve_all(self, concepts):
        self.calls += 1
        if self.calls <= self.failures:
            raise GraphUnavailable("graph is down")
        return await self.inner.resolve_all(concepts)


async def test_a_graph_outage_degrades_to_a_warning_and_the_write_is_retried(h):
    flaky = FlakyGraphPopulation(h.population, failures=2)
    h.retry = GraphWriteRetry(flaky, first_delay=0.01)  # type: ignore[arg-type]
    engine = ChatEngine(
        store=h.store,
        egress=PassThroughEgress({"scripted": h.provider}),
        router=LlmRouter(Route("scripted", "m")),
        evidence=h.evidence,
        population=flaky,
        retry=h.retry,
    )  # type: ignore[arg-type]
    h.provider.script = [Text("answer"), tool({"concepts": [NEW]}), Done()]
    events = await h.turn(engine=engine)
    assert by_type(events, "warning")[0].warning.code == "graph_unavailable"
    assert events[-1].status == "complete"
    for _ in range(200):
        if h.retry.completed:
            break
        await asyncio.sleep(0.01)
    assert h.retry.completed == 1
    assert [n.id for n in await h.graph.get_nodes(["TAX:IE:CARBON_TAX"])] == ["TAX:IE:CARBON_TAX"]


class SaveFails:
    """The real store, except that saving a turn finds the store down."""

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)

    async def save_turn(self, *args, **kwargs):
        raise ConversationStoreUnavailable("conversation store: disk I/O error")


async def test_a_store_that_is_down_at_save_time_ends_the_turn_with_an_error(h):
    engine = ChatEngine(
        store=SaveFails(h.store),
        egress=PassThroughEgress({"scripted": h.provider}),
        router=LlmRouter(Route("scripted", "m")),
        evidence=h.evidence,
        population=h.population,
        retry=h.retry,
    )  # type: ignore[arg-type]
    events = await h.turn(engine=engine)
    assert [e.type for e in events][-3:] == ["text", "error", "done"]
    assert events[-2].code == "conversation_store_unavailable"
    assert events[-1].status == "error"


class CrashingProvider(ScriptedProvider):
    async def stream(self, request):
        yield Text("half an ans")
        raise RuntimeError("bug in a provider")


async def test_a_provider_that_crashes_mid_stream_ends_the_turn_cleanly(h):
    crashing = CrashingProvider()
    engine = h.build_engine(PassThroughEgress({"scripted": crashing}))
    events = await h.turn(engine=engine)
    assert [e.type for e in events] == ["metadata", "text", "error", "done"]
    assert events[-2].code == "internal_error" and events[-1].status == "error"
    stored = await h.store.recent_messages("acme", events[0].conversation_id, 10)
    assert [(m.content, m.status) for m in stored][-1] == ("half an ans", "error")


async def test_a_capture_that_outlasts_its_retries_is_written_after_a_restart(h, tmp_path):
    flaky = FlakyGraphPopulation(h.population, failures=100)
    outbox_path = tmp_path / "outbox.jsonl"
    h.retry = GraphWriteRetry(flaky, GraphOutbox(outbox_path), attempts=2, first_delay=0.01)
    engine = ChatEngine(
        store=h.store,
        egress=PassThroughEgress({"scripted": h.provider}),
        router=LlmRouter(Route("scripted", "m")),
        evidence=h.evidence,
        population=flaky,  # type: ignore[arg-type]
        retry=h.retry,
    )
    h.provider.script = [Text("answer"), tool({"concepts": [NEW]}), Done()]
    await h.turn(engine=engine)
    with anyio.fail_after(10):
        while not h.retry.abandoned:  # noqa: ASYNC110 - the retry runs in its own task
            await asyncio.sleep(0.01)
    assert await h.graph.get_nodes(["TAX:IE:CARBON_TAX"]) == []

    restarted = GraphWriteRetry(h.population, GraphOutbox(outbox_path), first_delay=0.01)
    assert restarted.resume() == 1
    with anyio.fail_after(10):
        while not restarted.completed:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
    assert [n.id for n in await h.graph.get_nodes(["TAX:IE:CARBON_TAX"])] == ["TAX:IE:CARBON_TAX"]
    assert GraphOutbox(outbox_path).pending() == []


async def test_a_client_gone_right_after_metadata_still_keeps_the_question(h):
    h.provider.script = [Text("never read"), Done()]
    turn = h.engine.run_turn(TurnRequest("acme", "alice", "What is the VAT rate?"))
    metadata = await anext(turn)
    await turn.aclose()
    await h.engine.aclose()
    stored = await h.store.recent_messages("acme", metadata.conversation_id, 10)
    assert [(m.role, m.content, m.status) for m in stored] == [
        ("user", "What is the VAT rate?", "complete"),
        ("assistant", "", "partial"),
    ]


async def test_concurrent_turns_of_one_conversation_keep_each_others_context(h):
    h.provider.script = [Text("x"), Done()]
    conversation_id = (await h.turn())[0].conversation_id
    vat_turn = ScriptedProvider(script=[Text("a"), tool({"concepts": [VAT]}), Done()])
    new_turn = ScriptedProvider(script=[Text("b"), tool({"concepts": [NEW]}), Done()])
    engines = [h.build_engine(PassThroughEgress({"scripted": p})) for p in (vat_turn, new_turn)]
    await asyncio.gather(*[
        h.turn("q", conversation_id, engine=engine) for engine in engines
    ])  # fmt: skip
    context = await h.store.load_context("acme", conversation_id)
    assert {"TAX:IE:VAT", "TAX:IE:CARBON_TAX"} <= set(context.active_node_ids)


async def test_a_capture_the_guard_would_refuse_is_never_kept_for_later(h, tmp_path):
    flaky = FlakyGraphPopulation(h.population, failures=100)
    outbox = GraphOutbox(tmp_path / "outbox.jsonl")
    retry = GraphWriteRetry(flaky, outbox, attempts=2, first_delay=0.01)
    engine = ChatEngine(
        store=h.store,
        egress=PassThroughEgress({"scripted": h.provider}),
        router=LlmRouter(Route("scripted", "m")),
        evidence=h.evidence,
        population=flaky,  # type: ignore[arg-type]
        retry=retry,
    )
    leaky = {**NEW, "altLabels": ["ask mary@example.ie"]}
    h.provider.script = [Text("answer"), tool({"concepts": [leaky]}), Done()]
    events = await h.turn(engine=engine)
    assert by_type(events, "warning")[0].warning.code == "graph_unavailable"
    assert outbox.pending() == [] and retry.pending == 0
    assert not (tmp_path / "outbox.jsonl").exists()  # nothing was written to disk


async def test_the_single_flight_lock_outlives_its_holder_while_others_wait(h):
    gate = asyncio.Event()
    original = h.population._resolve

    async def slow(concept):
        await gate.wait()
        return await original(concept)

    h.population._resolve = slow
    first = asyncio.create_task(h.population.resolve(parse_one(NEW)))
    second = asyncio.create_task(h.population.resolve(parse_one(NEW)))
    await asyncio.sleep(0.01)  # both registered: one holds the lock, one waits for it
    gate.set()
    await first
    # The waiter still needs the lock: a newcomer must queue behind it, not get a fresh one.
    assert "TAX:IE:CARBON_TAX" in h.population._inflight
    results = [first.result(), await second]
    assert [r.created for r in results] == [True, False]
    assert h.population._inflight == {}


def parse_one(raw):
    from engine.concepts import parse_capture_payload

    return parse_capture_payload({"concepts": [raw]})[0]
