"""Graph DTOs: what crosses the boundary of ``graph/`` (the public contract of DESIGN.md).

Node ``{id, label, properties}``, edge ``{source, target, type, properties}``. Writes carry the
labels of both edge endpoints so the ingress guard can check them against ``schema/graph.yaml``
without a read.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

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


class EdgeWrite(BaseModel):
    """Upsert of one relationship, unique per (source, type, target)."""

    model_config = ConfigDict(frozen=True)

    type: str
    source_id: str
    source_label: str
    target_id: str
    target_label: str
    properties: dict[str, PropertyValue] = Field(default_factory=dict)


class WriteOutcome(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"


class WriteResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str  # node id, or "source|TYPE|target" for an edge
    outcome: WriteOutcome


class GraphSnapshot(BaseModel):
    nodes: list[GraphNode] = Field(default_factory=list)
    edges: list[GraphEdge] = Field(default_factory=list)


class GraphCounts(BaseModel):
    nodes: int
    edges: int
    by_label: dict[str, int] = Field(default_factory=dict)


def edge_key(source: str, rel_type: str, target: str) -> str:
    return f"{source}|{rel_type}|{target}"
