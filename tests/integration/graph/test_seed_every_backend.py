"""`regintel seed`'s path (write service, real ingress guard) on the Bolt server: twice = once.

Ladybug's "twice = once" is ``tests/integration/test_seed.py`` (the session's seeded template,
itself seeded through this path, seeded again): seeding from empty twice more on Ladybug took
40 s of the suite for the same assertion."""

import pytest

from egress.pii import build_ingress_detector
from engine.seeding import read_seed_files, seed_graph
from graph.ingress_guard import IngressGuard
from graph.write_service import GraphWriteService
from tests.support.seeded import TEST_LEGAL_ACTS

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.mark.parametrize("store", ["bolt"], indirect=True)
async def test_seeding_twice_changes_nothing(store, graph_schema):
    writer = GraphWriteService(store, IngressGuard(graph_schema, build_ingress_detector()))
    seeds = read_seed_files()
    before = await store.counts()
    first = await seed_graph(store, writer, legal=TEST_LEGAL_ACTS)
    middle = await store.counts()
    stamps = {n.id: n.properties["created_at"] for n in (await store.snapshot(limit=50_000)).nodes}
    second = await seed_graph(store, writer, legal=TEST_LEGAL_ACTS)
    after = await store.counts()
    # Seed ids are fixed (unlike the conformance suite's), so on the session's shared Bolt
    # database a rerun finds them; either way every seed row is accounted for.
    assert set(first.nodes) <= {"created", "unchanged"}
    assert sum(first.nodes.values()) == len(seeds["nodes"])
    assert sum(first.edges.values()) == len(seeds["edges"])
    assert dict(second.nodes) == {"unchanged": len(seeds["nodes"])}
    assert dict(second.edges) == {"unchanged": len(seeds["edges"])}
    assert dict(second.concepts) == {"unchanged": len(seeds["concepts"])}
    assert after == middle and middle.nodes >= before.nodes
    again = {n.id: n.properties["created_at"] for n in (await store.snapshot(limit=50_000)).nodes}
    assert again == stamps
