"""Seeding goes through the write service and the real ingress guard; twice changes nothing."""

import pytest

from api.bootstrap import bootstrap
from api.settings import Settings
from engine.seeding import seed_graph
from tests.support.seeded import TEST_LEGAL_ACTS

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


async def test_seeding_twice_changes_nothing(seeded_data_dir):
    container = await bootstrap(Settings(data_dir=seeded_data_dir, log_json=False))
    try:
        before = await container.graph.counts()
        snapshot = await container.graph.snapshot(limit=10_000)
        report = await seed_graph(container.graph, container.writer, legal=TEST_LEGAL_ACTS)
        after = await container.graph.counts()
        again = await container.graph.snapshot(limit=10_000)
    finally:
        await container.aclose()
    assert set(report.nodes) == {"unchanged"} and set(report.edges) == {"unchanged"}
    assert set(report.concepts) == {"unchanged"}
    assert set(report.concept_links) == {"unchanged"}
    assert after == before
    stamps = {
        n.id: (n.properties["created_at"], n.properties["updated_at"]) for n in snapshot.nodes
    }
    assert {
        n.id: (n.properties["created_at"], n.properties["updated_at"]) for n in again.nodes
    } == stamps


async def test_the_seed_graph_is_big_enough_and_sourced(seeded_data_dir):
    container = await bootstrap(Settings(data_dir=seeded_data_dir, log_json=False))
    try:
        counts = await container.graph.counts()
        rules = await container.graph.snapshot(limit=10_000)
    finally:
        await container.aclose()
    concept_nodes = counts.by_label.get("Concept", 0) + counts.by_label.get("Label", 0)
    assert counts.nodes - concept_nodes >= 200
    assert counts.edges >= 350
    assert {"IE", "UK", "NI", "EU"} <= {n.id for n in rules.nodes}
    for node in rules.nodes:
        if node.label not in {"ProfileTag", "Concept", "Label"}:
            assert node.properties.get("source_urls"), node.id
    concepts = [n for n in rules.nodes if n.label == "Concept"]
    expected = {
        "TAX:IE:VAT",
        "VEHICLE_REG:IE:VRT",
        "TAX:IE:USC",
        "TAX:IE:CGT",
        "SOCIAL_INSURANCE:IE:PRSI",
    }
    assert expected <= {c.id for c in concepts}
    assert {c.properties["status"] for c in concepts} == {"confirmed"}
    # A narrower concept is its own node under its parent, never one of its labels.
    links = {(e.source, e.type, e.target) for e in rules.edges}
    assert ("TAX:UK:PERSONAL_ALLOWANCE", "BROADER", "TAX:UK:INCOME_TAX") in links
    assert (
        "TAX:UK:HIGH_INCOME_CHILD_BENEFIT_CHARGE",
        "RELATED",
        "WELFARE:UK:CHILD_BENEFIT",
    ) in links
