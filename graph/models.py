"""Graph DTOs: what crosses the boundary of ``graph/`` (a public contract, docs/architecture.md).

Node ``{id, label, properties}``, edge ``{source, target, type, properties}``. Writes carry the
labels of both edge endpoints so the ingress guard can check them against ``schema/graph.yaml``
without a read. A :class:`WriteResult` names what it reports on with typed fields: ``node_id``
for a node, ``edge`` (an :class:`EdgeKey`) for a relationship, never both. An
:class:`EdgeIncrement` adds to a relationship's counters instead of setting properties.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, StrictInt, model_validator

__all__ = [
    "EdgeIncrement",
    "EdgeKey",
    "EdgeWrite",
    "GraphCounts",
    "GraphEdge",
    "GraphNode",
    "GraphSnapshot",
    "NodeWrite",
    "PropertyValue",
    "WriteOutcome",
    "WriteResult",
    "utc_timestamp",
]

PropertyValue = str | int | float | bool | list[str]


def utc_timestamp(moment: datetime | None = None) -> str:
    """The graph's timestamp format: ISO-8601 UTC with microseconds, fixed width.

    Fixed width makes text comparison equal to time comparison on every backend.
    """
    moment = moment or datetime.now(UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class GraphNode(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    label: str
    properties: dict[str, Any] = Field(default_factory=dict)


class GraphEdge(BaseModel):
    model_config = ConfigDict(frozen=True)

    source: str
    target: str
    type: str
    properties: dict[str, Any] = Field(default_factory=dict)


class NodeWrite(BaseModel):
    """Upsert of one node by id. Given properties overwrite; absent ones are kept."""

    model_config = ConfigDict(frozen=True)

    id: str
    label: str
    properties: dict[str, PropertyValue] = Field(default_factory=dict)


class EdgeKey(BaseModel):
    """What makes a relationship unique: (source id, type, target id)."""

    model_config = ConfigDict(frozen=True)

    source: str
    type: str
    target: str


class _EdgeEnds(BaseModel):
    """One relationship named by its type and its ends' ids and labels."""

    model_config = ConfigDict(frozen=True)

    type: str
    source_id: str
    source_label: str
    target_id: str
    target_label: str

    @property
    def key(self) -> EdgeKey:
        return EdgeKey(source=self.source_id, type=self.type, target=self.target_id)


class EdgeWrite(_EdgeEnds):
    """Upsert of one relationship, unique per (source, type, target)."""

    properties: dict[str, PropertyValue] = Field(default_factory=dict)


class EdgeIncrement(_EdgeEnds):
    """Add to counters of one stored relationship, unique per (source, type, target).

    ``by`` maps a counter (``relationship_counters`` in ``schema/graph.yaml``) to the amount
    added, a positive integer; a counter never set counts from 0 (ADR 0036).
    """

    by: dict[str, StrictInt] = Field(default_factory=dict)


class WriteOutcome(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    REMOVED = "removed"  # deleted by ``delete_nodes`` (with its relationships)


class WriteResult(BaseModel):
    """The outcome of one written item: a node (``node_id``) or a relationship (``edge``).

    Exactly one of the two is set; ``upsert_nodes`` returns node results and ``upsert_edges``
    edge results, one per item, in the order given.
    """

    model_config = ConfigDict(frozen=True)

    outcome: WriteOutcome
    node_id: str | None = None
    edge: EdgeKey | None = None
    # The node was hidden from tenants before this write (quarantined, ADR 0020): its removal
    # from their view is no news to them, so no patch reports it (set by the write service).
    unseen: bool = False

    @model_validator(mode="after")
    def _names_one_item(self) -> Self:
        if (self.node_id is None) == (self.edge is None):
            raise ValueError("a write result names a node_id or an edge, exactly one of them")
        return self


class GraphSnapshot(BaseModel):
    nodes: list[GraphNode] = Field(default_factory=list)
    edges: list[GraphEdge] = Field(default_factory=list)


class GraphCounts(BaseModel):
    nodes: int
    edges: int
    by_label: dict[str, int] = Field(default_factory=dict)
