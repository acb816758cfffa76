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
   the question's terms, weighted by IDF, found in the best of the top lexically matched units
   (in the fused order or in the lexical channel's own, whichever covers more). The gate reads
   the fused order without the act prior's channel (ADR 0081): the prior re-ranks only.

Article hits carry ``passages``: their best-matching paragraphs, which the prompt can quote
instead of a long article. The index is built once per snapshot (``Retriever(nodes, edges)``);
:meth:`Retriever.upsert` makes new or changed nodes searchable at once through the lexical
overlay, until the owner rebuilds from a fresh snapshot.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

import numpy as np
import numpy.typing as npt
import structlog

from embeddings import Embedder, VectorStore
from engine.retrieval.acts import ActCatalogue
from engine.retrieval.dense import DenseRows, embedding_text
from engine.retrieval.documents import DocKind, document_of
from engine.retrieval.focus import asked_phrase, asked_terms
from engine.retrieval.fusion import Channel, FusedItem, reciprocal_rank_fusion
from engine.retrieval.gate import GateThresholds, RelevanceVerdict, judge
from engine.retrieval.lexical import Scores
from engine.retrieval.links import link_recitals
from engine.retrieval.places import NATIONAL_LAW_CUE, find_places
from engine.retrieval.references import find_provision_refs, tie_to_acts
from engine.retrieval.rows import RowTable, day_number, index_tokens
from engine.retrieval.structure import GraphStructure
from engine.retrieval.tokenise import tokenise
from errors import RegintelError
from graph.models import GraphEdge, GraphNode, GraphSnapshot

log = structlog.get_logger(__name__)

#: Nodes :meth:`Retriever.absorb` takes in before the owner must build afresh.
MAX_ABSORBED = 64

__all__ = [
    "MAX_ABSORBED",
    "HitReason",
    "RetrievalConfig",
    "RetrievalHit",
    "Retriever",
    "SearchResult",
]

_LINKED = frozenset({DocKind.ARTICLE, DocKind.ANNEX, DocKind.RECITAL})
_NAMED = frozenset({DocKind.RULE, DocKind.CONCEPT, DocKind.INSTRUMENT})  # embedded by name
_PROVISIONS = (DocKind.ARTICLE, DocKind.ANNEX, DocKind.RECITAL)
_UNITS = (
    DocKind.ARTICLE,
    DocKind.ANNEX,
    DocKind.RECITAL,
    DocKind.RULE,
    DocKind.INSTRUMENT,
    DocKind.CONCEPT,
)
_DENSE_UNITS = _UNITS  # the semantic channel ranks every unit the lexical one does (ADR 0058)


class HitReason(StrEnum):
    EXPLICIT = "explicit"
    LEXICAL = "lexical"
    SEMANTIC = "semantic"
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
    # The semantic channel (dense.py) beside the lexical one; its recitals at 0.6, a linked
    # recital's cosine flowing to its article at 0.6, as in the lexical channel. Chosen on the
    # broad dev set with the complete vectors (ADR 0045, third session), with the gate's
    # coverage read in the lexical channel's own order too (``search``); the gate's bars,
    # recalibrated with them, stay (0.25 / 0.55 keep the best refusal minus false refusal).
    # The weight stays 1.0, not the 1.5 the broad set alone preferred: with provisions only,
    # above the lexical channel's weight the dense channel put off-topic provisions above the
    # rule nodes a tax question needs (ADR 0045, fourth pass); with rule nodes embedded too
    # (ADR 0058) 1.5 still ranks a rate node above the dated deadline node of the same tax:
    # tax-adviser dev facts right 71 of 73 at 1.0, 70 at 1.25, 66 at 1.5.
    dense_weight: float = 1.0
    lexical_weight: float = 1.0  # the lexical channel(s)
    dense_recital_factor: float = 0.6  # recitals in the dense channel, as recital_factor
    dense_recital_flow: float = 0.6  # a linked recital's cosine flowing to its article (0: off)
    query_cache: int = 512  # question vectors kept (a repeated question is not re-encoded)
    # Two query-side switches, measured on the dev sets and off (ADR 0058, sixth-pass addendum):
    # the semantic channel ranks with the question's vector moved towards the mean of its
    # ``dense_feedback_depth`` best rows by this weight (Rocchio; the gate still reads the
    # question's own vector), and the lexical channels' weight is scaled by min(1, coverage of
    # their own top units / ``lexical_trust``) (a question in everyday words that the words
    # cover badly leans on the semantic channel). 0 = off.
    dense_feedback: float = 0.0
    dense_feedback_depth: int = 3
    lexical_trust: float = 0.0
    # A row's cosine is the best of its own vector's and its chunks' (the text past the model's
    # 128 tokens, dense.py), each chunk's times this weight; 0: no chunks (none are loaded).
    # Off: on the dev sets 0.85-0.9 gain little (broad R@5 0.626 -> 0.631, old 0.715 -> 0.741;
    # 0.591 at 1.0), held-out 2 does not move (0.600) and the first held-out set loses two plain
    # questions (0.675 -> 0.575); ADR 0058, seventh-pass addendum. Its vectors are not shipped:
    # ``tools/embed_shipped_acts.py --chunks`` computes them.
    dense_chunks: float = 0.0
    # The same chunk-pooled cosines (chunks at full weight) as one more semantic channel of this
    # weight beside the rows' own (0: off): a provision found by its tail gains without
    # displacing what the row vectors found. Off: on dev 0.25-0.75 gain (0.5: broad R@5 0.626 ->
    # 0.652, old 0.722 -> 0.742, lookups unchanged), on both held-out sets R@5 does not move
    # (R@10 +0.05 / +0.04); ADR 0058, seventh-pass addendum.
    dense_chunk_channel: float = 0.0
    # That channel's own RRF constant (0: ``rrf_k``). Eighth pass, with the chunk vectors: weight
    # 1.0 at k 20 is the best on broad dev (R@5 0.626 -> 0.646) and moves held-out R@5
    # 0.675/0.600/0.615 -> 0.700/0.600/0.631 (one question each) for one more false refusal on
    # held-out 3 and 1.4 MB more shipped vectors; not turned on (ADR 0058, eighth pass).
    dense_chunk_rrf_k: float = 0.0
    # The gate's rule 5 (``focus.py``): the top fused units in which some word of what the
    # question asks for must appear (0: off). 5: on the dev sets it refuses 7 of the 10 questions
    # inside an act's field that the act does not settle (3 before), refusing no answerable
    # question; at 3 one more false refusal (ADR 0058, eighth-pass addendum).
    asked_depth: int = 5
    # Rule 5 in meaning too (ADR 0087): when every asked-for word is in the best units, the
    # asked-for phrase itself ("minimum font size", "interest rate") must be near one of them
    # in the semantic channel, its best cosine (a unit or one of its paragraphs) at least this
    # (0: off). A word used in passing ("interest" in a definition) is not the subject settled.
    asked_similarity: float = 0.2
    # An act prior for a question that names no act (0: off): the acts ranked by the mean of
    # their provisions' three best cosines, and the semantic ranking within the best
    # ``act_prior_acts`` of them as one more channel of this weight (a question in everyday
    # words often finds the right act before the right article). On since the ninth pass
    # (ADR 0081), with the gate reading the order without it: at 1.0 over two acts R@5 gains on
    # the old dev set, the broad one and held-out sets 1 and 3 and loses on none, refusals and
    # false refusals unchanged (one act: +0.061 on broad dev but -1 question on held-out 2).
    act_prior: float = 1.0
    act_prior_acts: int = 2
    gate: GateThresholds = field(default_factory=GateThresholds)


class Retriever:
    """Search over one graph snapshot (see the module docstring)."""

    def __init__(
        self,
        nodes: Iterable[GraphNode],
        edges: Iterable[GraphEdge] = (),
        config: RetrievalConfig | None = None,
        *,
        embedder: Embedder | None = None,
        vectors: VectorStore | None = None,
    ) -> None:
        self.config = config or RetrievalConfig()
        self._nodes = {node.id: node for node in nodes}
        self._edges = list(edges)
        docs = {i: d for i, n in self._nodes.items() if (d := document_of(n)) is not None}
        self._docs = docs
        self._shape = GraphStructure.build(docs, self._nodes, self._edges)
        linkable = {
            i: index_tokens(d, docs, self._shape)
            for i, d in docs.items()
            if d.kind in _LINKED and not d.provisional
        }
        self._rows = RowTable.build(
            docs, self._shape, phrase_weight=self.config.phrase_weight, known=linkable
        )
        if self.config.recitals_per_unit > 0 and self.config.recital_flow:
            self._rows.link(
                link_recitals(docs, linkable, self._shape, self.config.recitals_per_unit)
            )
        self._dense: DenseRows | None = None
        if embedder is not None and embedder.dimension and vectors is not None:
            wanted = self.config.dense_chunks > 0 or self.config.dense_chunk_channel > 0
            self._dense = DenseRows.build(self._rows.ids, docs, embedder, vectors, chunks=wanted)
        self._query_vectors: dict[str, npt.NDArray[np.float32] | None] = {}
        # Each row's act as a small integer (-1: not a provision), for the act prior.
        act_numbers: dict[str, int] = {}
        self._act_codes = np.array(
            [
                act_numbers.setdefault(d.instrument_id, len(act_numbers))
                if (d := docs.get(i)) is not None and d.kind in _PROVISIONS and d.instrument_id
                else -1
                for i in self._rows.ids
            ],
            dtype=np.int32,
        )
        self._absorbed = 0  # nodes taken in by :meth:`absorb` since this build
        self._catalogue = ActCatalogue(
            self._nodes.values(),
            (
                d.instrument_id
                for d in docs.values()
                if d.kind is not DocKind.INSTRUMENT and d.instrument_id
            ),
        )

    def absorb(self, nodes: Sequence[GraphNode], edges: Sequence[GraphEdge]) -> Retriever | None:
        """This index with a graph taken in that differs from the one indexed only by a few
        concepts added or changed (a confirmation, a capture) and labels added, with their
        ``HAS_ALT_LABEL`` and ``ALIGNS_WITH`` edges: a copy in which those nodes are indexed
        through the lexical overlay (as :meth:`upsert`); this retriever is not changed (it may
        be searched meanwhile). Anything else — a node or an edge removed, a provision, a rule
        node or a label changed, another edge type, more than ``MAX_ABSORBED`` nodes since the
        build — returns ``None``: the owner builds afresh (BM25 statistics and recital links
        are whole-graph)."""
        current = {node.id: node for node in nodes}
        if any(node_id not in current for node_id in self._nodes):
            return None
        changed = [node for node_id, node in current.items() if self._nodes.get(node_id) != node]
        if self._absorbed + len(changed) > MAX_ABSORBED:
            return None
        for node in changed:
            before = self._nodes.get(node.id)
            if node.label != "Concept" and not (node.label == "Label" and before is None):
                return None
            if before is not None and before.label != node.label:
                return None
        known = {(e.source, e.type, e.target) for e in self._edges}
        keys = {(e.source, e.type, e.target) for e in edges}
        if not known <= keys:
            return None
        added = [e for e in edges if (e.source, e.type, e.target) not in known]
        if any(e.type not in ("HAS_ALT_LABEL", "ALIGNS_WITH") for e in added):
            return None
        twin = copy.copy(self)
        twin._nodes, twin._docs = dict(self._nodes), dict(self._docs)
        twin._edges = [*self._edges, *added]
        twin._rows = self._rows.copy()
        shape = self._shape
        twin._shape = replace(
            shape,
            aligned={k: list(v) for k, v in shape.aligned.items()},
            alt_labels={k: list(v) for k, v in shape.alt_labels.items()},
            adjacent=dict(shape.adjacent),
        )
        if self._dense is not None:
            dense = self._dense
            twin._dense = replace(dense, matrix=dense.matrix.copy(), chunks=dense.chunks.copy())
        twin._query_vectors = {}
        touched = {node.id for node in changed}
        for edge in added:
            if edge.type == "ALIGNS_WITH":
                twin._shape.aligned.setdefault(edge.source, []).append(edge.target)
                for a, b in ((edge.source, edge.target), (edge.target, edge.source)):
                    twin._shape.adjacent[a] = {*twin._shape.adjacent.get(a, ()), b}
            else:
                label = current.get(edge.target)
                text = label.properties.get("text") if label is not None else None
                if text:
                    twin._shape.alt_labels.setdefault(edge.source, []).append(str(text))
                touched.add(edge.source)
        twin.upsert([current[i] for i in sorted(touched) if i in current])
        twin._absorbed = self._absorbed + len(changed)
        return twin

    def __getstate__(self) -> dict[str, object]:
        """What :mod:`engine.retrieval.cache` saves: everything but the embedder (attached
        again by :meth:`attach`) and the cached question vectors."""
        state = dict(self.__dict__)
        state["_query_vectors"] = {}
        if self._dense is not None:
            state["_dense"] = None
            dense = self._dense
            state["_dense_saved"] = (
                dense.matrix,
                dense.present,
                dense.missing,
                dense.chunks,
                dense.chunk_rows,
            )
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)

    def attach(self, embedder: Embedder | None) -> None:
        """Give a loaded retriever its embedder back (without one it searches lexically)."""
        saved = self.__dict__.pop("_dense_saved", None)
        if saved is not None and embedder is not None and embedder.dimension:
            matrix, present, missing, chunks, chunk_rows = saved
            if matrix.shape[1] == embedder.dimension:
                self._dense = DenseRows(embedder, matrix, present, missing, chunks, chunk_rows)

    @classmethod
    def from_snapshot(
        cls, snapshot: GraphSnapshot, config: RetrievalConfig | None = None
    ) -> Retriever:
        return cls(snapshot.nodes, snapshot.edges, config)

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def dense(self) -> DenseRows | None:
        """The semantic channel's rows, or ``None`` when retrieval is lexical only."""
        return self._dense

    def forget_queries(self) -> None:
        """Drop the cached question vectors (benchmarks time a question's first encoding)."""
        self._query_vectors.clear()

    def query_vector(self, question: str) -> npt.NDArray[np.float32] | None:
        """The question's vector (cached); ``None`` without an embedder or when it fails
        (a remote embedder down: the search stays lexical, ADR "sentence embeddings")."""
        if self._dense is None:
            return None
        if question in self._query_vectors:
            return self._query_vectors[question]
        try:
            vector: npt.NDArray[np.float32] | None = self._dense.embedder.embed([question])[0]
        except RegintelError:
            log.warning("query_embedding_failed", exc_info=True)
            return None  # not cached: the next question tries again
        if len(self._query_vectors) >= self.config.query_cache:
            # turns search in threads (ADR 0080): another may evict or add meanwhile
            with contextlib.suppress(StopIteration, RuntimeError):
                self._query_vectors.pop(next(iter(self._query_vectors)), None)
        self._query_vectors[question] = vector
        return vector

    def get(self, node_id: str) -> GraphNode | None:
        return self._nodes.get(node_id)

    def named_acts(self, text: str) -> list[str]:
        """Ids of the acts held in the graph that ``text`` names ("the AI Act", "2016/679")."""
        return [a.instrument_id for a in self._catalogue.mentions(text) if a.instrument_id]

    def upsert(self, nodes: Sequence[GraphNode]) -> None:
        """Add or replace nodes now (searchable at once; their edges wait for a rebuild). A
        rule node, concept or act is embedded at once too; a provision's changed text is found
        lexically until the next build."""
        named: list[tuple[int, str]] = []
        for node in nodes:
            self._nodes[node.id] = node
            doc = document_of(node)
            if doc is None:
                continue
            self._docs[node.id] = doc
            old = self._rows.row_of.get(node.id)
            self._rows.upsert(doc, self._shape)
            if self._dense is None:
                continue
            if old is not None:
                self._dense.forget(old)
            text = embedding_text(doc, self._docs, False) if doc.kind in _NAMED else None
            if text and node.id in self._rows.row_of:
                named.append((self._rows.row_of[node.id], text))
        if self._dense is not None:
            self._dense.embed_now(named)

    def search(
        self,
        question: str,
        k: int = 10,
        *,
        jurisdictions: Sequence[str] = (),
        instruments: Sequence[str] = (),
        focus: Sequence[str] = (),
        as_at: tuple[str, str] | None = None,
        channels_used: frozenset[str] | None = None,
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
            tokens,
            set(jurisdictions),
            set(instruments) or named,
            rules_pass=None if instruments else near_acts,
            as_at=window,
        )
        units = self._unit_scores(scores)
        use_lexical = channels_used is None or "lexical" in channels_used
        use_dense = channels_used is None or "dense" in channels_used
        lexical_weight = config.lexical_weight if use_lexical else 0.0
        channels = [Channel("lexical", self._rows.top(units, _UNITS, config.depth), lexical_weight)]
        if len(named) > 1 and not instruments:
            # A question about several acts wants each act's best provisions: one channel per act
            # (otherwise the act whose vocabulary the question shares most takes every rank).
            channels = [
                Channel(
                    "lexical", self._rows.top(units, _UNITS, config.depth, act=act), lexical_weight
                )
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
            channels.append(Channel("lexical", ranked, config.unnamed_weight * lexical_weight))
        similarity = 0.0
        prior_channel: Channel | None = None
        vector = self.query_vector(question) if use_dense else None
        if vector is not None and self._dense is not None:
            dense = self._dense

            def cosines(query: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
                filtered = self._rows.filtered(
                    dense.scores(query, len(self._rows.ids), config.dense_chunks),
                    set(jurisdictions),
                    set(instruments) or named,
                    rules_pass=None if instruments else near_acts,
                    as_at=window,
                )
                return np.maximum(filtered, 0.0).astype(np.float32)

            cosine = cosines(vector)
            dense_units = self._rows.unit_scores(
                cosine, 0.0, config.dense_recital_factor, config.dense_recital_flow
            )
            # The gate reads the best of the ranked units' scores and of any provision's own
            # cosine (a recital scaled down for ranking still tells that the graph holds the
            # question's subject), always for the question's own vector.
            best = self._rows.unit_scores(cosine, 0.0, 1.0, 0.0)
            similarity = max((float(u.max()) for u in (dense_units, best) if len(u)), default=0.0)
            if config.dense_feedback and len(cosine) > config.dense_feedback_depth:
                depth = config.dense_feedback_depth
                top = np.argpartition(-cosine, depth)[:depth]
                top = top[top < len(dense.matrix)]  # rows upserted since the build: no vector
                moved = vector + config.dense_feedback * dense.matrix[top].mean(axis=0)
                moved = (moved / np.linalg.norm(moved)).astype(np.float32)
                dense_units = self._rows.unit_scores(
                    cosines(moved), 0.0, config.dense_recital_factor, config.dense_recital_flow
                )
            ranked = self._rows.top(dense_units, _DENSE_UNITS, config.depth)
            channels.append(Channel("dense", ranked, config.dense_weight))
            # Only when the semantic channel's best unit is an act's provision: a question about
            # a tax rule keeps its rule nodes (the prior ranks provisions only).
            leads = bool(ranked) and self._docs[ranked[0]].kind in _PROVISIONS
            if config.act_prior and leads and not named and not instruments:
                best_acts = self._best_acts(cosine, config.act_prior_acts)
                codes = self._act_codes
                inside = np.zeros(len(dense_units), dtype=bool)
                inside[: len(codes)] = np.isin(codes[: len(dense_units)], best_acts)
                prior = np.where(inside, dense_units, 0.0).astype(np.float32)
                ranked = self._rows.top(prior, _DENSE_UNITS, config.depth)
                prior_channel = Channel("dense", ranked, config.act_prior)
                channels.append(prior_channel)
            if config.dense_chunk_channel and len(dense.chunk_rows):
                pooled = self._rows.filtered(
                    dense.scores(vector, len(self._rows.ids), 1.0),
                    set(jurisdictions),
                    set(instruments) or named,
                    rules_pass=None if instruments else near_acts,
                    as_at=window,
                )
                pooled_units = self._rows.unit_scores(
                    np.maximum(pooled, 0.0).astype(np.float32),
                    0.0,
                    config.dense_recital_factor,
                    config.dense_recital_flow,
                )
                ranked = self._rows.top(pooled_units, _DENSE_UNITS, config.depth)
                own_k = config.dense_chunk_rrf_k or None
                channels.append(Channel("dense", ranked, config.dense_chunk_channel, own_k))
        if focus:
            near = self._shape.within_two_hops(focus)
            ranked = self._rows.top(units, _UNITS, config.depth, only=near)
            channels.append(Channel("focus", ranked, config.focus_weight))
        if config.lexical_trust and use_lexical:
            own_first = [i for i in channels[0].ranked if i in self._docs][: config.coverage_depth]
            trust = min(1.0, self._rows.coverage(tokens, names, own_first) / config.lexical_trust)
            channels = [
                replace(c, weight=c.weight * trust) if c.name == "lexical" else c for c in channels
            ]
        fused = self._fuse(channels, window)
        # The act prior re-ranks; the gate reads the order without it (its rules were
        # calibrated on that order, and a prior that moves a word of what is asked out of the
        # top five must not refuse a question the words found: ADR 0081).
        gated = fused
        if prior_channel is not None:
            gated = self._fuse([c for c in channels if c is not prior_channel], window)
        lexical = [item.id for item in gated if "lexical" in item.channels or not use_lexical]
        places = find_places(question)
        where = names | {t for place in places for t in tokenise(place.text)}
        # Coverage of the best lexical units in the fused order, or in the lexical channel's
        # own order: how the semantic channel is weighted must not refuse what the question's
        # words alone find (recitals flowing to articles moved "delete my data" -> GDPR
        # recital 66 out of the fused top three, and the gate refused it).
        own = [i for i in channels[0].ranked if i in self._docs][: config.coverage_depth]
        confidence = max(
            self._rows.coverage(tokens, where, lexical[: config.coverage_depth]),
            self._rows.coverage(tokens, where, own) if use_lexical else 0.0,
        )
        unsettled: list[str] = []
        if config.asked_depth and config.gate.refuse_unsettled:
            asked = [t for t in asked_terms(question, where) if self._rows.lexical.known(t)]
            if asked:
                best_units = [i.id for i in gated if i.id in self._docs][: config.asked_depth]
                unsettled = self._rows.absent(asked, best_units)
                if not unsettled and use_dense and config.asked_similarity:
                    unsettled = self._unsettled_in_meaning(question, asked, best_units)
        verdict = judge(
            acts=acts,
            places=places,
            explicit=any(named_ref for _, named_ref in explicit),
            confidence=confidence,
            similarity=similarity if self._dense is not None and use_dense else None,
            national_cue=bool(NATIONAL_LAW_CUE.search(question)),
            unsettled=unsettled,
            thresholds=config.gate,
            evidence_jurisdiction=self._docs[lexical[0]].jurisdiction if lexical else None,
        )
        return SearchResult(tuple(self._hits(explicit, fused, scores, k)), verdict)

    def _unsettled_in_meaning(
        self, question: str, asked: Sequence[str], units: Sequence[str]
    ) -> list[str]:
        """``asked`` when the phrase of what ``question`` asks for is far in meaning from every
        one of ``units`` (and their paragraphs): its best cosine is under ``asked_similarity``;
        else nothing (also when there is no semantic channel)."""
        phrase = asked_phrase(question)
        vector = self.query_vector(phrase) if phrase else None
        rows = [self._rows.row_of[u] for u in units if u in self._rows.row_of]
        if vector is None or self._dense is None or not rows:
            return []
        cosine = self._dense.scores(vector, len(self._rows.ids), self.config.dense_chunks)
        best = self._rows.unit_scores(cosine, 0.0, 1.0, 0.0)[rows]
        return list(asked) if float(best.max()) < self.config.asked_similarity else []

    def _fuse(self, channels: Sequence[Channel], window: tuple[int, int] | None) -> list[FusedItem]:
        """Reciprocal-rank fusion of ``channels``, then once more with the articles the top
        fused units cite (``expand_from`` of them) as one more channel."""
        config = self.config
        first = reciprocal_rank_fusion(channels, config.rrf_k)
        expansion = self._expansion([item.id for item in first[: config.expand_from]])
        if window is not None:
            expansion = [i for i in expansion if self._in_force(i, window)]
        if not expansion:
            return first
        more = [*channels, Channel("expansion", expansion, config.citation_weight)]
        return reciprocal_rank_fusion(more, config.rrf_k)

    def _best_acts(self, cosine: npt.NDArray[np.float32], count: int) -> list[int]:
        """The ``count`` acts whose three best provisions' cosines have the highest mean (read
        among the 400 best provisions; an act with fewer there counts the 400th's cosine)."""
        codes = self._act_codes[: len(cosine)]
        rows = np.flatnonzero(codes >= 0)
        if not len(rows):
            return []
        if len(rows) > 400:
            rows = rows[np.argpartition(-cosine[rows], 400)[:400]]
        rows = rows[np.argsort(-cosine[rows], kind="stable")]
        floor = float(cosine[rows[-1]])
        best: dict[int, list[float]] = {}
        for row in rows.tolist():
            kept = best.setdefault(int(codes[row]), [])
            if len(kept) < 3:
                kept.append(float(cosine[row]))
        mean = {a: (sum(v) + floor * (3 - len(v))) / 3 for a, v in best.items()}
        return sorted(mean, key=lambda a: (-mean[a], a))[:count]

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
            if item.channels == ("dense",):
                why = HitReason.SEMANTIC
            passages = self._rows.passages(item.id, scores, self.config.passages)
            hits.append(
                RetrievalHit(self._nodes[item.id], why, item.score, item.channels, passages)
            )
        return hits[:k]
