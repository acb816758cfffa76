"""Graph evidence: a BM25 index over the rules graph's nodes, held in memory.

Why in memory: the stream must not wait on the graph before the first token, and the graph is
small (thousands of nodes), so the engine keeps a lexical index (``bm25s``) and one-line
descriptions of every node, rebuilt from a graph snapshot whenever the graph changes. Provisional
concepts are described (a conversation may have them active) but never returned as evidence:
captured concepts are shared knowledge only once confirmed.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import bm25s
import structlog

from engine.normalise import normalise_label
from graph.models import GraphEdge, GraphNode
from graph.port import GraphReader

__all__ = [
    "MAX_NODES",
    "NOT_EVIDENCE",
    "EvidenceHit",
    "EvidenceIndex",
    "describe",
    "jurisdiction_of",
    "node_title",
]

log = structlog.get_logger(__name__)

NOT_EVIDENCE = frozenset({"Label"})
_JURISDICTION_PREFIX = re.compile(r"^(IE|UK|NI|EU|GB):")
MAX_NODES = 50_000


def jurisdiction_of(node: GraphNode) -> str | None:
    if node.label == "Concept":
        value = node.properties.get("jurisdiction")
        return str(value) if value else None
    if node.label == "Jurisdiction":
        return node.id
    match = _JURISDICTION_PREFIX.match(node.id)
    return match.group(1) if match else None


def node_title(node: GraphNode) -> str:
    props = node.properties
    for key in ("name", "title", "pref_label", "text"):
        if props.get(key):
            return str(props[key])
    return node.id


def describe(node: GraphNode) -> str:
    """One line of evidence text: title, value, body, citation."""
    props = node.properties
    if props.get("status") == "provisional":
        # Captured in some tenant's chat, unreviewed: only its name travels, never its text.
        return f"{node_title(node)} [provisional]"
    parts = [node_title(node)]
    if props.get("value") is not None:
        parts.append(f"{props['value']:g} {props.get('unit', '')}".strip())
    body = props.get("description") or props.get("definition") or props.get("text")
    if body and body != parts[0]:
        parts.append(str(body))
    if props.get("citation"):
        parts.append(f"({props['citation']})")
    if props.get("verified") is False:
        parts.append("[unverified]")
    return " — ".join(parts)


@dataclass(frozen=True)
class EvidenceHit:
    node: GraphNode
    text: str
    score: float


class EvidenceIndex:
    def __init__(self, reader: GraphReader) -> None:
        self._reader = reader
        self._nodes: dict[str, GraphNode] = {}
        self._searchable: list[GraphNode] = []
        self._names: dict[str, list[GraphNode]] = {}
        self._adjacent: dict[str, set[str]] = {}
        self._tokenizer = bm25s.tokenization.Tokenizer(stopwords="en", stemmer=None)
        self._bm25: bm25s.BM25 | None = None
        self._refresh_lock = asyncio.Lock()
        self._pending: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._nodes)

    async def refresh(self) -> None:
        """Rebuild from a graph snapshot. Concurrent calls coalesce on one lock."""
        async with self._refresh_lock:
            snapshot = await self._reader.snapshot(limit=MAX_NODES)
            self._build(snapshot.nodes, snapshot.edges)

    def schedule_refresh(self) -> None:
        """Refresh in the background (after graph writes); failures are logged, not raised."""
        if self._pending is None or self._pending.done():
            self._pending = asyncio.get_running_loop().create_task(self._refresh_quietly())

    async def _refresh_quietly(self) -> None:
        try:
            await self.refresh()
        except Exception:  # the index stays as it was; the next write retries
            log.exception("evidence_refresh_failed")

    def _build(self, nodes: Iterable[GraphNode], edges: Iterable[GraphEdge] = ()) -> None:
        by_id = {node.id: node for node in nodes}
        adjacent: dict[str, set[str]] = {}
        for edge in edges:
            if edge.type != "HAS_ALT_LABEL":
                adjacent.setdefault(edge.source, set()).add(edge.target)
                adjacent.setdefault(edge.target, set()).add(edge.source)
        searchable = [
            node
            for node in by_id.values()
            if node.label not in NOT_EVIDENCE and node.properties.get("status") != "provisional"
        ]
        names: dict[str, list[GraphNode]] = {}
        for node in searchable:
            if node.label != "Concept":
                names.setdefault(normalise_label(node_title(node)), []).append(node)
        bm25 = None
        if searchable:
            corpus = [f"{describe(n)} {n.label}" for n in searchable]
            tokenizer = bm25s.tokenization.Tokenizer(stopwords="en", stemmer=None)
            ids = tokenizer.tokenize(corpus, show_progress=False, return_as="ids")
            bm25 = bm25s.BM25()
            bm25.index(ids, show_progress=False)
            self._tokenizer = tokenizer
        self._nodes, self._searchable, self._names, self._bm25 = by_id, searchable, names, bm25
        self._adjacent = adjacent
        log.debug("evidence_index_built", nodes=len(by_id), searchable=len(searchable))

    def search(
        self,
        query: str,
        k: int,
        jurisdictions: Sequence[str] = (),
        focus: Sequence[str] = (),
    ) -> list[EvidenceHit]:
        """Top ``k`` nodes for the query (BM25), re-ranked.

        Nodes of the question's ``jurisdictions`` get x1.5, others x0.5; nodes within two hops
        of a ``focus`` concept (one the question names) get x2, so "the standard rate of VAT"
        prefers the VAT regime's rates over income tax's "standard rate".
        """
        if self._bm25 is None or not query.strip():
            return []
        tokens = self._tokenizer.tokenize(
            [query], update_vocab=False, show_progress=False, return_as="ids"
        )
        if not tokens or not tokens[0]:
            return []
        wanted = set(jurisdictions)
        near = self._within_two_hops(focus)
        pool = min(len(self._searchable), max(k * 8, 40))
        docs, scores = self._bm25.retrieve(tokens, k=pool, show_progress=False)
        hits = []
        for doc, score in zip(docs[0], scores[0], strict=True):
            if score <= 0:
                continue
            node = self._searchable[int(doc)]
            where = jurisdiction_of(node)
            boosted = float(score) * (1.5 if wanted and where in wanted else 1.0)
            if wanted and where and where not in wanted:
                boosted *= 0.5
            if node.id in near:
                boosted *= 2.0
            hits.append(EvidenceHit(node=node, text=describe(node), score=boosted))
        hits.sort(key=lambda hit: (-hit.score, hit.node.id))
        return hits[:k]

    def _within_two_hops(self, ids: Sequence[str]) -> set[str]:
        first = {n for i in ids for n in self._adjacent.get(i, ())}
        return first | {n for i in first for n in self._adjacent.get(i, ())}

    def remember(self, nodes: Sequence[GraphNode]) -> None:
        """Know these nodes for descriptions now, before the next rebuild (not searchable)."""
        self._nodes = {**self._nodes, **{node.id: node for node in nodes}}

    def get(self, node_id: str) -> GraphNode | None:
        return self._nodes.get(node_id)

    def descriptions(self, ids: Sequence[str]) -> list[tuple[str, str]]:
        """``(id, one-line description)`` for the ids the index knows, in the given order."""
        return [(i, describe(self._nodes[i])) for i in ids if i in self._nodes]

    def nodes_named(self, normalised_labels: Sequence[str], jurisdiction: str) -> list[GraphNode]:
        """Rule nodes whose normalised name equals one of the labels, in that jurisdiction."""
        found: dict[str, GraphNode] = {}
        for label in normalised_labels:
            for node in self._names.get(label, []):
                if jurisdiction_of(node) in (jurisdiction, None):
                    found[node.id] = node
        return list(found.values())
