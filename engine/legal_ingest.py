"""Ingest EU legal acts into the rules graph: parse (``corpus``), then write through
``GraphWriteService`` (ingress guard, timestamps), like every other write.

Nodes of every act go first, then the edges of every act, so a cross-reference from the AI Act
to the GDPR lands whichever file comes first. ``corpus`` emits edges to acts that may not be in
the graph (``CITES`` to a regulation nobody ingested, ``IN_JURISDICTION`` to ``EU``): those
whose target exists neither in this run nor in the graph are counted as skipped, never written
as dangling edges. Running it twice reports everything UNCHANGED and keeps ``created_at``.
Parsing is CPU work and runs in a worker thread, off the event loop.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from corpus import parse_act, to_graph_writes
from graph.models import EdgeWrite, NodeWrite
from graph.port import GraphReader
from graph.write_service import GraphWriteService

__all__ = ["IngestProgress", "IngestReport", "ingest_acts"]

IngestProgress = Callable[[str, int], None]
"""Called with a step's name and how many items it covered (a CLI advances a progress bar)."""


@dataclass
class IngestReport:
    acts: list[str] = field(default_factory=list)
    nodes: Counter[str] = field(default_factory=Counter)
    edges: Counter[str] = field(default_factory=Counter)
    skipped_edges: int = 0

    def summary(self) -> dict[str, object]:
        return {
            "acts": self.acts,
            "nodes": dict(self.nodes),
            "edges": dict(self.edges),
            "skippedEdges": self.skipped_edges,
        }


async def ingest_acts(
    paths: Sequence[Path],
    reader: GraphReader,
    writer: GraphWriteService,
    progress: IngestProgress | None = None,
) -> IngestReport:
    """Parse and write the acts at ``paths``; idempotent."""
    report = IngestReport()
    step = progress or (lambda _name, _count: None)
    nodes: list[NodeWrite] = []
    edges: list[EdgeWrite] = []
    for path in paths:
        act = await asyncio.to_thread(parse_act, path)
        act_nodes, act_edges = to_graph_writes(act)
        report.acts.append(act.instrument.id)
        nodes += act_nodes
        edges += act_edges
        step(f"parsed {act.instrument.id}", 1)
    for result in await writer.upsert_nodes(nodes):
        report.nodes[result.outcome.value] += 1
    step("nodes", len(nodes))
    kept = await _with_existing_targets(edges, {node.id for node in nodes}, reader)
    report.skipped_edges = len(edges) - len(kept)
    for result in await writer.upsert_edges(kept):
        report.edges[result.outcome.value] += 1
    step("edges", len(edges))
    return report


async def _with_existing_targets(
    edges: Sequence[EdgeWrite], written: set[str], reader: GraphReader
) -> list[EdgeWrite]:
    """Edges whose endpoints exist; a target stored before (a seed's summary of an article of
    an act not ingested) keeps the label it is stored with."""
    outside = sorted({e.target_id for e in edges} - written)
    stored = {node.id: node.label for node in await reader.get_nodes(outside)}
    kept = []
    for edge in edges:
        if edge.source_id not in written:
            continue
        if edge.target_id in stored:
            kept.append(edge.model_copy(update={"target_label": stored[edge.target_id]}))
        elif edge.target_id in written:
            kept.append(edge)
    return kept
