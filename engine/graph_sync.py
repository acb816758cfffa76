"""Keeps the engine's in-memory views of the graph in step with it.

Two views: the evidence index (every node, rebuilt in the background after a write) and the
concept lexicon (what the extractive provider and evidence focus recognise). Only CONFIRMED
concepts join the lexicon: a provisional one was captured in some tenant's chat and is not yet
shared knowledge (DESIGN.md invariant), so another tenant's questions must not be steered by it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.evidence import EvidenceIndex
from engine.lexicon import ConceptLexicon
from engine.lexicon_entry import LexiconEntry
from graph.models import GraphEdge, GraphNode, WriteResult
from graph.port import GraphReader

__all__ = [
    "GraphSync",
    "concept_entry",
]


def concept_entry(node: GraphNode, labels: Sequence[str]) -> LexiconEntry:
    """A graph ``Concept`` node as a lexicon entry (key = node id, scheme ``graph``)."""
    props: dict[str, Any] = dict(node.properties)
    domain, jurisdiction, kind = node.id.split(":", 2)
    return LexiconEntry(
        key=node.id,
        pref_label=str(props.get("pref_label", kind)),
        alt_labels=tuple(labels),
        domain=domain,
        kind=kind,
        jurisdiction=jurisdiction,
        definition=props.get("definition"),
        source_urls=tuple(props.get("source_urls", ())),
        scheme="graph",
        notation=None,
    )


def _confirmed(node: GraphNode) -> bool:
    return (
        node.label == "Concept"
        and node.id.count(":") >= 2
        and (node.properties.get("status", "confirmed") == "confirmed")
    )


class GraphSync:
    def __init__(
        self, graph: GraphReader, evidence: EvidenceIndex, lexicon: ConceptLexicon
    ) -> None:
        self._graph = graph
        self._evidence = evidence
        self._lexicon = lexicon

    async def start(self) -> int:
        """Build the evidence index and teach the lexicon every confirmed concept."""
        await self._evidence.refresh()
        snapshot = await self._graph.snapshot(labels=["Concept", "Label"], limit=50_000)
        texts = {
            n.id: str(n.properties.get("text", "")) for n in snapshot.nodes if n.label == "Label"
        }
        count = 0
        for node in snapshot.nodes:
            if _confirmed(node):
                self._lexicon.add(concept_entry(node, _labels(node.id, snapshot.edges, texts)))
                count += 1
        return count

    async def on_change(self, results: Sequence[WriteResult], _: str) -> None:
        """The write service's listener: refresh the index; (re)learn confirmed concepts."""
        self._evidence.schedule_refresh()
        node_ids = [r.node_id for r in results if r.node_id is not None]
        for node in await self._graph.get_nodes(node_ids):
            if _confirmed(node):
                around = await self._graph.neighbourhood([node.id], limit=200)
                texts = {n.id: str(n.properties.get("text", "")) for n in around.nodes
                         if n.label == "Label"}  # fmt: skip
                self._lexicon.add(concept_entry(node, _labels(node.id, around.edges, texts)))


def _labels(concept_id: str, edges: Sequence[GraphEdge], texts: dict[str, str]) -> list[str]:
    return [texts[e.target] for e in edges if e.source == concept_id and e.target in texts]
