"""Phrasing counts through the real capture path on the embedded store (ADR 0036): each capture
of a quarantined concept counts the phrasings it used, a rejected one counts nothing, a merge
moves the counts with the labels, and the review queue shows them without any id of who."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.concepts import CapturedConcept
from engine.evidence import EvidenceIndex
from engine.ingestion import InMemoryIngestionQueue
from engine.review import confirm_concept, merge_concepts, review_queue
from engine.self_population import ConceptWrite, ConceptWriter, SelfPopulation
from errors import GraphWriteRejected
from graph.backends.ladybug import LadybugGraphStore
from graph.ingress_guard import IngressGuard
from graph.schema import load_schema
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

WEALTH_TAX = "TAX:IE:WEALTH_TAX"


def wealth_tax(*alt_labels: str, pref_label: str = "Wealth tax") -> CapturedConcept:
    return CapturedConcept(
        domain="TAX", kind="WEALTH_TAX", jurisdiction="IE", prefLabel=pref_label,
        altLabels=list(alt_labels),
    )  # fmt: skip


@dataclass
class Parts:
    graph: LadybugGraphStore
    writer: GraphWriteService

    def worker(self) -> SelfPopulation:
        """The capture path of one API worker (its own single-flight, the shared store)."""
        return SelfPopulation(
            self.graph, self.writer, EvidenceIndex(self.graph), InMemoryIngestionQueue()
        )


@pytest.fixture
async def parts(tmp_path: Path) -> AsyncIterator[Parts]:
    schema = load_schema()
    graph = LadybugGraphStore(tmp_path / "g", schema)
    await graph.init_schema()
    writer = GraphWriteService(graph, IngressGuard(schema, EmailOnlyScanner()))
    yield Parts(graph, writer)
    await writer.aclose()
    await graph.aclose()


async def queued(parts: Parts, concept_id: str = WEALTH_TAX) -> tuple[dict[str, int], int]:
    [item] = [i for i in await review_queue(parts.graph) if i.id == concept_id]
    return item.phrasings, item.mentions


async def test_captures_with_the_same_and_other_phrasings_are_counted_per_phrasing(parts):
    population = parts.worker()
    [first] = await population.resolve_all([wealth_tax("tax on wealth")])
    [second] = await population.resolve_all([wealth_tax(pref_label="wealth tax")])
    [third] = await population.resolve_all([wealth_tax("net wealth levy")])
    assert (first.created, second.matched_by, third.matched_by) == (True, "key", "key")

    phrasings, mentions = await queued(parts)
    # The label keeps its first spelling; "wealth tax" is the same phrasing.
    assert phrasings == {"Wealth tax": 3, "net wealth levy": 1, "tax on wealth": 1}
    assert mentions == 3


async def test_two_workers_capturing_a_new_concept_at_once_both_count(parts):
    alice, carol = parts.worker(), parts.worker()
    results = await asyncio.gather(
        alice.resolve_all([wealth_tax("tax on wealth")]),
        carol.resolve_all([wealth_tax("tax on wealth", "net wealth levy")]),
    )
    assert sorted(r.created for [r] in results) == [False, True]  # created once
    phrasings, mentions = await queued(parts)
    assert phrasings == {"Wealth tax": 2, "tax on wealth": 2, "net wealth levy": 1}
    assert mentions == 2


async def test_a_capture_the_guard_rejects_counts_nothing(parts):
    population = parts.worker()
    await population.resolve_all([wealth_tax("tax on wealth")])
    with pytest.raises(GraphWriteRejected):  # a label with PII: nothing of it is written
        await population.resolve_all([wealth_tax("tax on wealth", "mary.murphy@example.ie")])
    with pytest.raises(GraphWriteRejected):  # the same for a concept that would be new
        await population.resolve_all(
            [CapturedConcept(domain="TAX", kind="LEVY", jurisdiction="IE",
                             prefLabel="Levy", altLabels=["ask mary@example.ie"])]
        )  # fmt: skip
    assert await queued(parts) == ({"Wealth tax": 1, "tax on wealth": 1}, 1)
    assert [i.id for i in await review_queue(parts.graph)] == [WEALTH_TAX]


async def test_a_reviewed_concept_is_not_counted_and_leaves_the_queue(parts):
    population = parts.worker()
    await population.resolve_all([wealth_tax("tax on wealth")])
    await confirm_concept(parts.graph, parts.writer, WEALTH_TAX)
    [again] = await population.resolve_all([wealth_tax("tax on wealth")])
    assert (again.id, again.status) == (WEALTH_TAX, "confirmed")
    assert await review_queue(parts.graph) == []
    around = await parts.graph.neighbourhood([WEALTH_TAX])
    assert {e.properties.get("uses") for e in around.edges if e.type == "HAS_ALT_LABEL"} == {1}


async def test_a_merge_moves_the_counts_with_the_labels_and_sums_a_shared_phrasing(parts):
    concepts = ConceptWriter(parts.graph, parts.writer)
    survivor = wealth_tax("tax on wealth")
    await concepts.write(ConceptWrite(concept=survivor, status="provisional"))
    await concepts.count_mention(WEALTH_TAX, survivor)  # counted while it was a capture
    await confirm_concept(parts.graph, parts.writer, WEALTH_TAX)
    captured = CapturedConcept(
        domain="TAX", kind="NET_WEALTH_TAX", jurisdiction="IE", prefLabel="Net wealth tax",
        altLabels=["tax on wealth"],
    )  # fmt: skip
    await concepts.write(ConceptWrite(concept=captured, status="provisional"))
    for _ in range(2):
        await concepts.count_mention(captured.id, captured)
    assert await queued(parts, captured.id) == ({"Net wealth tax": 2, "tax on wealth": 2}, 2)

    await merge_concepts(parts.graph, parts.writer, captured.id, WEALTH_TAX)

    around = await parts.graph.neighbourhood([WEALTH_TAX])
    counts = {
        e.target: (e.properties.get("uses"), e.properties.get("pref_uses"))
        for e in around.edges
        if e.source == WEALTH_TAX and e.type == "HAS_ALT_LABEL"
    }
    assert counts == {
        "LABEL:wealth_tax": (1, 1),
        "LABEL:tax_on_wealth": (3, None),  # 1 of its own + 2 moved
        "LABEL:net_wealth_tax": (2, 2),
    }
    assert await review_queue(parts.graph) == []
