"""The reviewed view of the graph (``graph.quarantine``) on the real embedded store: a chat's
capture (concept, labels, alignment) is absent from every tenant read until it is confirmed."""

import pytest

from engine.concepts import CapturedConcept
from engine.review import confirm_concept
from engine.self_population import ConceptWrite, ConceptWriter
from graph.backends.ladybug import LadybugGraphStore
from graph.ingress_guard import IngressGuard
from graph.models import NodeWrite
from graph.quarantine import ReviewedGraph, reviewed_edges
from graph.schema import load_schema
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

CAPTURED = CapturedConcept(
    domain="TAX", kind="WEALTH_TAX", jurisdiction="IE", prefLabel="Wealth tax",
    altLabels=["net worth levy"],
)  # fmt: skip
REGIME = NodeWrite(id="IE:REGIME:WEALTH", label="Regime", properties={"name": "Wealth regime"})


@pytest.fixture
async def parts(tmp_path):
    schema = load_schema()
    graph = LadybugGraphStore(tmp_path / "g", schema)
    await graph.init_schema()
    writer = GraphWriteService(graph, IngressGuard(schema, EmailOnlyScanner()))
    await writer.upsert_nodes([REGIME])
    await ConceptWriter(graph, writer).write(
        ConceptWrite(
            concept=CAPTURED, status="provisional", aligns_with=[(REGIME.id, REGIME.label)]
        )
    )
    yield graph, writer
    await writer.aclose()
    await graph.aclose()


def ids(snapshot):
    return (
        {n.id for n in snapshot.nodes}
        | {e.source for e in snapshot.edges}
        | {e.target for e in snapshot.edges}
    )


async def test_a_capture_is_absent_from_every_reviewed_read(parts):
    graph, _ = parts
    reviewed = ReviewedGraph(graph)
    everything = await graph.snapshot(limit=100)
    assert "TAX:IE:WEALTH_TAX" in ids(everything)  # the raw store holds it
    for snapshot in [
        await reviewed.snapshot(limit=100),
        await reviewed.snapshot(labels=["Concept", "Label"], limit=100),
        await reviewed.neighbourhood([REGIME.id]),
        await reviewed.changes_since("2000-01-01T00:00:00.000000Z"),
    ]:
        seen = ids(snapshot)
        assert "TAX:IE:WEALTH_TAX" not in seen
        assert not any(i.startswith("LABEL:") for i in seen)  # its labels are quarantined too
    assert REGIME.id in ids(await reviewed.snapshot(limit=100))
    assert (await reviewed.neighbourhood(["TAX:IE:WEALTH_TAX"])).nodes == []


async def test_confirming_releases_the_concept_its_labels_and_edges(parts):
    graph, writer = parts
    await confirm_concept(graph, writer, "TAX:IE:WEALTH_TAX")
    around = await ReviewedGraph(graph).neighbourhood(["TAX:IE:WEALTH_TAX"])
    assert {(e.type, e.target) for e in around.edges} >= {
        ("ALIGNS_WITH", REGIME.id),
        ("HAS_ALT_LABEL", "LABEL:net_worth_levy"),
    }
    [label] = [n for n in around.nodes if n.id == "LABEL:net_worth_levy"]
    assert label.properties["status"] == "confirmed" and label.properties["reviewed_at"]


async def test_an_edge_to_a_node_outside_the_page_is_judged_by_reading_it(parts):
    graph, writer = parts
    around = await graph.neighbourhood([REGIME.id])
    [raw] = [e for e in around.edges if e.type == "ALIGNS_WITH"]
    assert await reviewed_edges(graph, [raw], {}) == []  # the concept was read: quarantined
    await confirm_concept(graph, writer, "TAX:IE:WEALTH_TAX")
    assert await reviewed_edges(graph, [raw], {}) == [raw]
