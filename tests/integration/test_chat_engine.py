"""The chat turn on real embedded stores (Ladybug, SQLite) with a scripted provider.

The engine is built by the app's own composition root (``api.bootstrap``), with fakes passed
in for the provider, egress and PII scanner, so these tests exercise the wiring the app runs.
"""

import asyncio

import anyio
import pytest

from api.bootstrap import bootstrap
from api.settings import Settings
from conversations.sqlite import SqliteConversationStore
from egress.wire import Done, Text, Usage
from engine.graph_outbox import GraphOutbox
from engine.ingestion import InMemoryIngestionQueue
from engine.lexicon import ConceptLexicon
from engine.prompt import ASPECTS
from engine.review import confirm_concept
from engine.router import LlmRouter, Route
from engine.turn import TurnRequest
from errors import (
    AdapterClosed,
    ConversationStoreUnavailable,
    GraphUnavailable,
    InvalidInput,
    NotFound,
)
from graph.backends.ladybug import LadybugGraphStore
from graph.models import EdgeWrite, NodeWrite
from graph.schema import load_schema
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


class FlakyGraph:
    """The real graph, except that the next ``failures`` calls of self-population's reads and
    writes find it down (tests read the real graph through ``inner``)."""

    FLAKY = frozenset({"get_nodes", "find_concepts_by_label", "upsert_nodes", "upsert_edges"})

    def __init__(self, inner):
        self.inner, self.failures = inner, 0

    def __getattr__(self, name):
        attribute = getattr(self.inner, name)
        if name not in self.FLAKY:
            return attribute

        async def call(*args, **kwargs):
            if self.failures > 0:
                self.failures -= 1
                raise GraphUnavailable("graph is down")
            return await attribute(*args, **kwargs)

        return call


class SaveFails:
    """The real store, except that finishing the answer finds the store down."""

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)

    async def finish_answer(self, *args, **kwargs):
        raise ConversationStoreUnavailable("conversation store: disk I/O error")


class Harness:
    """One app container over a Ladybug graph and a SQLite store in ``tmp_path``."""

    def __init__(
        self, tmp_path, *, store_wrapper=None, real_egress=False, aspects=ASPECTS, **settings
    ):
        self.tmp_path, self.settings = tmp_path, settings
        self.real_egress, self.aspects = real_egress, aspects
        self.provider = ScriptedProvider()
        self.providers = {"scripted": self.provider}
        self.graph = FlakyGraph(LadybugGraphStore(tmp_path / "graph", load_schema()))
        self.store_wrapper = store_wrapper

    async def start(self, *, seed=True):
        store = SqliteConversationStore(self.tmp_path / "c.db")
        # The queue is inspected here, so no in-process worker consumes it. Tests read the
        # capture's outcome in the turn's events: the turn waits for the write far longer than
        # the 2 s default, which a loaded CI machine can exceed (graph_write_pending then; that
        # path has its own tests with a short wait, test_capture_pending.py).
        settings = {"ingestion_worker": False, "graph_write_timeout_seconds": 30.0, **self.settings}
        self.container = await bootstrap(
            Settings(data_dir=self.tmp_path, log_json=False, **settings),
            graph=self.graph,
            conversations=self.store_wrapper(store) if self.store_wrapper else store,
            pii_scanner=EmailOnlyScanner(),
            lexicon=ConceptLexicon(),
            ingestion=InMemoryIngestionQueue(),
            providers=self.providers,
            router=LlmRouter(Route("scripted", "m")),
            aspects=self.aspects,
            retry_first_delay=0.01,
            **(
                {"egress_detector": EmailOnlyScanner()}
                if self.real_egress
                else {"egress": PassThroughEgress(self.providers)}
            ),
        )
        c = self.container
        self.engine, self.store, self.guard = c.engine, c.conversations, c.guard
        self.evidence, self.population, self.retry = c.evidence, c.population, c.retry
        self.ingestion = c.ingestion
        if seed:
            await self.seed()
        return self

    async def seed(self):
        writer = self.container.writer
        await writer.upsert_nodes(
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
        await writer.upsert_edges(
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
        await writer.drain()
        await self.evidence.refresh()

    async def turn(self, message="What is the VAT rate in Ireland?", conversation_id=None):
        request = TurnRequest("acme", "alice", message, conversation_id)
        return [event async for event in self.engine.run_turn(request)]

    async def close(self):
        await self.container.aclose()


@pytest.fixture
async def h(tmp_path):
    harness = await Harness(tmp_path).start()
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
    shown = [e.type for e in events if e.type != "progress"]
    assert shown == ["metadata", "text", "text", "concepts", "warning", "done"]
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
    assert history == ["What is the VAT rate in Ireland?", "x", "And the reduced rate?"]


async def test_an_alias_resolves_to_the_existing_reviewed_concept(h):
    h.provider.script = [Text("x"), tool({"concepts": [VAT]}), Done()]
    await h.turn()
    await confirm_concept(h.graph, h.container.writer, "TAX:IE:VAT")
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


async def test_an_alias_never_resolves_to_a_quarantined_concept(h):
    """Another conversation's unreviewed capture is not a canonical concept yet: matching its
    labels would hand that conversation's id and phrasing to this one (ADR 0020)."""
    h.provider.script = [Text("x"), tool({"concepts": [VAT]}), Done()]
    await h.turn()
    alias = {**VAT, "kind": "VALUE_ADDED_TAX", "prefLabel": "value added tax", "altLabels": []}
    h.provider.script = [Text("x"), tool({"concepts": [alias]}), Done()]
    events = await h.turn()
    [concept] = by_type(events, "concepts")[0].concepts
    assert (concept["id"], concept["matchedBy"]) == ("TAX:IE:VALUE_ADDED_TAX", "created")


async def test_a_reviewed_concept_gains_no_labels_from_a_chat(h):
    """ "acme vat" said in one tenant's chat must not become a label every tenant sees."""
    h.provider.script = [Text("x"), tool({"concepts": [VAT]}), Done()]
    await h.turn()
    await confirm_concept(h.graph, h.container.writer, "TAX:IE:VAT")
    echo = {**VAT, "altLabels": ["acme vat", "SIOBHAN MURPHY VAT"]}
    h.provider.script = [Text("x"), tool({"concepts": [echo]}), Done()]
    events = await h.turn()
    [concept] = by_type(events, "concepts")[0].concepts
    assert (concept["id"], concept["matchedBy"]) == ("TAX:IE:VAT", "key")
    around = await h.graph.neighbourhood(["TAX:IE:VAT"])
    texts = {str(n.properties.get("text", "")).lower() for n in around.nodes if n.label == "Label"}
    assert "acme vat" not in texts and "siobhan murphy vat" not in texts


async def test_ten_conversations_naming_a_new_concept_create_it_once(h):
    h.provider.script = [Text("x"), tool({"concepts": [NEW]}), Done()]
    turns = await asyncio.gather(
        *[h.turn("Tell me about carbon tax in Ireland") for _ in range(10)]
    )
    # Each conversation is told a first capture (issue 26: none learns that another asked);
    # the graph holds the concept once and one ingestion job was queued.
    created = [c["created"] for t in turns for c in by_type(t, "concepts")[0].concepts]
    assert created == [True] * 10
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
    stored = await h.store.recent_messages("acme", events[0].conversation_id, 10, user_id="alice")
    assert [m.content for m in stored] == ["What is the VAT rate in Ireland?", "answer"]


async def test_pii_in_a_graph_write_is_rejected_recorded_and_the_turn_completes(h):
    leaky = {**NEW, "altLabels": ["vat@revenue.gov"]}  # term-shaped: the guard decides
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
    assert [e.type for e in events if e.type != "progress"] == ["metadata", "text", "error", "done"]
    assert events[-1].status == "error"
    stored = await h.store.recent_messages("acme", events[0].conversation_id, 10, user_id="alice")
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
    while (await anext(turn)).type == "progress":  # until one text chunk reached the client,
        pass  # then it went away
    await turn.aclose()
    await h.engine.aclose()  # background save finishes
    stored = await h.store.recent_messages("acme", metadata.conversation_id, 10, user_id="alice")
    assert [(m.role, m.content, m.status) for m in stored] == [
        ("user", "What is the VAT rate?", "complete"),
        ("assistant", "first ", "partial"),
    ]


async def test_a_graph_outage_degrades_to_a_warning_and_the_write_is_retried(h):
    h.graph.failures = 2
    h.provider.script = [Text("answer"), tool({"concepts": [NEW]}), Done()]
    events = await h.turn()
    assert by_type(events, "warning")[0].warning.code == "graph_unavailable"
    assert events[-1].status == "complete"
    with anyio.fail_after(10):
        while not h.retry.completed:  # noqa: ASYNC110 - the retry runs in its own task
            await asyncio.sleep(0.01)
    assert h.retry.completed == 1
    assert [n.id for n in await h.graph.get_nodes(["TAX:IE:CARBON_TAX"])] == ["TAX:IE:CARBON_TAX"]


async def test_a_store_that_is_down_at_save_time_ends_the_turn_with_an_error(tmp_path):
    h = await Harness(tmp_path, store_wrapper=SaveFails).start()
    try:
        events = await h.turn()
    finally:
        await h.close()
    assert [e.type for e in events][-3:] == ["text", "error", "done"]
    assert events[-2].code == "conversation_store_unavailable"
    assert events[-1].status == "error"


class CrashingProvider(ScriptedProvider):
    async def stream(self, request):
        yield Text("half an ans")
        raise RuntimeError("bug in a provider")


async def test_a_provider_that_crashes_mid_stream_ends_the_turn_cleanly(h):
    h.providers["scripted"] = CrashingProvider()
    events = await h.turn()
    assert [e.type for e in events if e.type != "progress"] == ["metadata", "text", "error", "done"]
    assert events[-2].code == "internal_error" and events[-1].status == "error"
    stored = await h.store.recent_messages("acme", events[0].conversation_id, 10, user_id="alice")
    assert [(m.content, m.status) for m in stored][-1] == ("half an ans", "error")


async def test_a_capture_that_outlasts_its_retries_is_written_after_a_restart(h, tmp_path):
    h.graph.failures = 100
    h.provider.script = [Text("answer"), tool({"concepts": [NEW]}), Done()]
    await h.turn()
    with anyio.fail_after(10):
        while not h.retry.abandoned:  # noqa: ASYNC110 - the retry runs in its own task
            await asyncio.sleep(0.01)
    assert await h.graph.inner.get_nodes(["TAX:IE:CARBON_TAX"]) == []
    await h.close()

    restarted = await Harness(tmp_path).start(seed=False)  # same data folder: a restart
    try:
        with anyio.fail_after(10):
            while not restarted.retry.completed:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        nodes = await restarted.graph.get_nodes(["TAX:IE:CARBON_TAX"])
        assert [n.id for n in nodes] == ["TAX:IE:CARBON_TAX"]
    finally:
        await restarted.close()
    assert (await GraphOutbox.open(tmp_path / "graph_outbox.jsonl")).pending() == []


async def test_the_engine_refuses_a_turn_after_close_and_closes_twice_quietly(h):
    # h.engine is the engine as the app wraps it (metering over usage over ChatEngine): the
    # wrappers refuse through the engine they wrap.
    prepared = await h.engine.prepare(TurnRequest("acme", "alice", "What is the VAT rate?"))
    await h.engine.aclose()
    with pytest.raises(AdapterClosed, match="closed"):
        await h.engine.prepare(TurnRequest("acme", "alice", "And the reduced rate?"))
    with pytest.raises(AdapterClosed, match="closed"):
        await anext(h.engine.stream(prepared))
    with pytest.raises(AdapterClosed, match="closed"):
        await h.turn()
    assert h.provider.requests == []  # nothing was sent after the close
    await h.engine.aclose()


async def test_a_client_gone_right_after_metadata_still_keeps_the_question(h):
    h.provider.script = [Text("never read"), Done()]
    turn = h.engine.run_turn(TurnRequest("acme", "alice", "What is the VAT rate?"))
    metadata = await anext(turn)
    await turn.aclose()
    await h.engine.aclose()
    stored = await h.store.recent_messages("acme", metadata.conversation_id, 10, user_id="alice")
    assert [(m.role, m.content, m.status) for m in stored] == [
        ("user", "What is the VAT rate?", "complete"),
        ("assistant", "", "partial"),
    ]


async def test_concurrent_turns_of_one_conversation_lose_no_captured_concept(h):
    """Two turns at once in one conversation: whether the second read its history before the
    first saved (two sibling branches, ADR 0062) or after (one after the other, the first
    still streaming), every branch's context holds the concepts captured by the answers on
    it; a capture that lands after the next turn took its context is not lost."""
    h.provider.script = [Text("x"), Done()]
    conversation_id = (await h.turn())[0].conversation_id
    h.providers["scripted"] = ByQuestion(
        {
            "Irish vat?": [Text("a"), tool({"concepts": [VAT]}), Done()],
            "Irish carbon?": [Text("b"), tool({"concepts": [NEW]}), Done()],
        }
    )
    await asyncio.gather(
        h.turn("Irish vat?", conversation_id), h.turn("Irish carbon?", conversation_id)
    )
    captured = {"Irish vat?": "TAX:IE:VAT", "Irish carbon?": "TAX:IE:CARBON_TAX"}
    view = await h.store.conversation_view("acme", conversation_id, 50, user_id="alice")
    on_path = {m.id for m in view.messages}
    others = {i for ids in view.siblings.values() for i in ids} - on_path
    branches = [view]
    for message_id in others:
        await h.store.switch_branch("acme", conversation_id, message_id, user_id="alice")
        branches.append(
            await h.store.conversation_view("acme", conversation_id, 50, user_id="alice")
        )
    asked = [q for b in branches for q in (m.content for m in b.messages) if q in captured]
    assert sorted(asked) == sorted(captured)  # both turns kept, each once
    for branch in branches:
        wanted = {captured[m.content] for m in branch.messages if m.content in captured}
        assert wanted <= set(branch.context.active_node_ids)


class ByQuestion(ScriptedProvider):
    """Replays the script keyed by the turn's question (concurrent turns, different answers)."""

    def __init__(self, scripts):
        super().__init__()
        self.scripts = scripts

    async def stream(self, request):
        self.requests.append(request)
        for chunk in self.scripts[request.messages[-1].content]:
            yield chunk


async def test_a_capture_the_guard_would_refuse_is_never_kept_for_later(h, tmp_path):
    h.graph.failures = 100
    leaky = {**NEW, "altLabels": ["vat@revenue.gov"]}  # term-shaped: the guard decides
    h.provider.script = [Text("answer"), tool({"concepts": [leaky]}), Done()]
    events = await h.turn()
    assert by_type(events, "warning")[0].warning.code == "graph_unavailable"
    await h.engine.aclose()
    assert h.retry.pending == 0
    assert not (tmp_path / "graph_outbox.jsonl").exists()  # nothing was written to disk


async def test_the_single_flight_lock_outlives_its_holder_while_others_wait(h):
    gate = asyncio.Event()
    original = h.population._resolve

    async def slow(concept, jurisdictions):
        await gate.wait()
        return await original(concept, jurisdictions)

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


async def test_regression_a_new_prompt_aspect_with_user_text_is_scanned_by_egress(tmp_path):
    """Regression: the turn declared prompt messages 0..len(history)+1 sanitised by position,
    so an aspect added later that carries user text went upstream unscanned. Provenance now
    travels with the message; the real egress client scans the unmarked system message."""
    profile = "Contact: mary@example.ie"  # user-provided text a future aspect might add

    def user_profile(inputs):
        return f"USER PROFILE: {profile}"

    h = await Harness(tmp_path, real_egress=True, aspects=(*ASPECTS, user_profile)).start()
    try:
        await h.turn("What is the VAT rate? Reply to bob@example.ie")
    finally:
        await h.close()
    [sent] = h.provider.requests
    system, question = sent.messages[0].content, sent.messages[-1].content
    assert "USER PROFILE: Contact: [EMAIL_ADDRESS_" in system
    assert "mary@example.ie" not in system
    assert "bob@example.ie" not in question


async def test_the_second_turn_keeps_the_conversations_jurisdiction(h):
    """Regression (issue 10): turn 2 fell back to no jurisdiction, so its capture was skipped
    or guessed. A follow-up that names none stays in the jurisdiction the conversation named."""
    h.provider.script = [Text("x"), Done()]
    first = await h.turn("What is the VAT rate in the UK?")
    conversation_id = first[0].conversation_id
    h.provider.script = [Text("y"), tool({"concepts": [{**VAT, "jurisdiction": "UK"}]}), Done()]
    second = await h.turn("And the reduced rate?", conversation_id)
    assert second[0].jurisdictions == ["UK"]
    [concept] = by_type(second, "concepts")[0].concepts
    assert concept["id"] == "TAX:UK:VAT" and "skipped" not in concept
    h.provider.script = [Text("z"), tool({"concepts": [VAT]}), Done()]
    third = await h.turn("Is there a wealth tax?")  # a new conversation naming none
    assert third[0].jurisdictions == []
    [skipped] = by_type(third, "concepts")[0].concepts
    assert skipped["skipped"] == "jurisdiction_not_stated"
