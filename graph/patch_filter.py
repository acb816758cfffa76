"""What one graph-UI subscriber asked to see: jurisdictions, labels, node ids, a keyword.

One filter serves the live stream (``GET /api/graph/stream``) and snapshots (``GET /api/graph``),
so a UI sees in its patches exactly what its snapshot would show. Kinds combine with AND, values
of one kind with OR. A node passes on its own properties; an edge passes when either endpoint
passes (a UI focused on an answer's ``referencedNodes`` sees the links out of them).

Removals: a subscriber is told ``removed`` for a node it was sent before (``known``) that is no
longer in the graph or no longer passes its filter after an update, and for the edges of it.
Filters run on reviewed content only: quarantined nodes never reach here (ADR 0020).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableSet
from datetime import UTC, datetime
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

from graph.models import GraphEdge, GraphNode, GraphSnapshot, utc_timestamp
from graph.quarantine import ReviewedGraph

__all__ = [
    "MAX_FILTER_VALUES",
    "MAX_SCAN",
    "FilteredSnapshot",
    "PatchFilter",
    "filtered_snapshot",
    "node_jurisdiction",
    "parse_since",
]

MAX_FILTER_VALUES: Final = 200
MAX_SCAN: Final = 50_000  # nodes read to answer one filtered snapshot, at most
_JURISDICTION_PREFIX: Final = re.compile(r"^(IE|UK|NI|EU|GB):")


def node_jurisdiction(node: GraphNode) -> str | None:
    """A concept's ``jurisdiction``, a ``Jurisdiction`` node's id, else the id's prefix."""
    value = node.properties.get("jurisdiction")
    if value:
        return str(value)
    if node.label == "Jurisdiction":
        return node.id
    match = _JURISDICTION_PREFIX.match(node.id)
    return match.group(1) if match else None


class PatchFilter(BaseModel):
    model_config = ConfigDict(frozen=True)

    jurisdictions: frozenset[str] = frozenset()
    labels: frozenset[str] = frozenset()
    node_ids: frozenset[str] = frozenset()
    keyword: str | None = None

    @property
    def everything(self) -> bool:
        return not (self.jurisdictions or self.labels or self.node_ids or self.keyword)

    def matches(self, node: GraphNode) -> bool:
        if self.labels and node.label not in self.labels:
            return False
        if self.node_ids and node.id not in self.node_ids:
            return False
        if self.jurisdictions and node_jurisdiction(node) not in self.jurisdictions:
            return False
        if self.keyword:
            needle = self.keyword.casefold()
            values = [node.id, *(str(v) for v in node.properties.values())]
            if not any(needle in value.casefold() for value in values):
                return False
        return True

    def edge_matches(self, edge: GraphEdge, nodes: Mapping[str, GraphNode]) -> bool:
        if self.everything:
            return True
        ends = (nodes.get(edge.source), nodes.get(edge.target))
        return any(node is not None and self.matches(node) for node in ends)

    def remember(self, known: MutableSet[str], node_id: str, limit: int = 50_000) -> None:
        """Note that ``node_id`` was sent (bounded: past ``limit`` nothing more is noted)."""
        if len(known) < limit:
            known.add(node_id)


def parse_since(value: str) -> str:
    """An ISO-8601 timestamp (``Z`` or an offset; UTC when it has neither) in the graph's own
    fixed-width UTC form. Anything else (``yesterday``) is a ``ValueError``: a 422, not an
    empty page."""
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise ValueError(f"not an ISO-8601 timestamp: {value[:40]!r}") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return utc_timestamp(moment)


class FilteredSnapshot(GraphSnapshot):
    truncated: bool = Field(
        default=False, description="More nodes matched than ``limit``: narrow the filter."
    )


async def filtered_snapshot(
    reviewed: ReviewedGraph, flt: PatchFilter, limit: int, since: str | None = None
) -> FilteredSnapshot:
    """Reviewed nodes passing ``flt`` (changed after ``since``, if given), at most ``limit``,
    and the edges among them. The store is asked for up to ``MAX_SCAN`` nodes and the filter
    runs in memory, like the stream's (thousands of nodes: milliseconds); ``truncated`` says
    there was more."""
    scan = limit + 1 if flt.everything or flt.node_ids else MAX_SCAN
    if since is not None:
        raw = await reviewed.changes_since(since, limit=scan)
    elif flt.node_ids:
        raw = await reviewed.neighbourhood(sorted(flt.node_ids), limit=scan)
    else:
        raw = await reviewed.snapshot(labels=sorted(flt.labels) or None, limit=scan)
    kept = [node for node in raw.nodes if flt.matches(node)]
    truncated = len(kept) > limit or len(raw.nodes) >= scan > limit + 1
    kept = kept[:limit]
    ids = {node.id for node in kept}
    if since is not None:  # changed edges between nodes that did not change are news too
        edges = [e for e in raw.edges if flt.everything or e.source in ids or e.target in ids]
    else:
        edges = [e for e in raw.edges if e.source in ids and e.target in ids]
    return FilteredSnapshot(nodes=kept, edges=edges, truncated=truncated)
