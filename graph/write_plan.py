"""The one write decision every backend makes: CREATED, UPDATED or UNCHANGED, and what to store.

Backends read what a batch touches as it is stored, call :func:`plan_batch`, and apply the plan
with their own query language; they never compare values or stamp timestamps themselves, so the
rules of ``graph/port.py`` hold identically on every backend. For one item
(:func:`plan_write`), given its properties, the stored ones (``None``: nothing stored) and the
write's timestamp ``now``:

============================================  =========  ==========================================
stored                                        outcome    properties to set
============================================  =========  ==========================================
nothing                                       CREATED    the given ones, ``created_at = now``,
                                                         ``updated_at = now``
every given property equals the stored value  UNCHANGED  none (``updated_at`` is kept)
some given property differs or is absent      UPDATED    the given ones that differ,
                                                         ``updated_at = now``
============================================  =========  ==========================================

Properties not given are kept; ``created_at`` is set once. Given properties never contain the
timestamps (``graph.backends.write_checks`` refuses them). Values compare with ``==`` after
:func:`coerce_properties` gave them the schema's types, so an int given for a float property
equals the stored float, and lists compare in order.

:func:`plan_nodes` and :func:`plan_edges` are what backends call: they also check the stored
state (an id keeps its label; both ends of an edge exist with the labels given) and raise
:class:`errors.SchemaViolation` before anything is written.

Counters are not planned against stored values: the store adds (ADR 0036).
:func:`plan_increments` only sums what a batch adds per relationship and counter, so each
relationship is one statement, and turns the keys the store counted into results.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from errors import SchemaViolation
from graph.models import (
    EdgeIncrement,
    EdgeKey,
    EdgeWrite,
    GraphNode,
    NodeWrite,
    WriteOutcome,
    WriteResult,
)
from graph.schema import GraphSchema

__all__ = [
    "BatchPlan",
    "IncrementPlan",
    "WritePlan",
    "coerce_properties",
    "edges_by_type",
    "plan_batch",
    "plan_edges",
    "plan_increments",
    "plan_nodes",
    "plan_write",
    "removal_results",
]

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class WritePlan:
    """What to do with one item: its outcome and the properties to set on it."""

    outcome: WriteOutcome
    properties: dict[str, Any]


@dataclass
class BatchPlan(Generic[K]):
    """What to do with a batch: one outcome per item, in order, and the writes to run.

    ``creates`` maps a key to every property of the new item (timestamps included);
    ``updates`` maps a stored item's key to the properties to set on it.
    """

    keys: list[K] = field(default_factory=list)
    outcomes: list[WriteOutcome] = field(default_factory=list)
    creates: dict[K, dict[str, Any]] = field(default_factory=dict)
    updates: dict[K, dict[str, Any]] = field(default_factory=dict)

    @property
    def results(self) -> list[WriteResult]:
        """One result per item, in order, naming a node by id and an edge by its key."""
        return [
            WriteResult(edge=key, outcome=outcome)
            if isinstance(key, EdgeKey)
            else WriteResult(node_id=str(key), outcome=outcome)
            for key, outcome in zip(self.keys, self.outcomes, strict=True)
        ]


def plan_write(given: Mapping[str, Any], stored: Mapping[str, Any] | None, now: str) -> WritePlan:
    """The plan for one item (the table in the module docstring)."""
    if stored is None:
        return WritePlan(WriteOutcome.CREATED, {**given, "created_at": now, "updated_at": now})
    changed = {name: value for name, value in given.items() if stored.get(name) != value}
    if not changed:
        return WritePlan(WriteOutcome.UNCHANGED, {})
    return WritePlan(WriteOutcome.UPDATED, {**changed, "updated_at": now})


def plan_batch(
    items: Iterable[tuple[K, Mapping[str, Any]]],
    stored: Mapping[K, Mapping[str, Any]],
    now: str,
) -> BatchPlan[K]:
    """Plan ``(key, given properties)`` items in order against ``stored`` (what exists).

    A key given twice is planned against the state the earlier item leaves, as if the items
    were written one after the other: repeating an item in a batch reports UNCHANGED.
    """
    plan: BatchPlan[K] = BatchPlan()
    state: dict[K, Mapping[str, Any]] = dict(stored)
    for key, given in items:
        step = plan_write(given, state.get(key), now)
        plan.keys.append(key)
        plan.outcomes.append(step.outcome)
        if step.outcome is WriteOutcome.UNCHANGED:
            continue
        state[key] = {**state.get(key, {}), **step.properties}
        if step.outcome is WriteOutcome.CREATED:
            plan.creates[key] = dict(step.properties)
        elif key in plan.creates:
            plan.creates[key].update(step.properties)
        else:
            plan.updates.setdefault(key, {}).update(step.properties)
    return plan


def plan_nodes(
    schema: GraphSchema, nodes: Sequence[NodeWrite], stored: Mapping[str, GraphNode], now: str
) -> BatchPlan[str]:
    """The plan for a batch of nodes, given the stored nodes with their ids.

    An id belongs to one label: the stored one, and one within the batch.
    """
    labels = {node_id: node.label for node_id, node in stored.items()}
    for node in nodes:
        label = labels.setdefault(node.id, node.label)
        if label != node.label:
            raise SchemaViolation(f"node {node.id!r} is a {label}, not a {node.label}")
    return plan_batch(
        ((node.id, coerce_properties(schema, node.properties)) for node in nodes),
        {node_id: node.properties for node_id, node in stored.items()},
        now,
    )


def plan_edges(
    schema: GraphSchema,
    edges: Sequence[EdgeWrite],
    endpoints: Mapping[str, str],
    stored: Mapping[EdgeKey, Mapping[str, Any]],
    now: str,
) -> BatchPlan[EdgeKey]:
    """The plan for a batch of edges, given the labels of their stored endpoints (id -> label)
    and the stored edges' properties. Both ends must exist with the labels the write gives."""
    for edge in edges:
        for end_id, end_label in (
            (edge.source_id, edge.source_label),
            (edge.target_id, edge.target_label),
        ):
            if endpoints.get(end_id) != end_label:
                raise SchemaViolation(
                    f"edge {edge.type}: endpoint {end_label} {end_id!r} does not exist"
                )
    return plan_batch(
        ((edge.key, coerce_properties(schema, edge.properties)) for edge in edges), stored, now
    )


@dataclass
class IncrementPlan:
    """What a batch of increments adds: ``amounts`` maps each relationship to the sum, per
    counter, of what the batch adds to it (first-named order); ``keys`` is one per item."""

    keys: list[EdgeKey] = field(default_factory=list)
    amounts: dict[EdgeKey, dict[str, int]] = field(default_factory=dict)

    def results(self, counted: Collection[EdgeKey]) -> list[WriteResult]:
        """One result per item, in order: UPDATED when the store found (and counted) its
        relationship, UNCHANGED when there is none."""
        return [
            WriteResult(
                edge=key,
                outcome=WriteOutcome.UPDATED if key in counted else WriteOutcome.UNCHANGED,
            )
            for key in self.keys
        ]


def plan_increments(increments: Sequence[EdgeIncrement]) -> IncrementPlan:
    """Sum a batch's increments per relationship and counter (a relationship named twice is
    counted twice). Amounts were checked positive (``graph.backends.write_checks``)."""
    plan = IncrementPlan()
    for item in increments:
        plan.keys.append(item.key)
        amounts = plan.amounts.setdefault(item.key, {})
        for counter, amount in item.by.items():
            amounts[counter] = amounts.get(counter, 0) + amount
    return plan


def edges_by_type(keys: Iterable[EdgeKey]) -> dict[str, list[EdgeKey]]:
    """Edge keys grouped by relationship type, types sorted (a store reads a type at a time)."""
    grouped: dict[str, list[EdgeKey]] = {}
    for key in sorted(set(keys), key=lambda k: (k.type, k.source, k.target)):
        grouped.setdefault(key.type, []).append(key)
    return grouped


def coerce_properties(schema: GraphSchema, properties: Mapping[str, Any]) -> dict[str, Any]:
    """Values with the schema's types (an int given for a float stays a float, a tuple for a
    list becomes a list), so a re-upsert compares equal and a store sees one type a property."""
    out: dict[str, Any] = {}
    for name, value in properties.items():
        kind = schema.property_types.get(name)
        if kind == "float" and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        elif kind == "string[]" and isinstance(value, tuple | list):
            value = list(value)
        out[name] = value
    return out


def removal_results(ids: Sequence[str], present: Iterable[str]) -> list[WriteResult]:
    """The results of ``delete_nodes(ids)``: one per id, in order; REMOVED the first time an id
    that existed (``present``) is named, UNCHANGED otherwise (absent, or named again)."""
    left = set(present)
    results = []
    for node_id in ids:
        outcome = WriteOutcome.REMOVED if node_id in left else WriteOutcome.UNCHANGED
        left.discard(node_id)
        results.append(WriteResult(outcome=outcome, node_id=node_id))
    return results
