"""The ``GraphStore`` conformance suite: every behaviour the engine relies on, run unchanged
against every backend (``store`` is parametrised over Ladybug and Bolt in ``conftest.py``).

Ids carry a fresh uuid suffix so tests sharing one Bolt database never clash; assertions look
only at the ids a test wrote (counts are compared as deltas).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest

from errors import AdapterClosed, GraphUnavailable, SchemaViolation
from graph.models import (
    EdgeIncrement,
    EdgeKey,
    EdgeWrite,
    NodeWrite,
    PropertyValue,
    WriteOutcome,
    WriteResult,
    utc_timestamp,
)
from graph.port import GraphStore, QuarantinedConceptReader
from tests.integration.graph.faults import StoreFault

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def ts(seconds: int) -> str:
    return utc_timestamp(T0 + timedelta(seconds=seconds))


def uid(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12].upper()}"


def concept(node_id: str, pref_label: str = "Value-added tax", **extra: PropertyValue) -> NodeWrite:
    props: dict[str, PropertyValue] = {
        "domain": "TAX",
        "kind": "VAT",
        "jurisdiction": "IE",
        "pref_label": pref_label,
        **extra,
    }
    return NodeWrite(id=node_id, label="Concept", properties=props)


def label_node(node_id: str, text: str) -> NodeWrite:
    return NodeWrite(
        id=node_id, label="Label", properties={"text": text, "normalised": text.lower()}
    )


def alt_label(concept_id: str, label_id: str) -> EdgeWrite:
    return EdgeWrite(
        type="HAS_ALT_LABEL",
        source_id=concept_id,
        source_label="Concept",
        target_id=label_id,
        target_label="Label",
    )


def outcomes(results: list[WriteResult]) -> list[WriteOutcome]:
    return [r.outcome for r in results]


# -- node upserts ---------------------------------------------------------------------------


async def test_node_upsert_is_idempotent(store: GraphStore) -> None:
    node = concept(uid("TAX:IE:VAT"))
    assert outcomes(await store.upsert_nodes([node], ts(0))) == [WriteOutcome.CREATED]
    assert outcomes(await store.upsert_nodes([node], ts(10))) == [WriteOutcome.UNCHANGED]
    assert outcomes(await store.upsert_nodes([node], ts(20))) == [WriteOutcome.UNCHANGED]

    [stored] = await store.get_nodes([node.id])
    assert stored.id == node.id
    assert stored.label == "Concept"
    assert stored.properties == {**node.properties, "created_at": ts(0), "updated_at": ts(0)}


async def test_created_at_is_set_once_and_updated_at_only_on_change(store: GraphStore) -> None:
    node_id = uid("TAX:IE:VAT")
    await store.upsert_nodes([concept(node_id, definition="first")], ts(0))
    await store.upsert_nodes([concept(node_id, definition="first")], ts(10))
    [same] = await store.get_nodes([node_id])
    assert (same.properties["created_at"], same.properties["updated_at"]) == (ts(0), ts(0))

    result = await store.upsert_nodes([concept(node_id, definition="second")], ts(20))
    assert outcomes(result) == [WriteOutcome.UPDATED]
    [changed] = await store.get_nodes([node_id])
    assert changed.properties["created_at"] == ts(0)
    assert changed.properties["updated_at"] == ts(20)
    assert changed.properties["definition"] == "second"


async def test_absent_properties_are_kept(store: GraphStore) -> None:
    node_id = uid("TAX:IE:VAT")
    await store.upsert_nodes([concept(node_id, definition="kept", status="provisional")], ts(0))
    partial = NodeWrite(id=node_id, label="Concept", properties={"status": "confirmed"})
    assert outcomes(await store.upsert_nodes([partial], ts(5))) == [WriteOutcome.UPDATED]
    [stored] = await store.get_nodes([node_id])
    assert stored.properties["definition"] == "kept"
    assert stored.properties["status"] == "confirmed"
    assert stored.properties["pref_label"] == "Value-added tax"
    # Writing only a subset that matches is no change at all.
    assert outcomes(await store.upsert_nodes([partial], ts(9))) == [WriteOutcome.UNCHANGED]


async def test_batch_reports_one_outcome_per_item_in_order(store: GraphStore) -> None:
    kept, changed, new = uid("A"), uid("B"), uid("C")
    await store.upsert_nodes(
        [concept(kept, "kept"), concept(changed, "before")],
        ts(0),
    )
    results = await store.upsert_nodes(
        [
            concept(new, "new"),
            concept(kept, "kept"),
            concept(changed, "after"),
            concept(new, "new"),
        ],
        ts(1),
    )
    assert [r.node_id for r in results] == [new, kept, changed, new]
    assert {r.edge for r in results} == {None}
    assert outcomes(results) == [
        WriteOutcome.CREATED,
        WriteOutcome.UNCHANGED,
        WriteOutcome.UPDATED,
        WriteOutcome.UNCHANGED,
    ]
    nodes = {n.id: n for n in await store.get_nodes([kept, changed, new])}
    assert nodes[changed].properties["pref_label"] == "after"
    assert nodes[new].properties["created_at"] == ts(1)
    assert nodes[kept].properties["updated_at"] == ts(0)


async def test_typed_properties_round_trip_and_compare_by_value(store: GraphStore) -> None:
    rate_id = uid("RATE:IE:VAT_STANDARD")
    rate = NodeWrite(
        id=rate_id,
        label="Rate",
        properties={
            "name": "Standard rate",
            "value": 23,  # an int given for a float property
            "verified": False,
            "source_urls": ["https://www.revenue.ie/a", "https://www.revenue.ie/b"],
        },
    )
    timeline = NodeWrite(id=uid("TIMELINE:IE"), label="Timeline", properties={"duration_value": 4})
    await store.upsert_nodes([rate, timeline], ts(0))
    same_value = rate.model_copy(update={"properties": {**rate.properties, "value": 23.0}})
    assert outcomes(await store.upsert_nodes([same_value, timeline], ts(1))) == [
        WriteOutcome.UNCHANGED,
        WriteOutcome.UNCHANGED,
    ]
    nodes = {n.id: n for n in await store.get_nodes([rate_id, timeline.id])}
    assert nodes[rate_id].properties["value"] == 23.0
    assert isinstance(nodes[rate_id].properties["value"], float)
    assert nodes[rate_id].properties["verified"] is False
    assert nodes[rate_id].properties["source_urls"] == list(rate.properties["source_urls"])  # type: ignore[arg-type]
    assert nodes[timeline.id].properties["duration_value"] == 4

    reordered = NodeWrite(
        id=rate_id,
        label="Rate",
        properties={"source_urls": ["https://www.revenue.ie/b", "https://www.revenue.ie/a"]},
    )
    assert outcomes(await store.upsert_nodes([reordered], ts(2))) == [WriteOutcome.UPDATED]


async def test_unknown_label_or_property_is_rejected(store: GraphStore) -> None:
    with pytest.raises(SchemaViolation):
        await store.upsert_nodes([NodeWrite(id=uid("X"), label="Person")], ts(0))
    with pytest.raises(SchemaViolation):
        await store.upsert_nodes(
            [NodeWrite(id=uid("X"), label="Concept", properties={"email": "a@b.ie"})], ts(0)
        )


async def test_concurrent_creation_of_one_concept_leaves_one_node(store: GraphStore) -> None:
    node_id = uid("TAX:IE:CONCURRENT")
    before = await store.counts()

    async def create() -> WriteOutcome:
        [result] = await store.upsert_nodes([concept(node_id)], ts(0))
        return result.outcome

    # A task group, not gather: if one task fails the others are cancelled, not leaked.
    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(create()) for _ in range(20)]
    results = [task.result() for task in tasks]

    assert results.count(WriteOutcome.CREATED) == 1
    assert results.count(WriteOutcome.UNCHANGED) == 19
    assert len(await store.get_nodes([node_id])) == 1
    snapshot = await store.snapshot(labels=["Concept"], limit=100_000)
    assert [n.id for n in snapshot.nodes].count(node_id) == 1
    after = await store.counts()
    assert after.by_label.get("Concept", 0) - before.by_label.get("Concept", 0) == 1


async def test_an_id_given_twice_in_a_batch_is_created_then_updated(store: GraphStore) -> None:
    node_id = uid("TAX:IE:TWICE")
    results = await store.upsert_nodes(
        [concept(node_id, "first"), concept(node_id, "second", definition="added")], ts(3)
    )
    assert outcomes(results) == [WriteOutcome.CREATED, WriteOutcome.UPDATED]
    [stored] = await store.get_nodes([node_id])
    assert stored.properties["pref_label"] == "second"
    assert stored.properties["definition"] == "added"
    assert (stored.properties["created_at"], stored.properties["updated_at"]) == (ts(3), ts(3))


async def test_an_id_given_twice_with_two_labels_is_rejected_and_nothing_is_written(
    store: GraphStore,
) -> None:
    node_id, other = uid("TAX:IE:TWO_LABELS"), uid("TAX:IE:OTHER")
    with pytest.raises(SchemaViolation):
        await store.upsert_nodes(
            [concept(other), concept(node_id), label_node(node_id, "vat")], ts(0)
        )
    assert await store.get_nodes([node_id, other]) == []


async def test_get_nodes_returns_each_stored_node_once(store: GraphStore) -> None:
    a, b, missing = uid("TAX:IE:A"), uid("TAX:IE:B"), uid("TAX:IE:MISSING")
    await store.upsert_nodes([concept(a), concept(b)], ts(0))
    found = await store.get_nodes([b, missing, a, b])
    assert sorted(n.id for n in found) == sorted([a, b])
    assert await store.get_nodes([missing]) == []


@pytest.mark.parametrize("stamp", ["created_at", "updated_at"])
async def test_writes_cannot_set_timestamps(store: GraphStore, stamp: str) -> None:
    a, b = uid("TAX:IE:A"), uid("TAX:IE:B")
    with pytest.raises(SchemaViolation):
        await store.upsert_nodes([concept(a, **{stamp: ts(-100)})], ts(0))
    await store.upsert_nodes([concept(a), concept(b)], ts(0))
    edge = EdgeWrite(
        type="RELATED",
        source_id=a,
        source_label="Concept",
        target_id=b,
        target_label="Concept",
        properties={stamp: ts(-100)},
    )
    with pytest.raises(SchemaViolation):
        await store.upsert_edges([edge], ts(1))
    [stored] = await store.get_nodes([a])
    assert stored.properties["created_at"] == ts(0)
    assert (await store.neighbourhood([a])).edges == []


# -- relationships --------------------------------------------------------------------------


async def _concept_with_labels(store: GraphStore, pref: str, alts: list[str]) -> str:
    concept_id = uid("TAX:IE:CONCEPT")
    suffix = concept_id.rsplit("_", 1)[1].lower()
    label_ids = [f"{concept_id}:LABEL:{i}" for i in range(len(alts) + 1)]
    texts = [f"{pref} {suffix}", *(f"{alt} {suffix}" for alt in alts)]
    await store.upsert_nodes(
        [concept(concept_id, f"{pref} {suffix}")]
        + [label_node(lid, text) for lid, text in zip(label_ids, texts, strict=True)],
        ts(0),
    )
    await store.upsert_edges([alt_label(concept_id, lid) for lid in label_ids], ts(0))
    return concept_id


async def test_edge_upsert_timestamps_and_idempotency(store: GraphStore) -> None:
    a, b = uid("TAX:IE:A"), uid("TAX:IE:B")
    await store.upsert_nodes([concept(a), concept(b)], ts(0))
    edge = EdgeWrite(
        type="RELATED",
        source_id=a,
        source_label="Concept",
        target_id=b,
        target_label="Concept",
        properties={"weight": 0.5},
    )
    first = await store.upsert_edges([edge], ts(1))
    assert first[0].edge == EdgeKey(source=a, type="RELATED", target=b)
    assert first[0].node_id is None
    assert outcomes(first) == [WriteOutcome.CREATED]
    assert outcomes(await store.upsert_edges([edge], ts(2))) == [WriteOutcome.UNCHANGED]

    heavier = edge.model_copy(update={"properties": {"weight": 0.9, "notes": "stronger"}})
    assert outcomes(await store.upsert_edges([heavier], ts(3))) == [WriteOutcome.UPDATED]

    snapshot = await store.neighbourhood([a])
    [stored] = [e for e in snapshot.edges if e.type == "RELATED"]
    assert (stored.source, stored.target) == (a, b)
    assert stored.properties == {
        "weight": 0.9,
        "notes": "stronger",
        "created_at": ts(1),
        "updated_at": ts(3),
    }


async def test_an_edge_given_twice_in_a_batch_is_created_then_updated(store: GraphStore) -> None:
    a, b = uid("TAX:IE:A"), uid("TAX:IE:B")
    await store.upsert_nodes([concept(a), concept(b)], ts(0))
    edge = EdgeWrite(
        type="RELATED",
        source_id=a,
        source_label="Concept",
        target_id=b,
        target_label="Concept",
        properties={"weight": 0.5},
    )
    heavier = edge.model_copy(update={"properties": {"weight": 0.9}})
    results = await store.upsert_edges([edge, edge, heavier], ts(1))
    assert outcomes(results) == [
        WriteOutcome.CREATED,
        WriteOutcome.UNCHANGED,
        WriteOutcome.UPDATED,
    ]
    [stored] = (await store.neighbourhood([a])).edges
    assert stored.properties == {"weight": 0.9, "created_at": ts(1), "updated_at": ts(1)}


async def test_edge_with_missing_endpoint_is_rejected_and_nothing_is_written(
    store: GraphStore,
) -> None:
    a, b, ghost = uid("TAX:IE:A"), uid("TAX:IE:B"), uid("TAX:IE:GHOST")
    await store.upsert_nodes([concept(a), concept(b)], ts(0))
    good = EdgeWrite(
        type="RELATED", source_id=a, source_label="Concept", target_id=b, target_label="Concept"
    )
    missing = good.model_copy(update={"target_id": ghost})
    with pytest.raises(SchemaViolation):
        await store.upsert_edges([good, missing], ts(1))
    assert (await store.neighbourhood([a])).edges == []
    assert await store.get_nodes([ghost]) == []


async def test_edge_endpoint_with_another_label_is_rejected(store: GraphStore) -> None:
    a, text = uid("TAX:IE:A"), uid("LABEL")
    await store.upsert_nodes([concept(a), label_node(text, "some text")], ts(0))
    wrong = EdgeWrite(
        type="RELATED", source_id=a, source_label="Concept", target_id=text, target_label="Concept"
    )
    with pytest.raises(SchemaViolation):
        await store.upsert_edges([wrong], ts(1))


async def test_edge_type_not_allowed_between_labels_is_rejected(store: GraphStore) -> None:
    a, text = uid("TAX:IE:A"), uid("LABEL")
    await store.upsert_nodes([concept(a), label_node(text, "some text")], ts(0))
    wrong = EdgeWrite(
        type="BROADER", source_id=a, source_label="Concept", target_id=text, target_label="Label"
    )
    with pytest.raises(SchemaViolation):
        await store.upsert_edges([wrong], ts(1))


# -- reads ----------------------------------------------------------------------------------


async def test_get_nodes_across_labels_ignores_missing_ids(store: GraphStore) -> None:
    c, lab, rate = uid("TAX:IE:VAT"), uid("LABEL"), uid("RATE")
    await store.upsert_nodes(
        [
            concept(c),
            label_node(lab, "VAT"),
            NodeWrite(id=rate, label="Rate", properties={"name": "Standard", "value": 23.0}),
        ],
        ts(0),
    )
    nodes = await store.get_nodes([c, lab, rate, uid("MISSING")])
    assert {(n.id, n.label) for n in nodes} == {(c, "Concept"), (lab, "Label"), (rate, "Rate")}
    assert await store.get_nodes([]) == []


async def test_find_concepts_by_pref_label_and_alt_label(store: GraphStore) -> None:
    concept_id = await _concept_with_labels(store, "Value-added tax", ["VAT", "Cáin bhreisluacha"])
    suffix = concept_id.rsplit("_", 1)[1].lower()

    for text in ("value-added tax", "vat", "cáin bhreisluacha"):
        found = await store.find_concepts_by_label(f"{text} {suffix}")
        assert [n.id for n in found] == [concept_id], text
        assert found[0].label == "Concept"
        assert found[0].properties["pref_label"] == f"Value-added tax {suffix}"
    assert await store.find_concepts_by_label(f"income tax {suffix}") == []


async def test_find_concepts_by_shared_alias_returns_each_concept_once(store: GraphStore) -> None:
    first, second = uid("TAX:IE:A"), uid("TAX:UK:B")
    shared, also = uid("LABEL"), uid("LABEL")
    alias = f"shared alias {shared.lower()}"
    await store.upsert_nodes(
        [concept(first), concept(second), label_node(shared, alias), label_node(also, alias)],
        ts(0),
    )
    await store.upsert_edges(
        [alt_label(first, shared), alt_label(second, shared), alt_label(first, also)], ts(0)
    )
    found = await store.find_concepts_by_label(alias)
    assert [n.id for n in found] == sorted([first, second])


async def test_quarantined_concepts_of_jurisdictions_with_their_labels(store: GraphStore) -> None:
    # A jurisdiction of this test's own: the Bolt server is shared by the session's tests.
    here, other = uid("J"), uid("J")
    held, bare = uid("TAX:X:SMALL"), uid("TAX:X:BARE")
    reviewed, merged, elsewhere = uid("TAX:X:OK"), uid("TAX:X:GONE"), uid("TAX:Y:OTHER")
    own, alias = uid("LABEL"), uid("LABEL")
    await store.upsert_nodes(
        [
            concept(held, "Small benefit", status="provisional", jurisdiction=here),
            concept(bare, "Bare one", status="provisional", jurisdiction=here),
            concept(reviewed, "Reviewed", status="confirmed", jurisdiction=here),
            concept(merged, "Merged", status="merged", jurisdiction=here),
            concept(elsewhere, "Elsewhere", status="provisional", jurisdiction=other),
            label_node(own, "Small benefit"),
            label_node(alias, "Small benefit exemption"),
        ],
        ts(0),
    )
    await store.upsert_edges([alt_label(held, own), alt_label(held, alias)], ts(0))

    assert isinstance(store, QuarantinedConceptReader)  # every backend implements it
    found = await store.quarantined_concepts([here])
    assert [(n.id, texts) for n, texts in found] == sorted(
        [(held, ["Small benefit", "Small benefit exemption"]), (bare, [])]
    )
    assert found[0][0].label == "Concept"
    assert {n.properties["status"] for n, _ in found} == {"provisional"}
    both = await store.quarantined_concepts([other, here])
    assert {n.id for n, _ in both} == {held, bare, elsewhere}
    assert len(await store.quarantined_concepts([other, here], limit=1)) == 1
    assert await store.quarantined_concepts([]) == []
    assert await store.quarantined_concepts([uid("J")]) == []


async def test_neighbourhood_follows_both_directions(store: GraphStore) -> None:
    regime, benefit, rate, form = uid("REGIME"), uid("BENEFIT"), uid("RATE"), uid("FORM")
    other = uid("FORM")
    await store.upsert_nodes(
        [
            NodeWrite(id=regime, label="Regime", properties={"name": "PAYE"}),
            NodeWrite(id=benefit, label="Benefit", properties={"name": "Jobseeker's"}),
            NodeWrite(id=rate, label="Rate", properties={"value": 0.2}),
            NodeWrite(id=form, label="Form", properties={"code": "UP1"}),
            NodeWrite(id=other, label="Form", properties={"code": "FAR"}),
        ],
        ts(0),
    )
    await store.upsert_edges(
        [
            EdgeWrite(type="UNDER_REGIME", source_id=benefit, source_label="Benefit",
                      target_id=regime, target_label="Regime"),
            EdgeWrite(type="HAS_RATE", source_id=regime, source_label="Regime",
                      target_id=rate, target_label="Rate"),
            EdgeWrite(type="USES_FORM", source_id=benefit, source_label="Benefit",
                      target_id=form, target_label="Form"),
            EdgeWrite(type="USES_FORM", source_id=regime, source_label="Regime",
                      target_id=other, target_label="Form"),
        ],
        ts(0),
    )  # fmt: skip
    around = await store.neighbourhood([regime])
    assert {n.id for n in around.nodes} == {regime, benefit, rate, other}
    assert {(e.source, e.type, e.target) for e in around.edges} == {
        (benefit, "UNDER_REGIME", regime),
        (regime, "HAS_RATE", rate),
        (regime, "USES_FORM", other),
    }
    labels = {n.id: n.label for n in around.nodes}
    assert labels[benefit] == "Benefit" and labels[other] == "Form"

    limited = await store.neighbourhood([regime], limit=2)
    assert len(limited.edges) == 2
    ends = {e.source for e in limited.edges} | {e.target for e in limited.edges}
    assert ends <= {n.id for n in limited.nodes}
    nothing = await store.neighbourhood([uid("MISSING")])
    assert (nothing.nodes, nothing.edges) == ([], [])


async def test_snapshot_filters_by_label_and_respects_limit(store: GraphStore) -> None:
    concept_id = await _concept_with_labels(store, "Pay related social insurance", ["PRSI"])
    everything = await store.snapshot(limit=100_000)
    ids = {n.id for n in everything.nodes}
    assert concept_id in ids
    assert {(e.source, e.type) for e in everything.edges} >= {(concept_id, "HAS_ALT_LABEL")}
    for edge in everything.edges:
        assert edge.source in ids and edge.target in ids

    concepts = await store.snapshot(labels=["Concept"], limit=100_000)
    assert concept_id in {n.id for n in concepts.nodes}
    assert {n.label for n in concepts.nodes} == {"Concept"}
    assert all(e.type != "HAS_ALT_LABEL" for e in concepts.edges)

    two = await store.snapshot(limit=2)
    assert len(two.nodes) == 2
    with pytest.raises(SchemaViolation):
        await store.snapshot(labels=["Person"])


async def test_changes_since_returns_only_later_updates(store: GraphStore) -> None:
    base = datetime.now(UTC) + timedelta(days=3650)  # after anything other tests wrote
    t1, t2, t3 = (utc_timestamp(base + timedelta(seconds=s)) for s in (1, 2, 3))
    old, touched, fresh = uid("TAX:IE:OLD"), uid("TAX:IE:TOUCHED"), uid("TAX:IE:FRESH")
    await store.upsert_nodes([concept(old), concept(touched)], t1)
    await store.upsert_edges(
        [EdgeWrite(type="RELATED", source_id=old, source_label="Concept",
                   target_id=touched, target_label="Concept")],
        t1,
    )  # fmt: skip
    await store.upsert_nodes([concept(touched, definition="now defined"), concept(fresh)], t2)
    await store.upsert_nodes([concept(old)], t3)  # unchanged: must not count as a change
    await store.upsert_edges(
        [EdgeWrite(type="BROADER", source_id=fresh, source_label="Concept",
                   target_id=old, target_label="Concept")],
        t3,
    )  # fmt: skip

    changes = await store.changes_since(t1)
    mine = {old, touched, fresh}
    assert {n.id for n in changes.nodes if n.id in mine} == {touched, fresh}
    assert [(e.source, e.type, e.target) for e in changes.edges if e.source in mine] == [
        (fresh, "BROADER", old)
    ]
    assert {n.id for n in (await store.changes_since(t2)).nodes if n.id in mine} == set()
    everything = await store.changes_since(ts(-1))
    assert mine <= {n.id for n in everything.nodes}


async def test_counts_track_nodes_and_edges(store: GraphStore) -> None:
    before = await store.counts()
    await _concept_with_labels(store, "Capital gains tax", ["CGT", "Chargeable gains"])
    after = await store.counts()
    assert after.nodes - before.nodes == 4
    assert after.edges - before.edges == 3
    assert after.by_label.get("Concept", 0) - before.by_label.get("Concept", 0) == 1
    assert after.by_label.get("Label", 0) - before.by_label.get("Label", 0) == 3
    assert after.nodes == sum(after.by_label.values())


# -- lifecycle ------------------------------------------------------------------------------


async def test_init_schema_is_idempotent_and_ping_answers(store: GraphStore) -> None:
    await store.init_schema()
    await store.init_schema()
    await store.ping()


async def test_an_id_belongs_to_one_label(store: GraphStore) -> None:
    node_id = uid("TAX:IE:VAT")
    await store.upsert_nodes([concept(node_id)], ts(0))
    with pytest.raises(SchemaViolation):
        await store.upsert_nodes([label_node(node_id, "vat")], ts(1))
    [stored] = await store.get_nodes([node_id])
    assert stored.label == "Concept"


# -- failures: only the project's errors, and nothing half-written --------------------------


def related(source: str, target: str, rel_type: str = "RELATED", **props: float) -> EdgeWrite:
    return EdgeWrite(
        type=rel_type,
        source_id=source,
        source_label="Concept",
        target_id=target,
        target_label="Concept",
        properties=dict(props),
    )


# -- deletion -------------------------------------------------------------------------------


async def test_delete_nodes_removes_them_with_their_edges_and_reports_each_id(
    store: GraphStore,
) -> None:
    gone, also_gone, kept = uid("TAX:IE:GONE"), uid("TAX:IE:GONE"), uid("TAX:IE:KEPT")
    lab = uid("LABEL")
    await store.upsert_nodes(
        [concept(gone), concept(also_gone), concept(kept), label_node(lab, f"gone {lab}")], ts(0)
    )
    await store.upsert_edges(
        [alt_label(gone, lab), related(gone, kept), related(kept, gone, "BROADER"),
         related(kept, also_gone)],
        ts(0),
    )  # fmt: skip
    before = await store.counts()
    missing = uid("TAX:IE:NEVER")

    results = await store.delete_nodes([gone, missing, also_gone, gone], ts(1))

    assert [r.node_id for r in results] == [gone, missing, also_gone, gone]
    assert {r.edge for r in results} == {None}
    assert outcomes(results) == [
        WriteOutcome.REMOVED,
        WriteOutcome.UNCHANGED,
        WriteOutcome.REMOVED,
        WriteOutcome.UNCHANGED,  # named twice: removed once
    ]
    assert {n.id for n in await store.get_nodes([gone, also_gone, kept, lab])} == {kept, lab}
    assert (await store.neighbourhood([kept, lab])).edges == []  # DETACH: no dangling edge
    after = await store.counts()
    assert (before.nodes - after.nodes, before.edges - after.edges) == (2, 4)
    assert await store.find_concepts_by_label(f"gone {lab}".lower()) == []
    # Deleting again changes nothing; deleting nothing is a no-op.
    assert outcomes(await store.delete_nodes([gone], ts(2))) == [WriteOutcome.UNCHANGED]
    assert await store.delete_nodes([], ts(2)) == []


async def test_a_deleted_id_can_be_created_again(store: GraphStore) -> None:
    node_id = uid("TAX:IE:AGAIN")
    await store.upsert_nodes([concept(node_id, "first")], ts(0))
    await store.delete_nodes([node_id], ts(1))
    assert outcomes(await store.upsert_nodes([concept(node_id, "second")], ts(2))) == [
        WriteOutcome.CREATED
    ]
    [stored] = await store.get_nodes([node_id])
    assert (stored.properties["pref_label"], stored.properties["created_at"]) == ("second", ts(2))


# -- counters (ADR 0036) ----------------------------------------------------------------------


def counted(concept_id: str, label_id: str, **by: int) -> EdgeIncrement:
    return EdgeIncrement(
        type="HAS_ALT_LABEL", source_id=concept_id, source_label="Concept",
        target_id=label_id, target_label="Label", by=by,
    )  # fmt: skip


async def _one_label(store: GraphStore) -> tuple[str, str]:
    concept_id, lab = uid("TAX:IE:COUNTED"), uid("LABEL")
    await store.upsert_nodes([concept(concept_id), label_node(lab, f"counted {lab}")], ts(0))
    await store.upsert_edges([alt_label(concept_id, lab)], ts(0))
    return concept_id, lab


async def _counts(store: GraphStore, concept_id: str) -> dict[str, object]:
    [edge] = [e for e in (await store.neighbourhood([concept_id])).edges if e.source == concept_id]
    return edge.properties


async def test_increments_count_from_zero_add_up_and_leave_the_timestamps_alone(
    store: GraphStore,
) -> None:
    concept_id, lab = await _one_label(store)
    first = await store.increment_edges([counted(concept_id, lab, uses=1, pref_uses=1)])
    assert [(r.edge, r.outcome) for r in first] == [
        (EdgeKey(source=concept_id, type="HAS_ALT_LABEL", target=lab), WriteOutcome.UPDATED)
    ]
    # Named twice in one batch: counted twice.
    await store.increment_edges(
        [counted(concept_id, lab, uses=1), counted(concept_id, lab, uses=4)]
    )
    assert await _counts(store, concept_id) == {
        "uses": 6, "pref_uses": 1, "created_at": ts(0), "updated_at": ts(0),
    }  # fmt: skip
    changed = (await store.changes_since(ts(0), limit=100_000)).edges
    assert [e for e in changed if e.source == concept_id] == []  # a count is no change to announce
    # An upsert of the relationship keeps its counts (absent properties are kept).
    again = alt_label(concept_id, lab).model_copy(update={"properties": {"weight": 0.5}})
    assert outcomes(await store.upsert_edges([again], ts(1))) == [WriteOutcome.UPDATED]
    assert (await _counts(store, concept_id))["uses"] == 6


async def test_an_increment_of_a_missing_relationship_counts_nothing_and_creates_nothing(
    store: GraphStore,
) -> None:
    concept_id, lab = await _one_label(store)
    other, ghost = uid("LABEL"), uid("LABEL")
    await store.upsert_nodes([label_node(other, f"other {other}")], ts(0))
    before = await store.counts()
    results = await store.increment_edges(
        [counted(concept_id, other, uses=1), counted(concept_id, lab, uses=2),
         counted(concept_id, ghost, uses=1)]
    )  # fmt: skip
    assert outcomes(results) == [
        WriteOutcome.UNCHANGED, WriteOutcome.UPDATED, WriteOutcome.UNCHANGED,
    ]  # fmt: skip
    assert (await store.counts()).edges == before.edges
    assert await store.get_nodes([ghost]) == []
    assert (await _counts(store, concept_id))["uses"] == 2
    assert await store.increment_edges([]) == []


async def test_a_counter_is_set_by_increments_only(store: GraphStore) -> None:
    concept_id, lab = await _one_label(store)
    forged = alt_label(concept_id, lab).model_copy(update={"properties": {"uses": 1000}})
    with pytest.raises(SchemaViolation):
        await store.upsert_edges([forged], ts(1))
    for by in ({"weight": 1}, {"uses": 0}, {"uses": -1}, {}):
        with pytest.raises(SchemaViolation):
            await store.increment_edges([counted(concept_id, lab, **by)])
    assert "uses" not in await _counts(store, concept_id)


async def test_concurrent_increments_are_all_counted(store: GraphStore) -> None:
    concept_id, lab = await _one_label(store)

    async def count() -> None:
        await store.increment_edges([counted(concept_id, lab, uses=1)])

    async with asyncio.TaskGroup() as group:
        for _ in range(20):
            group.create_task(count())
    assert (await _counts(store, concept_id))["uses"] == 20


# A batch of one new item, one changed and one new again: the second statement that writes
# finds the connection broken, and once it is back the same batch lands whole.
RETRIED = [WriteOutcome.CREATED, WriteOutcome.UPDATED, WriteOutcome.CREATED]


async def break_mid_write(fault: StoreFault, write: Callable[[], Awaitable[object]]) -> None:
    fault.break_next_write()
    with pytest.raises(GraphUnavailable):
        await write()
    assert fault.cuts == 1  # the fault did fire inside this write


async def test_a_connection_lost_mid_node_write_is_graph_unavailable_and_commits_nothing(
    faulty_store: tuple[GraphStore, StoreFault],
) -> None:
    store, fault = faulty_store
    kept, first, second = uid("TAX:IE:KEPT"), uid("TAX:IE:NEW"), uid("TAX:IE:NEW")
    await store.upsert_nodes([concept(kept, "before")], ts(0))
    batch = [concept(first, "first"), concept(kept, "after"), concept(second, "second")]

    await break_mid_write(fault, lambda: store.upsert_nodes(batch, ts(1)))

    assert await store.get_nodes([first, second]) == []
    [stored] = await store.get_nodes([kept])
    assert stored.properties["pref_label"] == "before"
    assert stored.properties["updated_at"] == ts(0)
    # The store is usable again, so the capture retry's next attempt lands.
    assert outcomes(await store.upsert_nodes(batch, ts(2))) == RETRIED


async def test_a_connection_lost_mid_edge_write_is_graph_unavailable_and_commits_nothing(
    faulty_store: tuple[GraphStore, StoreFault],
) -> None:
    store, fault = faulty_store
    a, b, c = uid("TAX:IE:A"), uid("TAX:IE:B"), uid("TAX:IE:C")
    await store.upsert_nodes([concept(a), concept(b), concept(c)], ts(0))
    await store.upsert_edges([related(a, b, weight=0.5)], ts(0))
    batch = [related(a, c), related(a, b, weight=0.9), related(c, a, "BROADER")]

    await break_mid_write(fault, lambda: store.upsert_edges(batch, ts(1)))

    edges = (await store.neighbourhood([a, c])).edges
    assert [(e.source, e.type, e.target) for e in edges] == [(a, "RELATED", b)]
    assert edges[0].properties["weight"] == 0.5
    assert edges[0].properties["updated_at"] == ts(0)
    assert outcomes(await store.upsert_edges(batch, ts(2))) == RETRIED


UNREACHABLE_CALLS: dict[str, Callable[[GraphStore, str, str], Awaitable[object]]] = {
    "init_schema": lambda store, a, b: store.init_schema(),
    "ping": lambda store, a, b: store.ping(),
    "upsert_nodes": lambda store, a, b: store.upsert_nodes([concept(uid("TAX:IE:C"))], ts(1)),
    "upsert_edges": lambda store, a, b: store.upsert_edges([related(a, b)], ts(1)),
    "get_nodes": lambda store, a, b: store.get_nodes([a]),
    "delete_nodes": lambda store, a, b: store.delete_nodes([a], ts(1)),
    "increment_edges": lambda store, a, b: store.increment_edges(
        [
            EdgeIncrement(
                type="RELATED",
                source_id=a,
                source_label="Concept",
                target_id=b,
                target_label="Concept",
                by={"uses": 1},
            )
        ]
    ),
    "counts": lambda store, a, b: store.counts(),
}


@pytest.mark.parametrize("method", sorted(UNREACHABLE_CALLS))
async def test_a_store_that_cannot_be_reached_raises_graph_unavailable(
    faulty_store: tuple[GraphStore, StoreFault], method: str
) -> None:
    store, fault = faulty_store
    a, b = uid("TAX:IE:A"), uid("TAX:IE:B")
    await store.upsert_nodes([concept(a), concept(b)], ts(0))
    fault.refuse()
    with pytest.raises(GraphUnavailable):
        await UNREACHABLE_CALLS[method](store, a, b)


async def test_a_closed_store_refuses_every_call_and_closes_again_quietly(store: GraphStore):
    """After ``aclose`` nothing reopens the database or the driver (httpx's client state):
    every read, write and set-up call raises ``AdapterClosed``; ``aclose`` stays idempotent."""
    node_id = uid("IE:RATE:CLOSED")
    await store.upsert_nodes([NodeWrite(id=node_id, label="Rate", properties={})], ts(0))
    await store.aclose()
    calls: list[Callable[[], Awaitable[object]]] = [
        lambda: store.get_nodes([node_id]),
        lambda: store.find_concepts_by_label("vat"),
        lambda: store.neighbourhood([node_id]),
        lambda: store.snapshot(),
        lambda: store.changes_since(ts(0)),
        lambda: store.counts(),
        lambda: store.upsert_nodes([NodeWrite(id=node_id, label="Rate", properties={})], ts(1)),
        lambda: store.upsert_edges([alt_label(node_id, node_id)], ts(1)),
        lambda: store.delete_nodes([node_id], ts(1)),
        lambda: store.increment_edges([]),
        lambda: store.get_nodes([]),
        lambda: store.init_schema(),
        lambda: store.ping(),
    ]
    for call in calls:
        with pytest.raises(AdapterClosed, match="closed"):
            await call()
    await store.aclose()
