"""The graph's shape as the retriever needs it: parents, citations, alignments, alt labels.

Built from the snapshot's documents and edges. Edge types read here: ``PART_OF`` (child ->
parent, alongside the provisions' own ``parent`` property), ``CITES`` (provision -> provision,
and rule node -> legal source), ``ALIGNS_WITH`` (concept -> rule node), ``HAS_ALT_LABEL``
(concept -> label, whose text joins the concept's index text); any other edge only counts for
the two-hop neighbourhood of focus concepts. Citations are kept at article level: a paragraph
citing ``Article 6(2)`` makes its article cite ``Article 6``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from engine.retrieval.documents import DocKind, RetrievalDoc
from graph.models import GraphEdge, GraphNode

__all__ = [
    "GraphStructure",
]

_UNIT_KINDS = frozenset({DocKind.ARTICLE, DocKind.ANNEX, DocKind.RECITAL})
# Edges that do not make two nodes neighbours for focus and named-act filtering: alias labels,
# containment, and jurisdiction membership (every EU node is two hops from every other).
_NOT_NEIGHBOURS = frozenset({"HAS_ALT_LABEL", "PART_OF", "IN_JURISDICTION"})


@dataclass
class GraphStructure:
    """Parent of each provision, article-level citations, concept alignments and alt labels."""

    parents: dict[str, str] = field(default_factory=dict)
    cites: dict[str, list[str]] = field(default_factory=dict)
    aligned: dict[str, list[str]] = field(default_factory=dict)
    alt_labels: dict[str, list[str]] = field(default_factory=dict)
    adjacent: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        docs: Mapping[str, RetrievalDoc],
        nodes: Mapping[str, GraphNode],
        edges: Iterable[GraphEdge],
    ) -> GraphStructure:
        shape = cls()
        for doc in docs.values():
            if doc.parent_id:
                shape.parents[doc.id] = doc.parent_id
        raw_cites: list[tuple[str, str]] = []
        for edge in sorted(edges, key=lambda e: (e.type, e.source, e.target)):
            if edge.type == "PART_OF":
                shape.parents.setdefault(edge.source, edge.target)
            elif edge.type == "CITES":
                raw_cites.append((edge.source, edge.target))
            elif edge.type == "ALIGNS_WITH":
                shape.aligned.setdefault(edge.source, []).append(edge.target)
            elif edge.type == "HAS_ALT_LABEL":
                label = nodes.get(edge.target)
                text = label.properties.get("text") if label else None
                if text:
                    shape.alt_labels.setdefault(edge.source, []).append(str(text))
            if edge.type not in _NOT_NEIGHBOURS:
                shape.adjacent.setdefault(edge.source, set()).add(edge.target)
                shape.adjacent.setdefault(edge.target, set()).add(edge.source)
        for source, target in raw_cites:
            unit_source = shape.unit_of(source, docs)
            unit_target = shape.unit_of(target, docs)
            if unit_source and unit_target and unit_source != unit_target:
                targets = shape.cites.setdefault(unit_source, [])
                if unit_target not in targets:
                    targets.append(unit_target)
        return shape

    def unit_of(self, node_id: str, docs: Mapping[str, RetrievalDoc]) -> str | None:
        """The article, annex or recital holding ``node_id`` (itself if it is one)."""
        current: str | None = node_id
        for _ in range(6):  # paragraph -> article is one step; guard against cycles
            if current is None:
                return None
            doc = docs.get(current)
            if doc is None:
                return None
            if doc.kind in _UNIT_KINDS or doc.kind in {DocKind.RULE, DocKind.INSTRUMENT}:
                return current
            current = self.parents.get(current)
        return None

    def ancestors(self, node_id: str) -> list[str]:
        """Enclosing provisions, innermost first (paragraph -> article -> section -> chapter)."""
        chain: list[str] = []
        current = self.parents.get(node_id)
        while current is not None and current not in chain and len(chain) < 8:
            chain.append(current)
            current = self.parents.get(current)
        return chain

    def within_two_hops(self, ids: Iterable[str]) -> set[str]:
        """Nodes one or two edges away from any of ``ids`` (see ``_NOT_NEIGHBOURS``)."""
        first = {n for i in ids for n in self.adjacent.get(i, ())}
        return first | {n for i in first for n in self.adjacent.get(i, ())}
