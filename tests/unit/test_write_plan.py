"""The one write decision (``graph.write_plan``): a table of cases, then batches."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from errors import SchemaViolation
from graph.models import EdgeKey, EdgeWrite, GraphNode, NodeWrite, WriteOutcome, WriteResult
from graph.schema import load_schema
from graph.write_plan import (
    coerce_properties,
    edges_by_type,
    plan_batch,
    plan_edges,
    plan_nodes,
    plan_write,
)

pytestmark = pytest.mark.unit

NOW = "2026-01-01T00:00:10.000000Z"
THEN = "2026-01-01T00:00:00.000000Z"
STORED = {"pref_label": "VAT", "definition": "a tax", "created_at": THEN, "updated_at": THEN}

C, U, N = WriteOutcome.CREATED, WriteOutcome.UPDATED, WriteOutcome.UNCHANGED

CASES: list[tuple[str, dict[str, Any], dict[str, Any] | None, WriteOutcome, dict[str, Any]]] = [
    # name, given, stored, outcome, properties to set
    ("new item", {"pref_label": "VAT"}, None, C,
     {"pref_label": "VAT", "created_at": NOW, "updated_at": NOW}),
    ("new item without properties", {}, None, C, {"created_at": NOW, "updated_at": NOW}),
    ("same values", {"pref_label": "VAT", "definition": "a tax"}, STORED, N, {}),
    ("a matching subset", {"definition": "a tax"}, STORED, N, {}),
    ("nothing given", {}, STORED, N, {}),
    ("one value differs", {"pref_label": "VAT", "definition": "a levy"}, STORED, U,
     {"definition": "a levy", "updated_at": NOW}),
    ("a property not stored yet", {"status": "confirmed"}, STORED, U,
     {"status": "confirmed", "updated_at": NOW}),
    ("int equals the stored float", {"value": 23}, {"value": 23.0}, N, {}),
    ("list order matters", {"tags": ["b", "a"]}, {"tags": ["a", "b"]}, U,
     {"tags": ["b", "a"], "updated_at": NOW}),
    ("false is a value", {"verified": False}, {"verified": True}, U,
     {"verified": False, "updated_at": NOW}),
    ("stored without timestamps", {"x": 1}, {"x": 1}, N, {}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("given", "stored", "outcome", "properties"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_plan_write(
    given: dict[str, Any],
    stored: dict[str, Any] | None,
    outcome: WriteOutcome,
    properties: dict[str, Any],
) -> None:
    plan = plan_write(given, stored, NOW)
    assert plan.outcome is outcome
    assert plan.properties == properties
    # created_at is only ever set by a creation; updated_at by every change.
    assert ("created_at" in plan.properties) == (outcome is C)
    assert ("updated_at" in plan.properties) == (outcome is not N)


def test_a_batch_reports_one_outcome_per_item_in_order_and_writes_each_key_once() -> None:
    plan = plan_batch(
        [
            ("new", {"a": 1}),
            ("kept", {"a": 1}),
            ("changed", {"a": 2}),
            ("new", {"a": 1}),  # a repeat is planned against the earlier item: unchanged
            ("new", {"b": 2}),  # a later change to a new item joins its creation
            ("changed", {"c": 3}),
        ],
        {"kept": {"a": 1, "updated_at": THEN}, "changed": {"a": 1, "updated_at": THEN}},
        NOW,
    )
    assert plan.outcomes == [C, N, U, N, U, U]
    assert plan.creates == {"new": {"a": 1, "b": 2, "created_at": NOW, "updated_at": NOW}}
    assert plan.updates == {"changed": {"a": 2, "c": 3, "updated_at": NOW}}


def test_a_batch_of_unchanged_items_writes_nothing() -> None:
    plan = plan_batch([("k", {"a": 1}), ("k", {})], {"k": {"a": 1}}, NOW)
    assert (plan.outcomes, plan.creates, plan.updates) == ([N, N], {}, {})


def test_values_get_the_schemas_types_before_they_are_compared() -> None:
    schema = load_schema()
    coerced = coerce_properties(
        schema, {"value": 23, "source_urls": ("https://a", "https://b"), "name": "x"}
    )
    assert coerced == {"value": 23.0, "source_urls": ["https://a", "https://b"], "name": "x"}
    assert isinstance(coerced["value"], float)
    assert coerce_properties(schema, {"verified": True}) == {"verified": True}
    assert coerce_properties(schema, {"duration_value": 4}) == {"duration_value": 4}


def test_results_name_nodes_by_id_and_edges_by_key() -> None:
    edge = EdgeKey(source="A", type="RELATED", target="B")
    [node_result] = plan_batch([("A", {})], {}, NOW).results
    [edge_result] = plan_batch([(edge, {})], {edge: {}}, NOW).results
    assert (node_result.node_id, node_result.edge, node_result.outcome) == ("A", None, C)
    assert (edge_result.node_id, edge_result.edge, edge_result.outcome) == (None, edge, N)


@pytest.mark.parametrize(
    "fields",
    [{}, {"node_id": "A", "edge": EdgeKey(source="A", type="RELATED", target="B")}],
    ids=["neither", "both"],
)
def test_a_result_names_a_node_or_an_edge_never_both(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        WriteResult(outcome=C, **fields)


def test_plan_nodes_keeps_an_id_to_one_label() -> None:
    schema = load_schema()
    stored = {"IE": GraphNode(id="IE", label="Jurisdiction", properties={"name": "Ireland"})}
    same = NodeWrite(id="IE", label="Jurisdiction", properties={"name": "Ireland"})
    assert plan_nodes(schema, [same], stored, NOW).outcomes == [N]
    with pytest.raises(SchemaViolation, match="is a Jurisdiction"):
        plan_nodes(schema, [NodeWrite(id="IE", label="Region")], stored, NOW)
    with pytest.raises(SchemaViolation, match="is a Region"):
        plan_nodes(schema, [NodeWrite(id="NI", label="Region"), same.model_copy(
            update={"id": "NI"})], {}, NOW)  # fmt: skip


def test_plan_edges_needs_both_ends_with_the_labels_given() -> None:
    schema = load_schema()
    edge = EdgeWrite(type="RELATED", source_id="A", source_label="Concept", target_id="B",
                     target_label="Concept", properties={"weight": 1})  # fmt: skip
    plan = plan_edges(schema, [edge], {"A": "Concept", "B": "Concept"}, {}, NOW)
    assert plan.creates == {edge.key: {"weight": 1.0, "created_at": NOW, "updated_at": NOW}}
    for endpoints in ({"A": "Concept"}, {"A": "Concept", "B": "Label"}):
        with pytest.raises(SchemaViolation, match="'B' does not exist"):
            plan_edges(schema, [edge], endpoints, {}, NOW)


def test_edges_are_read_a_type_at_a_time() -> None:
    keys = [EdgeKey(source=s, type=t, target="X") for s, t in [("B", "R"), ("A", "R"), ("A", "Q")]]
    assert edges_by_type([*keys, keys[0]]) == {"Q": [keys[2]], "R": [keys[1], keys[0]]}
