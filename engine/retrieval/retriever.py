"""Evidence retrieval over provisions and rule nodes: explicit references, BM25, graph, fusion.

One search, in this order:

1. **Explicit references** ("Article 17 GDPR", "Annex III", "recital 47") resolve straight to
   their nodes and come first (``why=explicit``); a paragraph reference brings its article next.
2. **Lexical ranking** over one BM25 index of tokens and one of phrases (``rows.py``,
   ``lexical.py``, tokens from ``tokenise.py``): *units* (articles, annexes, recitals, rule
   nodes, acts, confirmed concepts) by their own text and headings; *paragraphs*, each voting
   for its article (an article's best paragraph is often a sharper match than the long article);
   recitals at a lower weight, and each recital's match flowing to the articles it explains
   (``links.py``), so that lay wording that only the recitals use reaches the operative
   provision. A question that names acts held in the graph searches those acts' provisions
   first, with a lighter channel over every act beside them.
3. **Graph expansion**: the articles cited by the top fused units (``CITES``), and the rule nodes
   a matched concept ``ALIGNS_WITH`` (``why=expansion``); nodes near the conversation's focus
   concepts form one more channel.
4. **Reciprocal-rank fusion** (``fusion.py``), ties by id; filters by jurisdiction, act and
   date (``as_at``: only what was in force on some day of a window, ADR 0032) apply to every
   channel.
5. **The relevance gate** (``gate.py``) on what the question names and on coverage: the share of
   the question's terms, weighted by IDF, found in the best of the top units.

Article hits carry ``passages``: their best-matching paragraphs, which the prompt can quote
instead of a long article. The index is built once per snapshot (``Retriever(nodes, edges)``);
:meth:`Retriever.upsert` makes new or changed nodes searchable at once through the lexical
overlay, until the owner rebuilds from a fresh snapshot.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from engine.retrieval.acts import ActCatalogue
from engine.retrieval.documents import DocKind, document_of
from engine.retrieval.fusion import Channel, FusedItem, reciprocal_rank_fusion
from engine.retrieval.gate import GateThresholds, RelevanceVerdict, judge
from engine.retrieval.lexical import Scores
from engine.retrieval.links import link_recitals
from engine.retrieval.places import find_places
from engine.retrieval.references import find_provision_refs, tie_to_acts
from engine.retrieval.rows import RowTable, day_number, index_tokens
from engine.retrieval.structure import GraphStructure
from engine.retrieval.tokenise import tokenise
from graph.models import GraphEdge, GraphNode, GraphSnapshot

__all__ = [
    "HitReason",
    "RetrievalConfig",
    "RetrievalHit",
    "Retriever",
    "SearchResult",
]

_LINKED = frozenset({DocKind.ARTICLE, DocKind.ANNEX, DocKind.RECITAL})
_PROVISIONS = (DocKind.ARTICLE, DocKind.ANNEX, DocKind.RECITAL)
_UNITS = (
    DocKind.ARTICLE,
    DocKind.ANNEX,
    DocKind.RECITAL,
    DocKind.RULE,
    DocKind.INSTRUMENT,
    DocKind.CONCEPT,
)


class HitReason(StrEnum):
    EXPLICIT = "explicit"
    LEXICAL = "lexical"
    EXPANSION = "expansion"


@dataclass(frozen=True, slots=True)
class RetrievalHit:
    """One evidence node: why it was retrieved, its fused score and its best paragraphs."""

    node: GraphNode
    why: HitReason
    score: float
    channels: tuple[str, ...] = ()
    passages: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Ranked hits and the relevance gate's verdict (hits are returned even when refused)."""

    hits: tuple[RetrievalHit, ...]
    verdict: RelevanceVerdict

    @property
    def ids(self) -> list[str]:
        return [hit.node.id for hit in self.hits]


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    """Tunable parameters (values measured in ADR 0012)."""

    rrf_k: float = 5.0
    depth: int = 50  # ids per lexical channel
    paragraph_mix: float = 0.0
    recital_factor: float = 0.6
    citation_weight: float = 0.3
    focus_weight: float = 1.0
    expand_from: int = 3  # top fused units whose citations are added
    passages: int = 2
    coverage_depth: int = 3  # top units the gate's coverage looks at
    phrase_weight: float = 0.35  # adjacent token pairs, added to the token score (rows.py)
    recitals_per_unit: int = 3  # recitals linked to each article and annex (links.py)
    recital_flow: float = 0.6  # share of a linked recital's score its article gains
    unnamed_weight: float = 0.5  # channel over every act when the question names some
    gate: GateThresholds = field(default_factory=GateThresholds)


class Retriever:
    """Search over one graph snapshot (see the module docstring)."""

    def __init__(
        self,
        nodes: Iterable[GraphNode],
        edges: Iterable[GraphEdge] = (),
        config: RetrievalConfig | None = None,
    ) -> None:
        self.config = config or RetrievalConfig()
        self._nodes = {node.id: node for node in nodes}
        self._edges = list(edges)
        docs = {i: d for i, n in self._nodes.items() if (d := document_of(n)) is not None}
        self._docs = docs
        self._shape = GraphStructure.build(docs, self._nodes, self._edges)
        linkable = {i: index_tokens(d, docs, self._shape) for i, d in docs.items()
                    if d.kind in _LINKED and not d.provisional}  # fmt: skip
        self._rows = RowTable.build(
            docs, self._shape, phrase_weight=self.config.phrase_weight, known=linkable
        )
        if self.config.recitals_per_unit > 0 and self.config.recital_flow:
            self._rows.link(
                link_recitals(docs, linkable, self._shape, self.config.recitals_per_unit)
            )
        self._catalogue = ActCatalogue(
            self._nodes.values(), (d.instrument_id for d in docs.values() if d.kind is not
                                   DocKind.INSTRUMENT and d.instrument_id)
        )  # fmt: skip

    @classmethod
    def from_snapshot(
        cls, snapshot: GraphSnapshot, config: RetrievalConfig | None = None
    ) -> Retriever:
        return cls(snapshot.nodes, snapshot.edges, config)

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, node_id: str) -> GraphNode | None:
        return self._nodes.get(node_id)

    def named_acts(self, text: str) -> list[str]:
        """Ids of the acts held in the graph that ``text`` names ("the AI Act", "2016/679")."""
        return [a.instrument_id for a in self._catalogue.mentions(text) if a.instrument_id]

    def upsert(self, nodes: Sequence[GraphNode]) -> None:
        """Add or replace nodes now (searchable at once; their edges wait for a rebuild)."""
        for node in nodes:
            self._nodes[node.id] = node
            doc = document_of(node)
            if doc is None:
                continue
            self._docs[node.id] = doc
            self._rows.upsert(doc, self._shape)

    def search(
        self,
        question: str,
        k: int = 10,
        *,
        jurisdictions: Sequence[str] = (),
        instruments: Sequence[str] = (),
        focus: Sequence[str] = (),
        as_at: tuple[str, str] | None = None,
    ) -> SearchResult:
        """Ranked evidence for ``question`` and the gate's verdict (see the module docstring).

        ``jurisdictions`` and ``instruments`` are filters (pass every jurisdiction whose law
        applies, e.g. ``["IE", "EU"]``); ``focus`` names concept ids the conversation is about;
        ``as_at`` (first and last ISO day of a window) keeps what was in force in it.
        """
        config = self.config
        window = (day_number(as_at[0]), day_number(as_at[1])) if as_at is not None else None
        acts = self._catalogue.mentions(question)
        refs = tie_to_acts(find_provision_refs(question), acts, question)
        named = {a.instrument_id for a in acts if a.instrument_id in self._rows.instruments}
        explicit = self._rows.resolve(refs, set(instruments))
        if window is not None:
            explicit = [(i, n) for i, n in explicit if self._in_force(i, window)]
        # Act names say where to look, not what to find: the named acts filter the provisions.
        names = {t for act in acts for t in tokenise(act.name)}
        tokens = [t for t in tokenise(question) if t not in names]
        # Rule nodes join a named act's provisions only when they hang off that act in the graph.
        near_acts = self._shape.within_two_hops(self._catalogue.nodes_of(named)) if named else None
        scores = self._rows.scores(
            tokens, set(jurisdictions), set(instruments) or named,
            rules_pass=None if instruments else near_acts, as_at=window,
        )  # fmt: skip
        units = self._unit_scores(scores)
        channels = [Channel("lexical", self._rows.top(units, _UNITS, config.depth))]
        if len(named) > 1 and not instruments:
            # A question about several acts wants each act's best provisions: one channel per act
            # (otherwise the act whose vocabulary the question shares most takes every rank).
            channels = [
                Channel("lexical", self._rows.top(units, _UNITS, config.depth, act=act))
                for act in sorted(named)
            ]
        if named and not instruments and config.unnamed_weight:
            # A named act says where to look first, not where the answer must be: "can an AI
            # provider ..., given that the GDPR restricts ..." is answered by the AI Act too.
            # This channel holds the other acts' provisions, not every rule node.
            everywhere = self._rows.scores(
                tokens, set(jurisdictions), set(), rules_pass=None, as_at=window
            )
            ranked = self._rows.top(self._unit_scores(everywhere), _PROVISIONS, config.depth)
            channels.append(Channel("lexical", ranked, config.unnamed_weight))
        if focus:
            near = self._shape.within_two_hops(focus)
            ranked = self._rows.top(units, _UNITS, config.depth, only=near)
            channels.append(Channel("focus", ranked, config.focus_weight))
        first = reciprocal_rank_fusion(channels, config.rrf_k)
        expansion = self._expansion([item.id for item in first[: config.expand_from]])
        if window is not None:
            expansion = [i for i in expansion if self._in_force(i, window)]
        fused = first
        if expansion:
            channels.append(Channel("expansion", expansion, config.citation_weight))
            fused = reciprocal_rank_fusion(channels, config.rrf_k)
        lexical = [item.id for item in fused if "lexical" in item.channels]
        places = find_places(question)
        where = names | {t for place in places for t in tokenise(place.text)}
        confidence = self._rows.coverage(tokens, where, lexical[: config.coverage_depth])
        verdict = judge(
            acts=acts,
            places=places,
            explicit=any(named_ref for _, named_ref in explicit),
            confidence=confidence,
            thresholds=config.gate,
            evidence_jurisdiction=self._docs[lexical[0]].jurisdiction if lexical else None,
        )
        return SearchResult(tuple(self._hits(explicit, fused, scores, k)), verdict)

    def _in_force(self, node_id: str, window: tuple[int, int]) -> bool:
        row = self._rows.row_of.get(node_id)
        rows = self._rows
        return row is None or bool(
            rows.valid_from[row] <= window[1] and rows.valid_to[row] >= window[0]
        )

    def _unit_scores(self, scores: Scores) -> Scores:
        config = self.config
        return self._rows.unit_scores(
            scores, config.paragraph_mix, config.recital_factor, config.recital_flow
        )

    def _expansion(self, top: Sequence[str]) -> list[str]:
        expanded: list[str] = []
        for unit in top:
            for target in self._shape.cites.get(unit, []) + self._shape.aligned.get(unit, []):
                if target in self._rows and target not in expanded:
                    expanded.append(target)
        return expanded

    def _hits(
        self,
        explicit: Sequence[tuple[str, bool]],
        fused: Sequence[FusedItem],
        scores: Scores,
        k: int,
    ) -> list[RetrievalHit]:
        hits: list[RetrievalHit] = []
        seen: set[str] = set()
        # Explicit hits rank first whatever the fusion says; their score stays above it.
        first_score = (fused[0].score if fused else 0.0) + 1.0
        for node_id, named in explicit:
            if node_id not in seen and node_id in self._nodes:
                seen.add(node_id)
                why = HitReason.EXPLICIT if named else HitReason.EXPANSION
                passages = self._rows.passages(node_id, scores, self.config.passages)
                hits.append(RetrievalHit(self._nodes[node_id], why, first_score, (), passages))
        for item in fused:
            if len(hits) >= k:
                break
            if item.id in seen or item.id not in self._nodes:
                continue
            seen.add(item.id)
            why = HitReason.EXPANSION if item.channels == ("expansion",) else HitReason.LEXICAL
            passages = self._rows.passages(item.id, scores, self.config.passages)
            hits.append(
                RetrievalHit(self._nodes[item.id], why, item.score, item.channels, passages)
            )
        return hits[:k]
