"""A capture of a known concept reads its edges only when something needs them (ADR 0029,
third pass): the labels already linked to a provisional concept, or the sparse check of a
concept without a definition. A reviewed concept with a definition costs one read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import pytest

from engine.concepts import CapturedConcept
from engine.evidence import EvidenceIndex
from engine.ingestion import IngestionJob
from engine.self_population import SelfPopulation
from graph.models import GraphCounts, GraphEdge, GraphNode, GraphSnapshot
from graph.write_service import GraphWriteService

pytestmark = pytest.mark.unit

CONCEPT = "TAX:IE:VAT"
MENTION = CapturedConcept.model_validate(
    {"domain": "TAX", "kind": "VAT", "jurisdiction": "IE", "prefLabel": "Value-Added Tax"}
)


class CountingGraph:
    """One concept and its edges; counts the reads."""

    def __init__(self, node: GraphNode, edges: Sequence[GraphEdge] = ()) -> None:
        self.node, self.edges = node, list(edges)
        self.reads: list[str] = []

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        self.reads.append("get_nodes")
        return [self.node] if self.node.id in ids else []

    async def find_concepts_by_label(self, normalised: str) -> list[GraphNode]:
        self.reads.append("find_concepts_by_label")
        return []

    async def neighbourhood(self, ids: Sequence[str], limit: int = 200) -> GraphSnapshot:
        self.reads.append("neighbourhood")
        return GraphSnapshot(nodes=[self.node], edges=self.edges)

    async def snapshot(
        self, labels: Sequence[str] | None = None, limit: int = 1000
    ) -> GraphSnapshot:
        return GraphSnapshot()

    async def changes_since(self, timestamp: str, limit: int = 1000) -> GraphSnapshot:
        return GraphSnapshot()

    async def counts(self) -> GraphCounts:
        return GraphCounts(nodes=1, edges=len(self.edges))


class RecordingQueue:
    def __init__(self) -> None:
        self.jobs: list[IngestionJob] = []

    async def enqueue(self, job: IngestionJob) -> bool:
        self.jobs.append(job)
        return True

    async def aclose(self) -> None:
        return None


class NoWrites:
    """A reviewed concept is never written to by a capture: any use fails the test."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"unexpected graph write: {name}")


def population(graph: CountingGraph, queue: RecordingQueue) -> SelfPopulation:
    writer = cast(GraphWriteService, NoWrites())
    return SelfPopulation(graph, writer, EvidenceIndex(graph), queue)


def confirmed(**properties: Any) -> GraphNode:
    return GraphNode(
        id=CONCEPT,
        label="Concept",
        properties={"status": "confirmed", "pref_label": "Value-Added Tax (Ireland)", **properties},
    )


def aligns() -> GraphEdge:
    return GraphEdge(source=CONCEPT, target="IE:REGIME:VAT", type="ALIGNS_WITH", properties={})


@pytest.mark.anyio
async def test_a_reviewed_concept_with_a_definition_is_resolved_without_reading_its_edges() -> None:
    graph, queue = CountingGraph(confirmed(definition="A consumption tax.")), RecordingQueue()
    [resolved] = await population(graph, queue).resolve_all([MENTION], ["IE"])
    assert (resolved.id, resolved.status, resolved.matched_by) == (CONCEPT, "confirmed", "key")
    assert resolved.pref_label == "Value-Added Tax (Ireland)"
    assert graph.reads == ["get_nodes"]
    assert queue.jobs == []


@pytest.mark.anyio
async def test_a_concept_without_a_definition_or_alignment_is_still_queued_as_sparse() -> None:
    graph, queue = CountingGraph(confirmed()), RecordingQueue()
    await population(graph, queue).resolve_all([MENTION], ["IE"])
    assert graph.reads == ["get_nodes", "neighbourhood"]
    assert queue.jobs == [IngestionJob(CONCEPT, "sparse")]


@pytest.mark.anyio
async def test_a_concept_without_a_definition_but_aligned_is_not_queued() -> None:
    graph, queue = CountingGraph(confirmed(), [aligns()]), RecordingQueue()
    await population(graph, queue).resolve_all([MENTION], ["IE"])
    assert graph.reads == ["get_nodes", "neighbourhood"]
    assert queue.jobs == []
