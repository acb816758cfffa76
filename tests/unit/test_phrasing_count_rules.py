"""Phrasing counts (ADR 0036), with fakes: the increment is planned, guarded and checked like a
write; a capture counts its labels; the review queue reads the counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
import yaml

from engine.concepts import CapturedConcept
from engine.review import review_queue
from engine.self_population import PREF_USES, USES, ConceptWriter
from errors import PiiInGraphWrite, SchemaViolation
from graph.backends.write_checks import check_edge_increment, check_edge_write
from graph.ingress_guard import IngressGuard
from graph.models import (
    EdgeIncrement,
    EdgeKey,
    EdgeWrite,
    GraphCounts,
    GraphEdge,
    GraphNode,
    GraphSnapshot,
    NodeWrite,
    WriteOutcome,
    WriteResult,
)
from graph.schema import DEFAULT_SCHEMA_PATH, SchemaFileError, load_schema
from graph.write_plan import plan_increments
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner

pytestmark = pytest.mark.unit

CONCEPT = "TAX:IE:WEALTH_TAX"


def increment(target: str = "LABEL:wealth_tax", by: dict[str, int] | None = None) -> EdgeIncrement:
    return EdgeIncrement(
        type="HAS_ALT_LABEL", source_id=CONCEPT, source_label="Concept",
        target_id=target, target_label="Label", by={USES: 1} if by is None else by,
    )  # fmt: skip


# -- the schema, the plan and the checks -----------------------------------------------------


def test_the_schema_declares_the_counters_as_ints_apart_from_the_properties():
    schema = load_schema()
    assert schema.relationship_counters == (USES, PREF_USES)
    assert {schema.property_types[c] for c in schema.relationship_counters} == {"int"}
    assert not set(schema.relationship_counters) & set(schema.relationship_properties)


@pytest.mark.parametrize("counter", ["weight", "undeclared", "notes"])
def test_a_counter_must_be_a_declared_int_that_is_no_property(tmp_path, counter):
    raw = yaml.safe_load(DEFAULT_SCHEMA_PATH.read_text(encoding="utf-8"))
    raw["relationship_counters"] = [counter]
    path = tmp_path / "graph.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    with pytest.raises(SchemaFileError, match="counters"):
        load_schema(path)


def test_a_plan_sums_a_batch_per_relationship_and_counter_and_reports_each_item():
    a, b = increment(), increment("LABEL:tax_on_wealth")
    plan = plan_increments([a, increment(by={USES: 2, PREF_USES: 1}), b])
    assert plan.amounts == {a.key: {USES: 3, PREF_USES: 1}, b.key: {USES: 1}}
    assert [(r.edge, r.outcome) for r in plan.results({a.key})] == [
        (a.key, WriteOutcome.UPDATED),
        (a.key, WriteOutcome.UPDATED),
        (b.key, WriteOutcome.UNCHANGED),  # no such relationship: nothing counted
    ]


@pytest.mark.parametrize(
    ("by", "reason"),
    [
        ({}, "no counter"),
        ({"weight": 1}, "not relationship counters"),
        ({"created_at": 1}, "not relationship counters"),
        ({USES: 0}, "positive"),
        ({USES: -3}, "positive"),
    ],
)
def test_the_backends_check_an_increment_before_its_names_reach_a_query(by, reason):
    item = EdgeIncrement(
        type="HAS_ALT_LABEL", source_id=CONCEPT, source_label="Concept",
        target_id="LABEL:x", target_label="Label", by=by,
    )  # fmt: skip
    with pytest.raises(SchemaViolation, match=reason):
        check_edge_increment(load_schema(), item)


def test_an_increment_between_labels_the_schema_does_not_allow_is_refused():
    item = increment().model_copy(update={"target_label": "Concept"})
    with pytest.raises(SchemaViolation, match="not allowed"):
        check_edge_increment(load_schema(), item)


def test_an_upsert_cannot_set_a_counter():
    edge = EdgeWrite(
        type="HAS_ALT_LABEL", source_id=CONCEPT, source_label="Concept",
        target_id="LABEL:x", target_label="Label", properties={USES: 100},
    )  # fmt: skip
    with pytest.raises(SchemaViolation, match="not allowed"):
        check_edge_write(load_schema(), edge)
    with pytest.raises(SchemaViolation, match="not allowed"):
        IngressGuard(load_schema(), EmailOnlyScanner()).check_edges([edge])


@pytest.mark.parametrize(
    ("item", "error", "reason"),
    [
        (increment(by={"weight": 1}), SchemaViolation, "unknown counter"),
        (increment(by={USES: 0}), SchemaViolation, "positive integer"),
        (increment(by={}), SchemaViolation, "unknown counter, or none"),
        (increment().model_copy(update={"type": "KNOWS"}), SchemaViolation, "unknown relationship"),
        (increment("LABEL:mary@example.ie"), PiiInGraphWrite, "PII"),
    ],
)
def test_the_guard_refuses_an_increment_it_would_refuse_as_a_write(item, error, reason):
    guard = IngressGuard(load_schema(), EmailOnlyScanner())
    with pytest.raises(error, match=reason):
        guard.check_increments([item])
    rejection = guard.rejections.entries[-1]
    assert "mary@example.ie" not in f"{rejection.target} {rejection.reason}"


def test_the_guard_passes_a_valid_increment_unchanged():
    item = increment(by={USES: 1, PREF_USES: 1})
    assert IngressGuard(load_schema(), EmailOnlyScanner()).check_increments([item]) == [item]


# -- the write service and a capture's count -------------------------------------------------


class CountingStore:
    """A writer that records increments (each batch) and knows which relationships exist."""

    def __init__(self, existing: set[EdgeKey] | None = None) -> None:
        self.existing = existing
        self.increments: list[list[EdgeIncrement]] = []

    async def upsert_nodes(self, nodes: Sequence[NodeWrite], now: str) -> list[WriteResult]:
        return [WriteResult(node_id=n.id, outcome=WriteOutcome.CREATED) for n in nodes]

    async def upsert_edges(self, edges: Sequence[EdgeWrite], now: str) -> list[WriteResult]:
        return [WriteResult(edge=e.key, outcome=WriteOutcome.CREATED) for e in edges]

    async def delete_nodes(self, ids: Sequence[str], now: str) -> list[WriteResult]:
        return []

    async def increment_edges(self, increments: Sequence[EdgeIncrement]) -> list[WriteResult]:
        self.increments.append(list(increments))
        return plan_increments(increments).results(
            {i.key for i in increments} if self.existing is None else self.existing
        )


def writes(store: CountingStore, batch_size: int = 500) -> GraphWriteService:
    return GraphWriteService(
        store, IngressGuard(load_schema(), EmailOnlyScanner()), batch_size=batch_size
    )


@pytest.mark.anyio
async def test_increments_are_guarded_batched_and_make_no_patch():
    store = CountingStore(existing={increment().key})
    service = writes(store, batch_size=2)
    told: list[Sequence[WriteResult]] = []

    async def listener(results: Sequence[WriteResult], now: str) -> None:
        told.append(results)

    service.subscribe(listener)
    with pytest.raises(PiiInGraphWrite):
        await service.increment_edges([increment(), increment("LABEL:mary@example.ie")])
    assert store.increments == []  # refused before anything was counted

    results = await service.increment_edges([increment(), increment(), increment("LABEL:x")])
    assert [len(batch) for batch in store.increments] == [2, 1]
    assert [r.outcome for r in results] == [
        WriteOutcome.UPDATED, WriteOutcome.UPDATED, WriteOutcome.UNCHANGED,
    ]  # fmt: skip
    await service.drain()
    assert told == []  # a count is for operators: no listener, so no patch
    await service.aclose()


@pytest.mark.anyio
async def test_a_capture_counts_each_of_its_labels_once_and_its_preferred_label_as_its_name():
    store = CountingStore()
    mention = CapturedConcept(
        domain="TAX", kind="WEALTH_TAX", jurisdiction="IE", prefLabel="Wealth tax",
        altLabels=["tax on wealth", "Wealth Tax", "wealth-tax"],
    )  # fmt: skip
    await ConceptWriter(QueueGraph([], []), writes(store)).count_mention(CONCEPT, mention)
    [batch] = store.increments
    assert [(i.source_id, i.target_id, i.by) for i in batch] == [
        (CONCEPT, "LABEL:wealth_tax", {USES: 1, PREF_USES: 1}),
        (CONCEPT, "LABEL:tax_on_wealth", {USES: 1}),
    ]


# -- the review queue -----------------------------------------------------------------------


class QueueGraph:
    """A reader holding one small graph (``review_queue`` reads snapshots and neighbourhoods)."""

    def __init__(self, nodes: list[GraphNode], edges: list[GraphEdge]) -> None:
        self.nodes, self.edges = nodes, edges

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        return [n for n in self.nodes if n.id in ids]

    async def find_concepts_by_label(self, normalised: str) -> list[GraphNode]:
        return []

    async def changes_since(self, timestamp: str, limit: int = 1000) -> GraphSnapshot:
        return GraphSnapshot()

    async def counts(self) -> GraphCounts:
        return GraphCounts(nodes=len(self.nodes), edges=len(self.edges))

    async def snapshot(
        self, labels: Sequence[str] | None = None, limit: int = 1000
    ) -> GraphSnapshot:
        return GraphSnapshot(nodes=[n for n in self.nodes if n.label in (labels or [n.label])])

    async def neighbourhood(self, ids: Sequence[str], limit: int = 200) -> GraphSnapshot:
        edges = [e for e in self.edges if e.source in ids or e.target in ids]
        around = {*ids, *(e.source for e in edges), *(e.target for e in edges)}
        return GraphSnapshot(nodes=[n for n in self.nodes if n.id in around], edges=edges)


def label(text: str) -> GraphNode:
    return GraphNode(id=f"LABEL:{text.replace(' ', '_')}", label="Label", properties={"text": text})


def has_label(text: str, **counts: Any) -> GraphEdge:
    return GraphEdge(source=CONCEPT, target=label(text).id, type="HAS_ALT_LABEL", properties=counts)


@pytest.mark.anyio
async def test_the_queue_shows_each_phrasing_with_its_count_most_used_first_and_the_mentions():
    concept = GraphNode(
        id=CONCEPT, label="Concept",
        properties={"status": "provisional", "pref_label": "Wealth tax", "created_at": "2026"},
    )  # fmt: skip
    graph = QueueGraph(
        [concept, label("wealth tax"), label("tax on wealth"), label("net wealth levy")],
        [
            has_label("tax on wealth", uses=1, created_at="2026"),
            has_label("wealth tax", uses=3, pref_uses=3),
            has_label("net wealth levy"),  # written before counting began
        ],
    )
    [item] = await review_queue(graph)
    assert item.phrasings == {"wealth tax": 3, "tax on wealth": 1, "net wealth levy": 0}
    assert list(item.phrasings) == ["wealth tax", "tax on wealth", "net wealth levy"]
    assert item.mentions == 3
    assert item.labels == ("net wealth levy", "tax on wealth", "wealth tax")


@pytest.mark.anyio
async def test_a_reviewed_concept_is_not_in_the_queue_whatever_its_counts():
    concept = GraphNode(id=CONCEPT, label="Concept", properties={"status": "confirmed"})
    graph = QueueGraph([concept, label("wealth tax")], [has_label("wealth tax", uses=9)])
    assert await review_queue(graph) == []
