"""Graph change patches for graph UIs (DESIGN.md contract), fanned out in process.

``GraphWriteService`` tells :class:`PatchFeed` what changed after each write (in write order, off
the writer's path); the feed turns it into one :class:`GraphPatch` (nodes and edges added or
updated, numbered by ``seq``) and puts it on the queue of every subscriber. A subscriber that
falls ``max_queue`` patches behind is dropped and told so in a final patch whose
``meta.resync`` is true: it should reload a snapshot. Several API workers would share patches
over Redis pub/sub (DESIGN.md); the feed is the in-process default. Nothing is ever removed
from the rules graph, so ``removed`` lists stay empty until deletions exist.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncGenerator, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from graph.models import GraphEdge, GraphNode, WriteOutcome, WriteResult
from graph.port import GraphReader

__all__ = ["EdgeChanges", "GraphPatch", "NodeChanges", "PatchFeed"]


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


class PatchFeed:
    def __init__(self, reader: GraphReader, *, max_queue: int = 100) -> None:
        self._reader = reader
        self._max_queue = max_queue
        self._seq = itertools.count(1)
        self._subscribers: set[asyncio.Queue[GraphPatch | None]] = set()

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    async def on_change(self, results: Sequence[WriteResult], timestamp: str) -> None:
        """The write service's listener: publish one patch for one write call."""
        if not self._subscribers:
            return
        patch = await self._build(results, timestamp)
        for queue in list(self._subscribers):
            if queue.qsize() >= self._max_queue:
                self._subscribers.discard(queue)
                queue.put_nowait(None)  # the reader will send a resync marker
            else:
                queue.put_nowait(patch)

    async def _build(self, results: Sequence[WriteResult], timestamp: str) -> GraphPatch:
        patch = GraphPatch(seq=next(self._seq), timestamp=timestamp)
        node_results = {r.node_id: r.outcome for r in results if r.node_id is not None}
        for node in await self._reader.get_nodes(list(node_results)):
            if node_results[node.id] is WriteOutcome.CREATED:
                patch.nodes.added.append(node)
            else:
                patch.nodes.updated.append(node)
        for result in results:
            if result.edge is None:
                continue
            edge = GraphEdge(
                source=result.edge.source,
                target=result.edge.target,
                type=result.edge.type,
                properties={"updated_at": timestamp},
            )
            if result.outcome is WriteOutcome.CREATED:
                patch.edges.added.append(edge)
            else:
                patch.edges.updated.append(edge)
        return patch

    async def catch_up(self, since: str, limit: int = 1000) -> GraphPatch:
        """One patch with what changed after ``since`` (for a UI that reconnects)."""
        changes = await self._reader.changes_since(since, limit=limit)
        patch = GraphPatch(seq=next(self._seq), timestamp=since, meta={"catchUp": True})
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

    def subscribe(self) -> AsyncGenerator[GraphPatch, None]:
        """Patches from this call on (registered at once, before the first ``anext``); ends
        with a ``meta.resync`` patch if this reader fell behind."""
        queue: asyncio.Queue[GraphPatch | None] = asyncio.Queue(maxsize=self._max_queue + 1)
        self._subscribers.add(queue)

        async def patches() -> AsyncGenerator[GraphPatch, None]:
            try:
                while True:
                    patch = await queue.get()
                    if patch is None:
                        yield GraphPatch(seq=next(self._seq), timestamp="", meta={"resync": True})
                        return
                    yield patch
            finally:
                self._subscribers.discard(queue)

        return patches()
