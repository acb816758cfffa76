"""Issue 24 on both graph backends (Ladybug and the Bolt server): a capture near another
capture still in quarantine is created with it among its review ``candidates`` (read through
``quarantined_concepts``), never merged into it, and what the turn is told of the mention
(``ResolvedConcept``: the ``concepts`` event) names nothing of the other capture (ADR 0020)."""

from __future__ import annotations

import uuid

import pytest

from engine.concepts import CapturedConcept
from engine.evidence import EvidenceIndex
from engine.ingestion import InMemoryIngestionQueue
from engine.review import review_queue
from engine.self_population import SelfPopulation
from graph.ingress_guard import IngressGuard
from graph.port import GraphStore
from graph.schema import GraphSchema
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


def capture(kind: str, label: str) -> CapturedConcept:
    return CapturedConcept(domain="TAX", kind=kind, jurisdiction="IE", prefLabel=label)


async def test_a_near_duplicate_of_a_quarantined_capture_is_its_candidate_only(
    store: GraphStore, graph_schema: GraphSchema
) -> None:
    # Letters only, first: the Bolt database is shared by the session's tests.
    sfx = "".join(chr(ord("a") + int(c, 16)) for c in uuid.uuid4().hex[:10])
    writer = GraphWriteService(store, IngressGuard(graph_schema, EmailOnlyScanner()))
    population = SelfPopulation(store, writer, EvidenceIndex(store), InMemoryIngestionQueue())
    first = capture(f"SMALL_BENEFIT_EXEMPTION_{sfx}", f"{sfx} small benefit exemption")
    [a] = await population.resolve_all([first], ["IE"])
    assert (a.id, a.created, a.status) == (first.id, True, "provisional")

    second = capture(f"SBE_SCHEME_{sfx}", f"{sfx} small benefit exemption scheme")
    [b] = await population.resolve_all([second], ["IE"])
    assert (b.id, b.created, b.status) == (second.id, True, "provisional")  # never merged
    told = " ".join([b.id, b.pref_label, *b.aligned_with])
    assert first.id not in told and "exemption scheme" in b.pref_label

    [node] = await store.get_nodes([second.id])
    stored = {str(c).split("|")[0]: str(c).split("|")[1] for c in node.properties["candidates"]}
    assert stored.get(first.id) == "parent_child"  # for the review queue
    [earlier] = await store.get_nodes([first.id])
    assert second.id not in str(earlier.properties.get("candidates") or [])
    # The operator's queue shows it, as another capture awaiting review (merge needs a
    # reviewed target: confirm one first).
    [queued] = [item for item in await review_queue(store) if item.id == second.id]
    assert [(c.id, c.reason, c.status) for c in queued.candidates] == [
        (first.id, "parent_child", "provisional")
    ]

    unrelated = capture(f"CARBON_LEVY_{sfx}", f"{sfx} carbon levy")
    [c] = await population.resolve_all([unrelated], ["IE"])
    [node] = await store.get_nodes([c.id])
    listed = [str(x).split("|")[0] for x in node.properties.get("candidates") or []]
    assert first.id not in listed and second.id not in listed
