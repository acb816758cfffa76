"""Keeps the engine's in-memory views of the graph in step with it.

Two views: the evidence index (every node, rebuilt in the background after a write that can
change evidence) and the concept lexicon (what the extractive provider and evidence focus
recognise). Only CONFIRMED concepts join the lexicon: a provisional one was captured in some
tenant's chat and is not yet shared knowledge (docs/architecture.md, "Invariants"), so another
tenant's questions must not be steered by it.

A chat's capture writes a provisional concept, its labels and its alignments: none of that is
evidence, so it is only remembered for descriptions; the index (about a second of CPU with the
shipped acts) is rebuilt only when a write touches something evidence is made of.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.evidence import EvidenceIndex
from engine.lexicon import ConceptLexicon
from engine.lexicon_entry import LexiconEntry
from graph.models import EdgeKey, GraphEdge, GraphNode, WriteResult
from graph.port import GraphReader
from graph.quarantine import is_quarantined

__all__ = [
    "CAPTURE_EDGES",
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
        notation=str(props["notation"]) if props.get("notation") else None,
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
            n.id: str(n.properties.get("text", ""))
            for n in snapshot.nodes
            if n.label == "Label" and not is_quarantined(n)
        }
        count = 0
        for node in snapshot.nodes:
            if _confirmed(node):
                self._lexicon.add(concept_entry(node, _labels(node.id, snapshot.edges, texts)))
                count += 1
        return count

    async def on_change(self, results: Sequence[WriteResult], _: str) -> None:
        """The write service's listener: refresh the index if evidence may have changed;
        (re)learn confirmed concepts."""
        node_ids = [r.node_id for r in results if r.node_id is not None]
        edges = [r.edge for r in results if r.edge is not None]
        sources = [e.source for e in edges if e.type in CAPTURE_EDGES]
        nodes = {n.id: n for n in await self._graph.get_nodes([*node_ids, *sources])}
        if _changes_evidence([nodes[i] for i in node_ids if i in nodes], edges, nodes):
            self._evidence.schedule_refresh()
        else:
            self._evidence.remember([nodes[i] for i in node_ids if i in nodes])
        # A confirmed concept is (re)learnt when it is written and when labels are attached to
        # it (its node and its label edges are separate writes).
        relearn = dict.fromkeys(
            [*node_ids, *(e.source for e in edges if e.type == "HAS_ALT_LABEL")]
        )
        for node_id in relearn:
            node = nodes.get(node_id)
            if node_id in self._lexicon and (node is None or not _confirmed(node)):
                self._lexicon.remove(node_id)  # deleted, or merged into another (a redirect)
            if node is not None and _confirmed(node):
                around = await self._graph.neighbourhood([node.id], limit=200)
                texts = {
                    n.id: str(n.properties.get("text", ""))
                    for n in around.nodes
                    if n.label == "Label" and not is_quarantined(n)
                }
                self._lexicon.add(concept_entry(node, _labels(node.id, around.edges, texts)))


CAPTURE_EDGES = frozenset({"HAS_ALT_LABEL", "ALIGNS_WITH"})
"""What a capture writes besides its concept and labels (edges out of the concept)."""


def _provisional_capture(node: GraphNode | None) -> bool:
    if node is None:
        return False
    return node.label == "Label" or (node.label == "Concept" and is_quarantined(node))


def _changes_evidence(
    nodes: Sequence[GraphNode], edges: Sequence[EdgeKey], known: dict[str, GraphNode]
) -> bool:
    """False only for a write of provisional concepts, labels and their outgoing edges,
    none of which is ever evidence; anything else (or anything not found) may be."""
    return not (
        all(_provisional_capture(node) for node in nodes)
        and all(
            e.type in CAPTURE_EDGES and _provisional_capture(known.get(e.source)) for e in edges
        )
    )


def _labels(concept_id: str, edges: Sequence[GraphEdge], texts: dict[str, str]) -> list[str]:
    return [texts[e.target] for e in edges if e.source == concept_id and e.target in texts]
