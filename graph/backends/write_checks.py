"""The backends' own last check before identifiers go into query text.

The ingress guard has already validated every write; backends check again that labels,
relationship types and property names are schema members, because those are the only parts
of a query that are interpolated rather than passed as parameters (defence in depth), and that
no write sets a timestamp (``graph.write_plan`` owns them). What a write must find stored is
checked by the plan (``graph.write_plan.plan_nodes`` / ``plan_edges``). Counters are the
schema's ``relationship_counters``: an increment names only those, each with a positive
integer, and an upsert none of them (ADR 0036).
"""

from __future__ import annotations

from collections.abc import Sequence

from errors import SchemaViolation
from graph.models import EdgeIncrement, EdgeWrite, NodeWrite
from graph.schema import IDENTIFIER, GraphSchema

__all__ = ["check_edge_increment", "check_edge_write", "check_labels", "check_node_write"]

# ``id`` is the key, written from ``NodeWrite.id`` only; the timestamps come from the write plan.
_NOT_GIVEN = frozenset({"id", "created_at", "updated_at"})


def check_node_write(schema: GraphSchema, node: NodeWrite) -> None:
    if node.label not in schema.labels:
        raise SchemaViolation(f"unknown node label {node.label!r}")
    allowed = schema.allowed_properties(node.label)
    bad = [
        p for p in node.properties if p in _NOT_GIVEN or p not in allowed or not IDENTIFIER.match(p)
    ]
    if bad:
        raise SchemaViolation(f"properties {bad} not allowed on {node.label}")


def check_edge_write(schema: GraphSchema, edge: EdgeWrite) -> None:
    rel = schema.relationships.get(edge.type)
    if rel is None or not rel.allows(edge.source_label, edge.target_label):
        raise SchemaViolation(
            f"relationship {edge.source_label}-[{edge.type}]->{edge.target_label} not allowed"
        )
    bad = [p for p in edge.properties if p in _NOT_GIVEN or p not in schema.relationship_properties]
    if bad:
        raise SchemaViolation(f"properties {bad} not allowed on relationships")


def check_edge_increment(schema: GraphSchema, item: EdgeIncrement) -> None:
    rel = schema.relationships.get(item.type)
    if rel is None or not rel.allows(item.source_label, item.target_label):
        raise SchemaViolation(
            f"relationship {item.source_label}-[{item.type}]->{item.target_label} not allowed"
        )
    if not item.by:
        raise SchemaViolation(f"an increment of {item.type} names no counter")
    bad = [c for c in item.by if c not in schema.relationship_counters or not IDENTIFIER.match(c)]
    if bad:
        raise SchemaViolation(f"{bad} are not relationship counters")
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in item.by.values()):
        raise SchemaViolation(f"an increment of {item.type} must add positive integers")


def check_labels(schema: GraphSchema, labels: Sequence[str]) -> None:
    """Labels a read filters on (also interpolated by some dialects): schema members only."""
    if unknown := [label for label in labels if label not in schema.labels]:
        raise SchemaViolation(f"unknown node label {unknown[0]!r}")
