"""Graph evidence held in memory: the :class:`~engine.retrieval.Retriever` over provisions and
rule nodes, plus one-line descriptions of every node.

Why in memory: the stream must not wait on the graph before the first token, and the graph is
small (thousands of nodes), so the engine keeps the retriever (ADR 0012) and the node map,
rebuilt from a graph snapshot whenever the graph changes (in the background). Provisional
concepts are described (a conversation may have them active) but never returned as evidence:
captured concepts are shared knowledge only once confirmed.

A search returns :class:`Evidence`: the hits, each with the text the prompt quotes (a
provision's heading and its best-matching paragraphs, bounded), and the relevance gate's
verdict, which decides before the model is called whether the turn must refuse.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import structlog

from engine.normalise import normalise_label
from engine.retrieval import HitReason, RelevanceVerdict, RetrievalHit, Retriever
from engine.retrieval.documents import jurisdiction_of_id
from graph.models import GraphEdge, GraphNode
from graph.port import GraphReader

__all__ = [
    "MAX_EVIDENCE_CHARS",
    "MAX_NODES",
    "NOT_EVIDENCE",
    "Evidence",
    "EvidenceHit",
    "EvidenceIndex",
    "describe",
    "evidence_text",
    "jurisdiction_of",
    "node_title",
]

log = structlog.get_logger(__name__)

NOT_EVIDENCE = frozenset({"Label"})
MAX_NODES = 50_000
MAX_EVIDENCE_CHARS = 1500  # per hit in the prompt: a provision's relevant paragraphs, not all


def jurisdiction_of(node: GraphNode) -> str | None:
    if node.label == "Concept":
        value = node.properties.get("jurisdiction")
        return str(value) if value else None
    if node.label == "Jurisdiction":
        return node.id
    return jurisdiction_of_id(node.id)


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


@dataclass(frozen=True)
class Evidence:
    """What a question retrieved, and whether it can answer the question at all."""

    hits: list[EvidenceHit]
    verdict: RelevanceVerdict

    @property
    def answerable(self) -> bool:
        return self.verdict.answerable and bool(self.hits)

    def ids(self) -> list[str]:
        return [hit.node.id for hit in self.hits]


class EvidenceIndex:
    def __init__(self, reader: GraphReader) -> None:
        self._reader = reader
        self._nodes: dict[str, GraphNode] = {}
        self._names: dict[str, list[GraphNode]] = {}
        self._retriever = Retriever(())
        self._refresh_lock = asyncio.Lock()
        self._pending: asyncio.Task[None] | None = None
        self._closed = False

    def __len__(self) -> int:
        return len(self._nodes)

    async def refresh(self) -> None:
        """Rebuild from a graph snapshot. Concurrent calls coalesce on one lock."""
        async with self._refresh_lock:
            snapshot = await self._reader.snapshot(limit=MAX_NODES)
            # Building the index is CPU work (~0.5 s for two acts): off the event loop.
            await asyncio.to_thread(self._build, snapshot.nodes, snapshot.edges)

    def schedule_refresh(self) -> None:
        """Refresh in the background (after graph writes); failures are logged, not raised."""
        if self._closed:
            return  # shutting down: the graph is about to close
        if self._pending is None or self._pending.done():
            self._pending = asyncio.get_running_loop().create_task(self._refresh_quietly())

    async def aclose(self) -> None:
        """Stop a background rebuild and refuse new ones (at shutdown, before the graph closes
        under them; the write service's last notifications may still ask for one)."""
        self._closed = True
        if self._pending is not None and not self._pending.done():
            self._pending.cancel()
            await asyncio.gather(self._pending, return_exceptions=True)

    async def _refresh_quietly(self) -> None:
        try:
            await self.refresh()
        except Exception:  # the index stays as it was; the next write retries
            log.exception("evidence_refresh_failed")

    def _build(self, nodes: Iterable[GraphNode], edges: Iterable[GraphEdge] = ()) -> None:
        by_id = {node.id: node for node in nodes}
        names: dict[str, list[GraphNode]] = {}
        for node in by_id.values():
            if node.label not in NOT_EVIDENCE and node.label != "Concept":
                names.setdefault(normalise_label(node_title(node)), []).append(node)
        retriever = Retriever(by_id.values(), edges)
        self._nodes, self._names, self._retriever = by_id, names, retriever
        log.debug("evidence_index_built", nodes=len(by_id), searchable=len(retriever))

    def search(
        self,
        query: str,
        k: int,
        jurisdictions: Sequence[str] = (),
        focus: Sequence[str] = (),
    ) -> Evidence:
        """The top ``k`` provisions and rule nodes for the question, and the gate's verdict.

        ``jurisdictions`` the question names restrict the evidence to them and to EU law
        (which applies in every member state); none named: no restriction. ``focus`` are
        concept ids the question names; nodes near them rank higher.
        """
        where = [*jurisdictions, "EU"] if jurisdictions else []
        result = self._retriever.search(query, k, jurisdictions=where, focus=focus)
        hits = [
            EvidenceHit(node=hit.node, text=evidence_text(hit.node, self._passages(hit)),
                        score=hit.score)
            for hit in result.hits
        ]  # fmt: skip
        return Evidence(hits=hits, verdict=result.verdict)

    def _passages(self, hit: RetrievalHit) -> list[str]:
        """The paragraphs the retriever matched, in the act's order; none for a provision the
        question named ("Article 5"): it is quoted from its beginning."""
        if hit.why is HitReason.EXPLICIT:
            return []
        found = (self._nodes.get(i) for i in hit.passages)
        nodes = [node for node in found if node is not None and node.properties.get("text")]
        nodes.sort(key=lambda node: int(node.properties.get("position", 0)))
        return [str(node.properties["text"]) for node in nodes]

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


def evidence_text(node: GraphNode, passages: Sequence[str] = ()) -> str:
    """What the prompt quotes for ``node``, on one line: for a provision its citation, heading
    and best-matching paragraphs (else its text), bounded; for a rule node its description."""
    props = node.properties
    if not props.get("text") or props.get("status") == "provisional":
        return describe(node)
    head = " — ".join(str(props[k]) for k in ("name", "title") if props.get(k))
    body = " ".join(passages) if passages else str(props["text"])
    return _bounded(f"{head}: {body}" if head else body)


def _bounded(text: str, limit: int = MAX_EVIDENCE_CHARS) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return (cut[: end + 1] if end > limit // 2 else cut.rstrip()) + " …"
