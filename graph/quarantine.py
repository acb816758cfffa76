"""The quarantine: what a conversation captured stays out of every tenant's view until reviewed.

The rules graph is shared by every tenant and holds no tenant ids, so it cannot say *whose* a
captured concept is. It says *whether it was reviewed*: a node written by a chat capture carries
``status: "provisional"`` (a ``Concept`` and each ``Label`` it brought), and an operator's review
sets ``"confirmed"``. Every read that serves tenants goes through :class:`ReviewedGraph`, which
drops quarantined nodes and every edge that touches one; the patch feed applies the same rule.
A concept an operator merged into another (``status: "merged"``, ``merged_into``: the
survivor) is a redirect: resolution follows it, and tenants no longer see it (:func:`is_hidden`
covers both).
The capturing conversation still knows what it captured: its concept ids live in its own,
tenant-scoped conversation context, not in the graph (ADR 0020).

Filtering happens after the store's query, in Python, so one rule serves every backend. A
snapshot of ``limit`` nodes may therefore return fewer than ``limit`` reviewed nodes when
provisional ones were among them; it never returns more, and never a quarantined one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from graph.models import GraphEdge, GraphNode, GraphSnapshot
from graph.port import GraphReader

__all__ = [
    "MERGED_STATUS",
    "QUARANTINED_STATUS",
    "REVIEWED_STATUS",
    "ReviewedGraph",
    "is_hidden",
    "is_quarantined",
    "left_tenants_view",
    "reviewed_edges",
    "reviewed_snapshot",
]

QUARANTINED_STATUS: Final = "provisional"
REVIEWED_STATUS: Final = "confirmed"
MERGED_STATUS: Final = "merged"


def is_quarantined(node: GraphNode) -> bool:
    """A node a chat capture wrote that no operator has reviewed yet."""
    return node.properties.get("status") == QUARANTINED_STATUS


def is_hidden(node: GraphNode) -> bool:
    """A node no tenant may see: quarantined, or a concept merged into another (a redirect)."""
    return node.properties.get("status") in (QUARANTINED_STATUS, MERGED_STATUS)


def left_tenants_view(node: GraphNode) -> bool:
    """A node tenants saw and no longer see: a concept merged into another from a reviewed
    state (its redirect keeps ``merged_from``). One merged while still quarantined never was
    visible, so even its removal must not be reported (ADR 0034)."""
    return (
        node.properties.get("status") == MERGED_STATUS
        and node.properties.get("merged_from") == REVIEWED_STATUS
    )


async def reviewed_edges(
    reader: GraphReader, edges: Iterable[GraphEdge], known: Mapping[str, GraphNode]
) -> list[GraphEdge]:
    """``edges`` without those touching a hidden node. Endpoints missing from ``known``
    are read from the store (one batch), so an edge to a node outside the page is judged too;
    an endpoint the store does not have is treated as quarantined (nothing unjudged passes)."""
    edges = list(edges)
    missing = {e.source for e in edges} | {e.target for e in edges}
    missing -= set(known)
    nodes = dict(known)
    if missing:
        nodes.update({node.id: node for node in await reader.get_nodes(sorted(missing))})

    def clean(node_id: str) -> bool:
        node = nodes.get(node_id)
        return node is not None and not is_hidden(node)

    return [edge for edge in edges if clean(edge.source) and clean(edge.target)]


async def reviewed_snapshot(reader: GraphReader, snapshot: GraphSnapshot) -> GraphSnapshot:
    """``snapshot`` with quarantined nodes and the edges touching them removed."""
    known = {node.id: node for node in snapshot.nodes}
    return GraphSnapshot(
        nodes=[node for node in snapshot.nodes if not is_hidden(node)],
        edges=await reviewed_edges(reader, snapshot.edges, known),
    )


class ReviewedGraph:
    """The graph reads a tenant may make: only reviewed nodes and the edges among them."""

    def __init__(self, reader: GraphReader) -> None:
        self._reader = reader

    async def snapshot(
        self, labels: Sequence[str] | None = None, limit: int = 1000
    ) -> GraphSnapshot:
        return await reviewed_snapshot(
            self._reader, await self._reader.snapshot(labels=labels, limit=limit)
        )

    async def neighbourhood(self, ids: Sequence[str], limit: int = 200) -> GraphSnapshot:
        """A reviewed node's reviewed neighbours; nothing around a quarantined (or unknown) one."""
        asked = [n for n in await self._reader.get_nodes(ids) if not is_hidden(n)]
        if not asked:
            return GraphSnapshot()
        around = await self._reader.neighbourhood([n.id for n in asked], limit=limit)
        return await reviewed_snapshot(self._reader, around)

    async def changes_since(self, timestamp: str, limit: int = 1000) -> GraphSnapshot:
        return await reviewed_snapshot(
            self._reader, await self._reader.changes_since(timestamp, limit=limit)
        )
