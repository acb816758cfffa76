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

Dated facts (ADR 0031, 0032): a search may be restricted to what was in force in a window
(``as_at``); each quoted line says the period its value is in force, the source it came from and
when that source was checked, and, for a value another source disputes, the conflict.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TypeVar

import structlog

from embeddings import Embedder, VectorStore
from engine.normalise import normalise_label
from engine.retrieval import HitReason, RelevanceVerdict, RetrievalHit, Retriever
from engine.retrieval.amounts import amount
from engine.retrieval.cache import IndexCache, build_retriever
from engine.retrieval.documents import jurisdiction_of_id
from graph.models import GraphEdge, GraphNode, GraphSnapshot
from graph.port import GraphReader
from graph.quarantine import MERGED_STATUS, is_hidden, is_quarantined
from infra.lifetime import Lifetime

__all__ = [
    "MAX_EVIDENCE_CHARS",
    "MAX_NODES",
    "NOT_EVIDENCE",
    "OUTSIDE_EU",
    "Evidence",
    "EvidenceHit",
    "EvidenceIndex",
    "describe",
    "evidence_text",
    "jurisdiction_of",
    "node_title",
    "provenance",
    "validity",
]

log = structlog.get_logger(__name__)

NOT_EVIDENCE = frozenset({"Label", "ChangeEvent"})
MAX_NODES = 50_000
OUTSIDE_EU = frozenset({"UK", "GB"})
"""Covered jurisdictions outside the EU since 31 January 2020: EU law is not their evidence
(Northern Ireland is not here: EU VAT rules on goods still apply there)."""
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


_SayingRow = tuple[str | None, str, str]  # jurisdiction, text, the text case folded


def _saying_row(node: GraphNode) -> _SayingRow | None:
    """What :meth:`EvidenceIndex.texts_saying` reads of a node; None for one it never returns
    (not evidence, a concept, hidden)."""
    if node.label in NOT_EVIDENCE or node.label == "Concept" or is_hidden(node):
        return None
    props = node.properties
    text = f"{node_title(node)} {props.get('description') or props.get('text') or ''}"
    return jurisdiction_of(node), text, text.lower()


_R = TypeVar("_R")
_WORD = re.compile(r"\w+")
_TitledRow = tuple[GraphNode, str | None, str]  # the node, its jurisdiction, its title's words


def _titled_row(node: GraphNode) -> _TitledRow | None:
    """What :meth:`EvidenceIndex.rules_titled` reads of a node; None for one it never returns
    (not evidence, a concept or a provision, hidden)."""
    if node.label in NOT_EVIDENCE or node.label in ("Concept", *_PROVISION_LABELS):
        return None
    if is_hidden(node):
        return None
    return node, jurisdiction_of(node), _phrase_words(node_title(node))


def _rows_remembered(
    rows: dict[str, _R],
    before: dict[str, GraphNode],
    known: dict[str, GraphNode],
    row_of: Callable[[GraphNode], _R | None],
) -> dict[str, _R] | None:
    """``rows`` (one per node of ``before`` that has one, in its order) updated for the nodes
    ``known`` anew; None when a node already known gains a row (it would land at the end here
    but keeps its place among the nodes: the caller rebuilds)."""
    updated = dict(rows)
    changed = False
    for node_id, node in known.items():
        row = row_of(node)
        if row is None:
            changed |= updated.pop(node_id, None) is not None
        elif node_id in before and node_id not in rows:
            return None
        else:
            changed |= updated.get(node_id) != row
            updated[node_id] = row
    return updated if changed else rows  # unchanged: the same version (what is built on it)


def validity(props: dict[str, object]) -> str | None:
    """The period a value or provision is in force, in words, or ``None`` when undated."""
    start, end = props.get("valid_from"), props.get("valid_to")
    if start and end:
        return f"in force {start} to {end}"
    if start:
        return f"in force from {start}"
    if end:
        return f"in force until {end} (start not stated by the source)"
    return None


def provenance(props: dict[str, object]) -> str | None:
    """Where a value came from and how current that source is, or ``None``."""
    source, checked = props.get("source"), props.get("source_checked_on")
    if source and checked:
        return f"source {source}, checked {checked}"
    return f"source {source}" if source else None


_PROVISION_LABELS = ("Article", "Paragraph", "Recital", "Annex", "Section", "Chapter")
#: A whole article's id ("EU:REG_2016_679:ART_83"), not one of its paragraphs' nodes.
_WHOLE_ARTICLE = re.compile(r":ART_[^_:]+$")
_OBLIGATION_VERBS = frozenset(
    "file pay make obtain register notify keep submit report issue".split()
)


def _phrase_words(text: str) -> str:
    """``text`` lower case, words only ("self-assessment" is "self assessment")."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _conflict_note(conflict: GraphNode) -> str:
    props = conflict.properties
    period = validity(props) or "for some period"
    return f"sources disagree, {period.removeprefix('in force ')}: {props.get('description', '')}"


def describe(node: GraphNode, conflicts: Sequence[GraphNode] = ()) -> str:
    """One line of evidence text: title, value, body, citation, the period it is in force, its
    source and how current it is, and the conflicts that dispute it."""
    props = node.properties
    if is_quarantined(node):
        # Captured in a chat and unreviewed (ADR 0020): none of its text travels, not even its
        # pref_label, which may be another conversation's phrasing of the same key. Its id's
        # kind is this conversation's own (aliases never resolve to a quarantined concept).
        kind = node.id.rsplit(":", 1)[-1].replace("_", " ").lower()
        return f"{kind} [provisional: captured in a conversation, not yet reviewed]"
    if node.properties.get("status") == MERGED_STATUS:
        # A redirect (ADR 0034): its own text may be a capture's phrasing; it names its target.
        kind = node.id.rsplit(":", 1)[-1].replace("_", " ").lower()
        return f"{kind} [merged into {node.properties.get('merged_into', '?')}]"
    parts = [node_title(node)]
    if props.get("value") is not None:
        parts.append(f"{amount(props['value'])} {props.get('unit', '')}".strip())
    body = props.get("description") or props.get("definition") or props.get("text")
    if body and body != parts[0]:
        parts.append(str(body))
    if props.get("citation"):
        parts.append(f"({props['citation']})")
    parts += [note for note in (validity(props), provenance(props)) if note]
    if props.get("verified") is False:
        parts.append("[unverified]")
    parts += [_conflict_note(conflict) for conflict in conflicts]
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
    def __init__(
        self,
        reader: GraphReader,
        *,
        embedder: Embedder | None = None,
        vectors: VectorStore | None = None,
        index_cache: IndexCache | None = None,
    ) -> None:
        """``embedder`` and ``vectors`` (the provisions' vectors by content hash) add the
        semantic channel (ADR "sentence embeddings"); without them retrieval is lexical.
        ``index_cache`` keeps each build on disk by what it was built from: a start on an
        unchanged graph loads it instead of building (ADR 0045)."""
        self._reader = reader
        self._embedder = embedder
        self._vectors = vectors
        self._index_cache = index_cache
        self._nodes: dict[str, GraphNode] = {}
        self._names: dict[str, list[GraphNode]] = {}
        self._retriever = Retriever(())
        self._disputes: dict[str, list[GraphNode]] = {}  # claim id -> SourceConflicts
        self._timelines: dict[str, list[str]] = {}  # node id -> its Timeline ids
        # The REQUIRES and HAS_TIMELINE edges, for the what-if's eligibility (ADR 0071)
        self._rule_edges: tuple[GraphEdge, ...] = ()
        self._regimes_citing: dict[str, list[str]] = {}  # act id -> the regimes citing it
        self._using_form: dict[str, list[str]] = {}  # form id -> the obligations using it
        self._changes: dict[str, list[GraphNode]] = {}  # node id -> its ChangeEvents (ADR 0035)
        # texts_saying's rows, per version of _nodes (a new dict at every change): built at
        # the first call after a rebuild, kept up to date by remember.
        self._saying: tuple[dict[str, GraphNode], dict[str, _SayingRow]] | None = None
        # texts_saying's postings, per version of those rows (rows, rows in order, postings)
        self._saying_index: (
            tuple[dict[str, _SayingRow], list[_SayingRow], dict[str, list[int]]] | None
        ) = None
        # rules_titled's rows, the same way (its per-node title words cost more than its search)
        self._titled: tuple[dict[str, GraphNode], dict[str, _TitledRow]] | None = None
        self._articles: tuple[dict[str, GraphNode], dict[str, list[GraphNode]]] | None = None
        # form_jurisdictions' (code words, jurisdiction) pairs, per version of the nodes
        self._forms: tuple[dict[str, GraphNode], list[tuple[str, str]]] | None = None
        self._refresh_lock = asyncio.Lock()
        # Nodes remembered while a rebuild reads its snapshot and builds: newer than what the
        # snapshot holds, so kept over it when the rebuild lands.
        self._remembered: dict[str, GraphNode] = {}
        self._pending: asyncio.Task[None] | None = None
        self._lifetime = Lifetime("the evidence index")
        # A fresh number at every change (next() is atomic: _build runs in a thread).
        self._generations = itertools.count(1)
        self._generation = 0

    def __len__(self) -> int:
        return len(self._nodes)

    def semantic_status(self) -> dict[str, object]:
        """What ``/health`` says of the semantic channel: the model, and how many provisions
        have a vector (``missing``: embedded by ``regintel embed`` or the next ingest; until
        then they are found lexically only)."""
        dense = self._retriever.dense
        if dense is None:
            return {"enabled": False, "model": self._embedder.model if self._embedder else None}
        return {
            "enabled": True,
            "model": dense.embedder.model,
            "dimension": dense.embedder.dimension,
            "vectors": dense.present,
            "missing": dense.missing,
        }

    async def refresh(self) -> None:
        """Rebuild from a graph snapshot. Concurrent calls coalesce on one lock. Raises
        :class:`errors.AdapterClosed` after :meth:`aclose` (the graph is about to close)."""
        self._lifetime.check()
        async with self._refresh_lock:
            self._remembered = {}
            snapshot = await self._reader.snapshot(limit=MAX_NODES)
            # Building the index is CPU work (~0.5 s for two acts): off the event loop.
            await asyncio.to_thread(self._build, snapshot.nodes, snapshot.edges)
            # What was remembered meanwhile is newer than the snapshot (a capture written
            # while it was read): the rebuild must not forget it.
            self._nodes = {**self._nodes, **self._remembered}
            self._generation = next(self._generations)

    @property
    def generation(self) -> int:
        """Changes whenever what a search may return changes (a rebuild, a remembered node):
        results kept under an older generation are stale (:mod:`engine.evidence_cache`)."""
        return self._generation

    def schedule_refresh(self) -> None:
        """Refresh in the background (after graph writes); failures are logged, not raised."""
        if self._lifetime.closed:
            return  # shutting down: the graph is about to close
        if self._pending is None or self._pending.done():
            self._pending = asyncio.get_running_loop().create_task(self._refresh_quietly())

    async def aclose(self) -> None:
        """Stop a background rebuild and refuse new ones (at shutdown, before the graph closes
        under them): :meth:`refresh` raises :class:`errors.AdapterClosed`, and
        :meth:`schedule_refresh` does nothing (the write service's last notifications may
        still ask for one). What the index holds can still be read."""
        self._lifetime.close()
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
        # Quarantined captures (ADR 0020) never shape evidence: not as documents, not as the
        # alt labels of a reviewed concept, not as links between reviewed nodes.
        # A merged concept (a hidden redirect, ADR 0034) is no evidence either.
        hidden = {i for i, node in by_id.items() if is_hidden(node)}
        retriever = build_retriever(
            (node for i, node in by_id.items() if i not in hidden),
            (e for e in edges if e.source not in hidden and e.target not in hidden),
            embedder=self._embedder,
            vectors=self._vectors,
            cache=self._index_cache,
            previous=self._retriever if len(self._retriever) else None,
        )
        disputes: dict[str, list[GraphNode]] = {}
        timelines: dict[str, list[str]] = {}
        regimes_citing: dict[str, list[str]] = {}
        using_form: dict[str, list[str]] = {}
        changes: dict[str, list[GraphNode]] = {}
        rule_edges: list[GraphEdge] = []
        for edge in edges:
            if edge.type in ("REQUIRES", "HAS_TIMELINE"):
                rule_edges.append(edge)
            if edge.type == "USES_FORM":
                using_form.setdefault(edge.target, []).append(edge.source)
            source = by_id.get(edge.source)
            if edge.type == "CITES" and source is not None and source.label == "Regime":
                regimes_citing.setdefault(edge.target, []).append(edge.source)
            if edge.type == "DISPUTES" and edge.source in by_id:
                disputes.setdefault(edge.target, []).append(by_id[edge.source])
            elif edge.type == "HAS_TIMELINE":
                timelines.setdefault(edge.source, []).append(edge.target)
            elif edge.type == "CHANGE_OF" and edge.source in by_id:
                changes.setdefault(edge.target, []).append(by_id[edge.source])
        self._nodes, self._names, self._retriever = by_id, names, retriever
        self._disputes, self._timelines, self._changes = disputes, timelines, changes
        self._regimes_citing, self._using_form = regimes_citing, using_form
        self._rule_edges = tuple(rule_edges)
        self._generation = next(self._generations)
        log.debug("evidence_index_built", nodes=len(by_id), searchable=len(retriever))

    def search(
        self,
        query: str,
        k: int,
        jurisdictions: Sequence[str] = (),
        focus: Sequence[str] = (),
        as_at: tuple[str, str] | None = None,
        channels_used: frozenset[str] | None = None,
    ) -> Evidence:
        """The top ``k`` provisions and rule nodes for the question, and the gate's verdict.

        ``jurisdictions`` the question names restrict the evidence to them and to EU law
        (which applies in every member state, and under the Windsor Framework to goods in
        Northern Ireland) — unless all of them are outside the Union (:data:`OUTSIDE_EU`: a
        question about the UK alone is not answered from the VAT Directive); none named: no
        restriction. ``focus`` are
        concept ids the question names; nodes near them rank higher. ``as_at`` (first and last
        ISO day) keeps what was in force then. ``channels_used`` is for evaluation only
        (``regintel eval retrieval --modes``): both channels by default.
        """
        where = list(jurisdictions)
        if any(j not in OUTSIDE_EU for j in jurisdictions):
            where.append("EU")
        result = self._retriever.search(
            query, k, jurisdictions=where, focus=focus, as_at=as_at, channels_used=channels_used
        )
        hits = [
            EvidenceHit(
                node=hit.node,
                score=hit.score,
                text=evidence_text(
                    hit.node,
                    self._passages(hit),
                    self.conflicts_of(hit.node.id, as_at),
                    self._act_of(hit.node),
                ),
            )
            for hit in self._recorded_change_first(result.hits)
        ]
        return Evidence(hits=hits, verdict=result.verdict)

    def _recorded_change_first(self, hits: Sequence[RetrievalHit]) -> list[RetrievalHit]:
        """Claims that one conflict disputes keep their places among the hits, but the claim
        with the shorter period goes first: it records a change the other source's longer
        claim runs straight across (ADR 0031). Both stay, with the conflict in their text."""
        ordered = list(hits)
        groups: dict[str, list[int]] = {}
        for index, hit in enumerate(ordered):
            for conflict in self._disputes.get(hit.node.id, ()):
                groups.setdefault(conflict.id, []).append(index)
        for places in groups.values():
            chosen = sorted((ordered[i] for i in places), key=_period_length)
            for place, hit in zip(places, chosen, strict=True):
                ordered[place] = hit
        return ordered

    def _passages(self, hit: RetrievalHit) -> list[str]:
        """The paragraphs the retriever matched, in the act's order; none for a provision the
        question named ("Article 5"): it is quoted from its beginning."""
        if hit.why is HitReason.EXPLICIT:
            return []
        found = (self._nodes.get(i) for i in hit.passages)
        nodes = [node for node in found if node is not None and node.properties.get("text")]
        nodes.sort(key=lambda node: int(node.properties.get("position", 0)))
        return [str(node.properties["text"]) for node in nodes]

    def conflicts_of(self, node_id: str, as_at: tuple[str, str] | None = None) -> list[GraphNode]:
        """The ``SourceConflict`` s that dispute a node's value (in ``as_at``, if given: a
        dispute about another period is not news for this one)."""
        found = self._disputes.get(node_id, ())
        if as_at is None:
            return list(found)
        first, last = as_at
        return [
            c
            for c in found
            if str(c.properties.get("valid_from") or "") <= last
            and str(c.properties.get("valid_to") or "9999-12-31") >= first
        ]

    def _act_of(self, node: GraphNode) -> GraphNode | None:
        instrument = node.properties.get("instrument")
        return self._nodes.get(str(instrument)) if instrument and instrument != node.id else None

    def changes_since(self, ids: Sequence[str], since: str) -> list[GraphNode]:
        """The applied ``ChangeEvent`` s of the nodes ``ids`` recorded after ``since`` (a graph
        timestamp), oldest first (ADR 0035); one held for review changed nothing, so is not
        news for a conversation."""
        found = [
            event
            for node_id in dict.fromkeys(ids)
            for event in self._changes.get(node_id, ())
            if event.properties.get("status") == "applied"
            and str(event.properties.get("created_at") or "") > since
        ]
        return sorted(found, key=lambda e: (str(e.properties.get("created_at")), e.id))

    def timelines_of(self, ids: Sequence[str], acts: Sequence[str] = ()) -> list[GraphNode]:
        """The ``Timeline`` nodes among ``ids`` and those they ``HAS_TIMELINE``, in order; a
        provision of one of ``acts`` (the acts the question names) is lent the act's
        timelines and those of the regimes that cite the act (``EU:REG_2024_1689:ART_53`` those
        of ``EU:REG_2024_1689`` and of the AI Act regime: when the act's parts apply is stated
        once, for the act). Another act's provision lends nothing: an AI Act article found for
        a VAT question must not bring the AI Act's dates. A form lends the timelines of the
        obligations that use it (Form 11: the Form 11 return's 31 October)."""
        found: dict[str, GraphNode] = {}
        for node_id in ids:
            act = node_id.rsplit(":", 1)[0] if node_id.count(":") >= 2 else ""
            owners = [node_id, *self._using_form.get(node_id, ())]
            if act in acts:
                owners += [act, *self._regimes_citing.get(act, ())]
            linked = [t for owner in owners for t in self._timelines.get(owner, ())]
            for candidate in (node_id, *linked):
                node = self._nodes.get(candidate)
                if node is not None and node.label == "Timeline":
                    found.setdefault(candidate, node)
        return list(found.values())

    def rules_titled(self, words: str, jurisdictions: Sequence[str] = ()) -> list[GraphNode]:
        """The rule nodes of ``jurisdictions`` (and EU law; all when none is given) whose title
        says ``words`` as a phrase ("CAT Group B threshold" for "group b"), in graph order."""
        wanted = re.compile(rf"\b{re.escape(_phrase_words(words))}\b")
        where = set(jurisdictions)
        if where and any(j not in OUTSIDE_EU for j in where):
            where.add("EU")
        return [
            node
            for node, jurisdiction, title in self._titled_rows().values()
            if (not where or jurisdiction in where) and wanted.search(title)
        ]

    def _titled_rows(self) -> dict[str, _TitledRow]:
        """The rows :meth:`rules_titled` reads, by node id, for the nodes as they are now."""
        nodes = self._nodes
        if self._titled is None or self._titled[0] is not nodes:
            rows = {i: row for i, node in nodes.items() if (row := _titled_row(node)) is not None}
            self._titled = (nodes, rows)
        return self._titled[1]

    def obligations_named(self, text: str, jurisdictions: Sequence[str] = ()) -> list[str]:
        """Ids of the obligations of ``jurisdictions`` (all when none is given) that ``text``
        names by what they are about: "File an income tax return (Form 11)" is named by "the
        Irish income tax return", "Pay preliminary tax" by "preliminary tax" (the words after
        the leading verb and article, two at least, as a phrase). A question asking when a return
        is due may word it so that a search ranks other income tax rules above the obligation;
        its dates are the obligation's whatever the ranking (issue 23)."""
        said = f" {_phrase_words(text)} "
        found = []
        for node in self._nodes.values():
            if node.label != "Obligation" or is_hidden(node):
                continue
            if jurisdictions and jurisdiction_of(node) not in jurisdictions:
                continue
            words = _phrase_words(re.sub(r"\([^)]*\)", " ", node_title(node))).split()
            if words and words[0] in _OBLIGATION_VERBS:
                words = words[1:]
            if words and words[0] in ("a", "an", "the"):
                words = words[1:]
            if len(words) >= 2 and f" {' '.join(words)} " in said:
                found.append(node.id)
        return found

    def form_jurisdictions(self, text: str) -> list[str]:
        """The jurisdictions of the forms ``text`` names by their code ("CT1", "Form 12",
        "SA100", a whole word, any case), sorted: a return's form belongs to one country, so
        "CT1 deadline?" asks about Ireland though it names no country (issue 23)."""
        nodes = self._nodes
        if self._forms is None or self._forms[0] is not nodes:
            # built once per version of the nodes, not on every timeline question's turn
            forms = []
            for node in nodes.values():
                if node.label != "Form" or is_hidden(node):
                    continue
                code = _phrase_words(str(node.properties.get("code") or ""))
                where = jurisdiction_of(node)
                if code and where:
                    forms.append((f" {code} ", where))
            self._forms = (nodes, forms)
        said = f" {_phrase_words(text)} "
        return sorted({where for code, where in self._forms[1] if code in said})

    def articles_of(self, act_id: str) -> list[GraphNode]:
        """The articles of the act ``act_id`` (whole articles, not their paragraphs' nodes), in
        the act's order: a fine's ceilings are in the act's penalty articles however a search
        ranks them (issue 23, ``engine.answer_penalties``)."""
        nodes = self._nodes
        if self._articles is None or self._articles[0] is not nodes:
            by_act: dict[str, list[GraphNode]] = {}
            for node in nodes.values():
                if node.label == "Article" and _WHOLE_ARTICLE.search(node.id):
                    by_act.setdefault(str(node.properties.get("instrument") or ""), []).append(node)
            for found in by_act.values():
                found.sort(key=lambda n: int(n.properties.get("position") or 0))
            self._articles = (nodes, by_act)
        return list(self._articles[1].get(act_id, ()))

    def period_timelines(self, jurisdictions: Sequence[str]) -> list[GraphNode]:
        """The ``PERIOD`` timelines of ``jurisdictions`` (the Irish two-month VAT period): a
        return's deadline counts from its period's end whether or not a search found the
        period's rule."""
        return [
            node
            for node in self._nodes.values()
            if node.label == "Timeline"
            and str(node.properties.get("window_kind") or "").upper() == "PERIOD"
            and jurisdiction_of(node) in jurisdictions
            and not is_hidden(node)
        ]

    def texts_saying(self, words: str, jurisdictions: Sequence[str] = ()) -> list[str]:
        """The texts (name and description) of the rule nodes and provisions of
        ``jurisdictions`` (and EU law, as :meth:`search` adds it; all of them when none is
        given) that contain every word of ``words`` as a word, case folded: whether the graph says
        "group b" at all, however a search would rank it."""
        folded_words = words.lower().split()
        wanted = [re.compile(rf"\b{re.escape(word)}\b") for word in folded_words]
        where = set(jurisdictions)
        if where and any(j not in OUTSIDE_EU for j in where):
            where.add("EU")
        rows = self._saying_rows()
        if folded_words and all(_WORD.fullmatch(word) for word in folded_words):
            # Words of word characters only: "\bword\b" in a text is the word among its
            # runs of word characters, which the postings hold (issue 29: no scan per call).
            ordered, postings = self._saying_postings(rows)
            lists = sorted((postings.get(word, ()) for word in folded_words), key=len)
            common = set(lists[0]).intersection(*lists[1:])
            return [ordered[at][1] for at in sorted(common) if not where or ordered[at][0] in where]
        found = []
        for jurisdiction, text, folded in rows.values():
            if where and jurisdiction not in where:
                continue
            # The substring test first (cheap, and false for nearly every node), then the
            # word boundaries.
            if all(word in folded for word in folded_words) and all(
                word.search(folded) for word in wanted
            ):
                found.append(text)
        return found

    def _saying_postings(
        self, rows: dict[str, _SayingRow]
    ) -> tuple[list[_SayingRow], dict[str, list[int]]]:
        """``rows`` in order, and for each run of word characters in their folded texts the
        positions of the rows holding it (ascending); built once per version of the rows (a
        remembered node that changes no row keeps the version)."""
        cached = self._saying_index
        if cached is not None and cached[0] is rows:
            return cached[1], cached[2]
        ordered = list(rows.values())
        postings: dict[str, list[int]] = {}
        for at, (_, _, folded) in enumerate(ordered):
            for word in set(_WORD.findall(folded)):
                postings.setdefault(word, []).append(at)
        self._saying_index = (rows, ordered, postings)
        return ordered, postings

    def _saying_rows(self) -> dict[str, _SayingRow]:
        """The rows :meth:`texts_saying` reads, by node id, for the nodes as they are now."""
        nodes = self._nodes
        if self._saying is None or self._saying[0] is not nodes:
            rows = {i: row for i, node in nodes.items() if (row := _saying_row(node)) is not None}
            self._saying = (nodes, rows)
        return self._saying[1]

    def named_acts(self, text: str) -> list[str]:
        """Ids of the acts the graph holds that ``text`` names ("the AI Act", "2016/679")."""
        return self._retriever.named_acts(text)

    def act_start(self, text: str) -> date | None:
        """The day from which the act ``text`` names is in force, if the graph dates it."""
        for act_id in self._retriever.named_acts(text):
            node = self._nodes.get(act_id)
            start = node.properties.get("valid_from") if node is not None else None
            if start:
                try:
                    return date.fromisoformat(str(start)[:10])
                except ValueError:
                    continue
        return None

    async def ensure_known(self, ids: Sequence[str]) -> None:
        """Read from the graph the nodes of ``ids`` this index does not know yet (one read, only
        when some are missing): a concept another worker or process just wrote is described at
        once, before the event bus or the next rebuild brings it."""
        if missing := [i for i in ids if i not in self._nodes]:
            self.remember(await self._reader.get_nodes(missing))

    def remember(self, nodes: Sequence[GraphNode]) -> None:
        """Know these nodes for descriptions now, before the next rebuild (not searchable)."""
        if not nodes:  # a write of edges only (a mention counted): nothing to know
            return
        known = {node.id: node for node in nodes}
        before = self._nodes
        self._nodes = {**before, **known}
        # keep texts_saying's and rules_titled's rows current, not rebuilt (in node order)
        if self._saying is not None and self._saying[0] is before:
            saying = _rows_remembered(self._saying[1], before, known, _saying_row)
            self._saying = None if saying is None else (self._nodes, saying)
        if self._titled is not None and self._titled[0] is before:
            titled = _rows_remembered(self._titled[1], before, known, _titled_row)
            self._titled = None if titled is None else (self._nodes, titled)
        self._remembered = {**self._remembered, **known}
        self._generation = next(self._generations)

    def definitions(self) -> list[GraphNode]:
        """The provisions headed "Definitions" (AI Act Article 3, GDPR Article 4, ...), whose
        text defines terms word for word; in id order."""
        return sorted(
            (
                n
                for n in self._nodes.values()
                if str(n.properties.get("title", "")).strip().lower() == "definitions"
                and n.properties.get("text")
            ),
            key=lambda n: n.id,
        )

    def get(self, node_id: str) -> GraphNode | None:
        return self._nodes.get(node_id)

    async def snapshot(
        self, labels: Sequence[str] | None = None, limit: int = MAX_NODES
    ) -> GraphSnapshot:
        """In memory, no graph read: the visible nodes of ``labels`` this index holds and the
        ``REQUIRES`` and ``HAS_TIMELINE`` edges among them (no other edge type) — what
        :func:`scenarios.load_rules` reads, so the chat's what-if assesses eligibility before
        the first token (ADR 0071 addendum)."""
        wanted = None if labels is None else frozenset(labels)
        nodes = [
            node
            for node in self._nodes.values()
            if (wanted is None or node.label in wanted) and not is_hidden(node)
        ][:limit]
        ids = {node.id for node in nodes}
        edges = [e for e in self._rule_edges if e.source in ids and e.target in ids]
        return GraphSnapshot(nodes=nodes, edges=edges)

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


def _period_length(hit: RetrievalHit) -> int:
    """Days a hit's value is in force (unbounded ends count as very long)."""
    props = hit.node.properties
    try:
        start = date.fromisoformat(str(props.get("valid_from") or "0001-01-01"))
        end = date.fromisoformat(str(props.get("valid_to") or "9999-12-31"))
    except ValueError:
        return 10**7
    return (end - start).days


def evidence_text(
    node: GraphNode,
    passages: Sequence[str] = (),
    conflicts: Sequence[GraphNode] = (),
    act: GraphNode | None = None,
) -> str:
    """What the prompt quotes for ``node``, on one line: for a provision its citation, heading
    (with the period its act is in force and the act's source) and best-matching paragraphs
    (else its text), bounded; for a rule node its description."""
    props = node.properties
    if not props.get("text") or is_quarantined(node):
        return describe(node, conflicts)
    head = " — ".join(str(props[k]) for k in ("name", "title") if props.get(k))
    dated = (
        props
        if props.get("valid_from") or props.get("valid_to")
        else (act.properties if act is not None else {})
    )
    notes = [n for n in (validity(dated), provenance(dated)) if n]
    if notes and head:
        head = f"{head} ({'; '.join(notes)})"
    body = " ".join(passages) if passages else str(props["text"])
    return _bounded(f"{head}: {body}" if head else body)


def _bounded(text: str, limit: int = MAX_EVIDENCE_CHARS) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return (cut[: end + 1] if end > limit // 2 else cut.rstrip()) + " …"
