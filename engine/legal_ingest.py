"""Ingest EU legal acts into the rules graph: parse (``corpus``), then write through
``GraphWriteService`` (ingress guard, timestamps), like every other write.

Nodes of every act go first, then the edges of every act, so a cross-reference from the AI Act
to the GDPR lands whichever file comes first. ``corpus`` emits edges to acts that may not be in
the graph (``CITES`` to a regulation nobody ingested, ``IN_JURISDICTION`` to ``EU``): those
whose target exists neither in this run nor in the graph are counted as skipped, never written
as dangling edges. A node the ingress guard refuses is listed in the report's ``rejected`` and
left out (with its edges), and the rest of the act is written: a refusal of real law is a
detector's false positive to fix, and must not cost the other 25,000 provisions. Running it
twice reports everything UNCHANGED and keeps ``created_at``.
An act given in two formats (the AI Act in OJ markup and in the JSON collection) is read once,
from the Official Journal markup (:func:`corpus.parse.prefer_official_journal`).
Parsing is CPU work and runs in a worker thread, off the event loop.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from corpus import parse_act, to_graph_writes
from corpus.parse import prefer_official_journal
from errors import GraphWriteRejected
from graph.models import EdgeWrite, NodeWrite, WriteResult
from graph.port import GraphReader
from graph.write_service import GraphWriteService

__all__ = ["IngestProgress", "IngestReport", "ingest_acts"]

_BATCH = 500  # nodes per write: the progress bar moves, one refusal is found in one batch
IngestProgress = Callable[[str, int], None]
"""Called with a step's name and how many items it covered (a CLI advances a progress bar)."""


@dataclass
class IngestReport:
    acts: list[str] = field(default_factory=list)
    nodes: Counter[str] = field(default_factory=Counter)
    edges: Counter[str] = field(default_factory=Counter)
    skipped_edges: int = 0
    rejected: list[dict[str, str]] = field(default_factory=list)  # refused by the guard
    duplicates: int = 0  # files of an act read from another format too (the OJ markup wins)

    def summary(self) -> dict[str, object]:
        return {
            "acts": self.acts,
            "duplicates": self.duplicates,
            "rejected": self.rejected,
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
    parsed = []
    for path in paths:
        parsed.append(await asyncio.to_thread(parse_act, path))
        step(f"parsed {parsed[-1].instrument.id}", 1)
    acts = prefer_official_journal(parsed)
    report.duplicates = len(parsed) - len(acts)
    for act in acts:
        # Every other act is known, so a citation of a paragraph another act lacks falls back
        # to its article there (a DORA reference to NIS2, an AI Act reference to the GDPR).
        others = [other for other in acts if other is not act]
        act_nodes, act_edges = await asyncio.to_thread(to_graph_writes, act, others)
        report.acts.append(act.instrument.id)
        nodes += act_nodes
        edges += act_edges
    written: set[str] = set()
    for start in range(0, len(nodes), _BATCH):
        batch = nodes[start : start + _BATCH]
        for result in await _upsert_screened(writer, batch, report):
            report.nodes[result.outcome.value] += 1
            if result.node_id is not None:
                written.add(result.node_id)
        step("nodes", len(batch))
    kept = await _with_existing_targets(edges, written, reader)
    report.skipped_edges = len(edges) - len(kept)
    for start in range(0, len(kept), _BATCH * 4):
        for result in await writer.upsert_edges(kept[start : start + _BATCH * 4]):
            report.edges[result.outcome.value] += 1
        step("edges", len(kept[start : start + _BATCH * 4]))
    return report


async def _upsert_screened(
    writer: GraphWriteService, batch: Sequence[NodeWrite], report: IngestReport
) -> list[WriteResult]:
    """Write ``batch``; when the ingress guard refuses it, write its nodes one by one, so one
    refused provision (a detector's false positive: fix the detector) costs that provision,
    not the act. Refusals are listed in the report, never silent."""
    try:
        return list(await writer.upsert_nodes(batch))
    except GraphWriteRejected:
        results: list[WriteResult] = []
        for node in batch:
            try:
                results += await writer.upsert_nodes([node])
            except GraphWriteRejected as exc:
                report.rejected.append({"id": node.id, "code": exc.code, "reason": str(exc)})
        return results


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
