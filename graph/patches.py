"""Graph change patches for graph UIs (a contract, docs/architecture.md): the models, and the
catch-up patch.

Patches are made by :class:`graph.detector.ChangeDetector` (one per process: batching, the
bounded log behind ``Last-Event-ID``, per-subscriber filters) and served on
``GET /api/graph/stream``. Patches go to tenants, so they carry only reviewed content
(``graph.quarantine``): a node a chat capture wrote is left out until an operator confirms it,
and so is every edge touching it. The confirmation is an update of a node no subscriber has
seen, with its edges written again: a client adds an ``updated`` node or edge it does not know.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from graph.models import GraphEdge, GraphNode, GraphSnapshot
from graph.patch_filter import PatchFilter
from graph.port import GraphReader
from graph.quarantine import reviewed_snapshot

__all__ = ["EdgeChanges", "GraphPatch", "NodeChanges", "catch_up_patch"]


class NodeChanges(BaseModel):
    added: list[GraphNode] = Field(default_factory=list)
    updated: list[GraphNode] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)


class EdgeChanges(BaseModel):
    added: list[GraphEdge] = Field(default_factory=list)
    updated: list[GraphEdge] = Field(default_factory=list)
    removed: list[GraphEdge] = Field(default_factory=list)


class GraphPatch(BaseModel):
    type: Literal["graph_patch"] = "graph_patch"
    seq: int
    timestamp: str
    nodes: NodeChanges = Field(default_factory=NodeChanges)
    edges: EdgeChanges = Field(default_factory=EdgeChanges)
    meta: dict[str, Any] = Field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """Nothing added, updated or removed (such a patch is never sent)."""
        nodes, edges = self.nodes, self.edges
        lists = (
            nodes.added,
            nodes.updated,
            nodes.removed,
            edges.added,
            edges.updated,
            edges.removed,
        )
        return not any(lists)


async def catch_up_patch(
    reader: GraphReader, since: str, limit: int = 1000, flt: PatchFilter | None = None
) -> GraphPatch:
    """One patch with the reviewed nodes and edges changed after ``since`` (``seq`` 0) that
    pass ``flt``: what a UI that connects with ``since`` is sent first (``meta.catchUp``)."""
    changes = await reviewed_snapshot(reader, await reader.changes_since(since, limit=limit))
    if flt is not None and not flt.everything:
        nodes = {n.id: n for n in changes.nodes}
        kept = [n for n in changes.nodes if flt.matches(n)]
        edges = [e for e in changes.edges if flt.edge_matches(e, nodes)]
        changes = GraphSnapshot(nodes=kept, edges=edges)
    patch = GraphPatch(seq=0, timestamp=since, meta={"catchUp": True})
    for node in changes.nodes:
        created = str(node.properties.get("created_at", "")) > since
        (patch.nodes.added if created else patch.nodes.updated).append(node)
    for edge in changes.edges:
        created = str(edge.properties.get("created_at", "")) > since
        (patch.edges.added if created else patch.edges.updated).append(edge)
    if changes.nodes or changes.edges:
        latest = [str(n.properties.get("updated_at", "")) for n in changes.nodes]
        latest += [str(e.properties.get("updated_at", "")) for e in changes.edges]
        patch.timestamp = max(latest)
    return patch
