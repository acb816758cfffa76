"""Only confirmed concepts reach the lexicon; provisional ones travel by name only."""

import asyncio

import pytest

from engine.concepts import CapturedConcept
from engine.evidence import EvidenceIndex, describe
from engine.graph_sync import GraphSync
from engine.lexicon import ConceptLexicon
from engine.review import confirm_concept
from engine.self_population import ConceptWrite, ConceptWriter
from graph.backends.ladybug import LadybugGraphStore
from graph.ingress_guard import IngressGuard
from graph.models import NodeWrite
from graph.schema import load_schema
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

WEALTH = CapturedConcept(
    domain="TAX",
    kind="WEALTH_TAX",
    jurisdiction="IE",
    prefLabel="Wealth tax",
    altLabels=["net worth levy"],
    definition="A draft definition someone's chat produced.",
)


@pytest.fixture
async def parts(tmp_path):
    schema = load_schema()
    graph = LadybugGraphStore(tmp_path / "g", schema)
    await graph.init_schema()
    writer = GraphWriteService(graph, IngressGuard(schema, EmailOnlyScanner()))
    evidence = EvidenceIndex(graph)
    lexicon = ConceptLexicon()
    sync = GraphSync(graph, evidence, lexicon)
    await sync.start()
    writer.subscribe(sync.on_change)
    yield graph, writer, evidence, lexicon
    await writer.aclose()
    await graph.aclose()


async def test_a_provisional_concept_is_not_learnt_until_confirmed(parts):
    graph, writer, evidence, lexicon = parts
    await ConceptWriter(graph, writer).write(ConceptWrite(concept=WEALTH, status="provisional"))
    await writer.drain()  # listeners run off the write's path
    assert lexicon.match("is there a net worth levy?") == []
    await evidence.refresh()
    [(_, text)] = evidence.descriptions(["TAX:IE:WEALTH_TAX"])
    # Neither its captured definition nor its pref_label (someone's phrasing) reaches prompts.
    assert text == "wealth tax [provisional: captured in a conversation, not yet reviewed]"

    await confirm_concept(graph, writer, "TAX:IE:WEALTH_TAX")  # the concept and its labels
    await writer.drain()
    [hit] = lexicon.match("is there a net worth levy?")
    assert hit.entry.key == "TAX:IE:WEALTH_TAX"
    [node] = await graph.get_nodes(["TAX:IE:WEALTH_TAX"])
    assert "draft definition" in describe(node)


async def test_start_learns_confirmed_concepts_with_their_labels(parts, tmp_path):
    graph, writer, evidence, _ = parts
    await ConceptWriter(graph, writer).write(ConceptWrite(concept=WEALTH, status="confirmed"))
    fresh = ConceptLexicon()
    assert await GraphSync(graph, evidence, fresh).start() == 1
    assert [h.entry.key for h in fresh.match("a net worth levy")] == ["TAX:IE:WEALTH_TAX"]


class CountingEvidence(EvidenceIndex):
    """The real index, counting the background rebuilds it is asked for."""

    def __init__(self, graph):
        super().__init__(graph)
        self.rebuilds = 0

    def schedule_refresh(self):
        self.rebuilds += 1
        super().schedule_refresh()


@pytest.fixture
async def counted(tmp_path):
    schema = load_schema()
    graph = LadybugGraphStore(tmp_path / "g", schema)
    await graph.init_schema()
    writer = GraphWriteService(graph, IngressGuard(schema, EmailOnlyScanner()))
    evidence = CountingEvidence(graph)
    writer.subscribe(GraphSync(graph, evidence, ConceptLexicon()).on_change)
    await writer.upsert_nodes([NodeWrite(id="IE", label="Jurisdiction", properties={})])
    await writer.drain()
    evidence.rebuilds = 0
    yield graph, writer, evidence
    await evidence.aclose()
    await writer.aclose()
    await graph.aclose()


async def test_a_chat_capture_is_remembered_without_rebuilding_the_index(counted):
    graph, writer, evidence = counted
    await ConceptWriter(graph, writer).write(ConceptWrite(concept=WEALTH, status="provisional"))
    await writer.drain()
    assert evidence.rebuilds == 0
    [(_, text)] = evidence.descriptions(["TAX:IE:WEALTH_TAX"])  # described at once
    assert text.startswith("wealth tax [provisional")


async def test_writes_that_can_change_evidence_rebuild_the_index(counted):
    """Each step is drained before the next: the listener reads the nodes when it runs, so a
    capture's notice delivered after the concept was confirmed is (rightly, conservatively)
    judged as an evidence change too, and the count would depend on timing."""
    graph, writer, evidence = counted
    await ConceptWriter(graph, writer).write(ConceptWrite(concept=WEALTH, status="provisional"))
    await writer.drain()
    assert evidence.rebuilds == 0
    await writer.upsert_nodes(  # confirming makes it shared knowledge: evidence changes
        [NodeWrite(id="TAX:IE:WEALTH_TAX", label="Concept", properties={"status": "confirmed"})]
    )
    await writer.drain()
    assert evidence.rebuilds == 1
    await writer.upsert_nodes(
        [NodeWrite(id="IE:RATE:X", label="Rate", properties={"name": "A rate"})]
    )
    await writer.drain()
    assert evidence.rebuilds == 2


async def test_a_node_remembered_while_a_rebuild_reads_its_snapshot_is_not_forgotten(counted):
    """A capture lands while a background rebuild is reading a snapshot taken before it: the
    rebuild, when it lands, keeps the capture's description (it once replaced it)."""
    graph, writer, evidence = counted
    reading, release = asyncio.Event(), asyncio.Event()
    snapshot = graph.snapshot

    async def slow_snapshot(*args, **kwargs):
        found = await snapshot(*args, **kwargs)  # taken before the capture is written
        reading.set()
        await release.wait()
        return found

    graph.snapshot = slow_snapshot
    rebuild = asyncio.create_task(evidence.refresh())
    await reading.wait()
    await ConceptWriter(graph, writer).write(ConceptWrite(concept=WEALTH, status="provisional"))
    await writer.drain()
    release.set()
    await rebuild
    [(_, text)] = evidence.descriptions(["TAX:IE:WEALTH_TAX"])
    assert text.startswith("wealth tax [provisional")
