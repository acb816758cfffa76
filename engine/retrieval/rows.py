"""The searchable rows of the retriever: one per evidence node, with numpy columns for filters.

A row is an article, paragraph, recital, annex, rule node, act or confirmed concept (divisions
are not evidence on their own: their headings are indexed with the articles they hold;
provisional concepts are never evidence). What a row indexes is its heading twice, its body, and
its context: an article adds the headings of its chapter and section, a paragraph its article's
heading, a concept its alt labels, a rule node its label.

Each row is scored twice with BM25: on its tokens, and on its *phrases* (adjacent token pairs,
``personal_data``, ``facial_recognit``), which are added with ``phrase_weight``: a question
whose words appear together in a provision ranks it above one where they are scattered (the
sequential-dependence idea of Metzler and Croft, 2005, reduced to ordered pairs). A unit can
also take part of the score of the recitals linked to it (``links.py``): see
:meth:`RowTable.unit_scores`.

Each row also has the days it is in force (``valid_from`` / ``valid_to`` as ``YYYYMMDD``
integers; a provision without its own dates takes its act's), so that an as-at filter is one
vectorised comparison per search (ADR 0032).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from corpus.ids import annex_id, article_id, id_part, paragraph_id, recital_id
from engine.retrieval.documents import DocKind, RetrievalDoc
from engine.retrieval.lexical import LexicalIndex, Scores
from engine.retrieval.references import ProvisionRef
from engine.retrieval.structure import GraphStructure
from engine.retrieval.tokenise import QUERY_CHATTER, tokenise

__all__ = [
    "ALWAYS",
    "RowTable",
    "day_number",
    "index_tokens",
    "phrases",
]

ALWAYS = (0, 99_991_231)  # (first, last) day of a row whose validity is not stated


def day_number(iso: str) -> int:
    """``2020-09-01`` -> ``20200901``: day order as integer order."""
    return int(iso[:10].replace("-", ""))


def _in_force(doc: RetrievalDoc, docs: Mapping[str, RetrievalDoc]) -> tuple[int, int]:
    """A row's ``(first, last)`` day in force: its own dates, else its act's, else always."""
    start, end = doc.valid_from, doc.valid_to
    act = docs.get(doc.instrument_id) if doc.instrument_id and doc.instrument_id != doc.id else None
    if act is not None and start is None and end is None:
        start, end = act.valid_from, act.valid_to
    return (day_number(start) if start else ALWAYS[0], day_number(end) if end else ALWAYS[1])


_KINDS = tuple(DocKind)
_PROVISIONS = frozenset(
    {DocKind.ARTICLE, DocKind.PARAGRAPH, DocKind.RECITAL, DocKind.ANNEX, DocKind.DIVISION}
)


def index_tokens(
    doc: RetrievalDoc, docs: Mapping[str, RetrievalDoc], shape: GraphStructure
) -> list[str]:
    """The tokens a row is indexed by (see the module docstring)."""
    parts = [doc.heading, doc.heading] if doc.heading else []
    if doc.kind is DocKind.ARTICLE:
        parts += [docs[a].heading for a in shape.ancestors(doc.id) if a in docs]
    elif doc.kind is DocKind.PARAGRAPH and shape.parents.get(doc.id) in docs:
        parts.append(docs[shape.parents[doc.id]].heading)
    elif doc.kind is DocKind.CONCEPT:
        parts += shape.alt_labels.get(doc.id, [])
    elif doc.kind in (DocKind.RULE, DocKind.INSTRUMENT):
        parts.append(doc.label)
    parts.append(doc.body)
    text = "\n".join(p for p in parts if p)
    key = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
    known = _TOKENS.get(key)
    if known is None:
        known = tuple(sys.intern(token) for token in tokenise(text))
        if len(_TOKENS) >= _TOKENS_KEPT:
            _TOKENS.clear()  # a new graph: what the old one held is not worth keeping
        _TOKENS[key] = known
    return list(known)


# The index tokens of every text tokenised in this process, by digest: a rebuild after a
# confirmation or an ingest tokenises only what changed (tokenising is a third of a build over
# the 49 acts). Pure of the text, so shared by every retriever; bounded.
_TOKENS: dict[bytes, tuple[str, ...]] = {}
_TOKENS_KEPT = 60_000


def phrases(tokens: Sequence[str]) -> list[str]:
    """Adjacent token pairs, ``a_b`` (a token never holds ``_``, so a pair never meets a token)."""
    return [f"{a}_{b}" for a, b in pairwise(tokens)]


def _searchable(doc: RetrievalDoc) -> bool:
    return doc.kind is not DocKind.DIVISION and not doc.provisional


@dataclass
class RowTable:
    """Rows, their columns and the lexical index over them."""

    ids: list[str]
    docs: list[RetrievalDoc]
    lexical: LexicalIndex
    pairs: LexicalIndex  # phrases of the same rows, in the same order (see ``phrases``)
    token_sets: list[frozenset[str]]
    kind: npt.NDArray[np.int8]
    jurisdiction: list[str | None]
    instrument: list[str | None]
    unit: dict[int, int] = field(default_factory=dict)  # paragraph row -> article row
    paragraphs: dict[int, list[int]] = field(default_factory=dict)  # article row -> rows
    all_docs: dict[str, RetrievalDoc] = field(default_factory=dict)
    instruments: set[str] = field(default_factory=set)
    row_of: dict[str, int] = field(default_factory=dict)
    para_rows: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    para_units: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    phrase_weight: float = 0.0
    # (unit row, recital row, similarity) of each recital link, for :meth:`unit_scores`.
    link_units: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    link_recitals: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    link_weights: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros(0, np.float32))
    valid_from: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, np.int32))
    valid_to: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, np.int32))

    @classmethod
    def build(
        cls,
        docs: Mapping[str, RetrievalDoc],
        shape: GraphStructure,
        *,
        phrase_weight: float = 0.0,
        known: Mapping[str, list[str]] | None = None,
    ) -> RowTable:
        """The rows of ``docs``; ``known`` holds index tokens already computed, by id."""
        chosen = sorted((d for d in docs.values() if _searchable(d)), key=lambda d: d.id)
        computed = known or {}
        tokens = [computed.get(d.id) or index_tokens(d, docs, shape) for d in chosen]
        table = cls(
            ids=[doc.id for doc in chosen],
            docs=chosen,
            lexical=LexicalIndex(tokens),
            pairs=LexicalIndex([phrases(t) for t in tokens] if phrase_weight else []),
            phrase_weight=phrase_weight,
            token_sets=[frozenset(t) for t in tokens],
            kind=np.array([_KINDS.index(d.kind) for d in chosen], dtype=np.int8),
            jurisdiction=[d.jurisdiction for d in chosen],
            instrument=[d.instrument_id for d in chosen],
            all_docs=dict(docs),
        )
        windows = [_in_force(d, docs) for d in chosen]
        table.valid_from = np.array([w[0] for w in windows], dtype=np.int32)
        table.valid_to = np.array([w[1] for w in windows], dtype=np.int32)
        table.row_of = {doc_id: row for row, doc_id in enumerate(table.ids)}
        table.instruments = {
            d.instrument_id for d in docs.values() if d.kind in _PROVISIONS and d.instrument_id
        }
        for row, doc in enumerate(chosen):
            if doc.kind is DocKind.PARAGRAPH:
                parent = shape.unit_of(shape.parents.get(doc.id, ""), docs)
                if parent is not None and parent in table.row_of:
                    table.unit[row] = table.row_of[parent]
                    table.paragraphs.setdefault(table.row_of[parent], []).append(row)
        table.index_paragraphs()
        return table

    def link(self, links: Mapping[str, Sequence[tuple[str, float]]]) -> None:
        """Record recital links (unit id -> ``(recital id, similarity)``) for scoring."""
        triples = [
            (self.row_of[unit], self.row_of[recital], similarity)
            for unit, linked in sorted(links.items())
            for recital, similarity in linked
            if unit in self.row_of and recital in self.row_of
        ]
        self.link_units = np.array([t[0] for t in triples], dtype=np.int64)
        self.link_recitals = np.array([t[1] for t in triples], dtype=np.int64)
        self.link_weights = np.array([t[2] for t in triples], dtype=np.float32)

    def index_paragraphs(self) -> None:
        """numpy arrays of (paragraph row, its article's row), for :meth:`unit_scores`."""
        pairs = sorted(self.unit.items())
        self.para_rows = np.array([p for p, _ in pairs], dtype=np.int64)
        self.para_units = np.array([u for _, u in pairs], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self.row_of

    def copy(self) -> RowTable:
        """A copy that :meth:`upsert` can change while this one is searched (what it never
        changes, the base BM25 indexes and the paragraph maps, is shared)."""
        return replace(
            self,
            ids=list(self.ids),
            docs=list(self.docs),
            lexical=self.lexical.copy(),
            pairs=self.pairs.copy(),
            token_sets=list(self.token_sets),
            kind=self.kind.copy(),
            jurisdiction=list(self.jurisdiction),
            instrument=list(self.instrument),
            all_docs=dict(self.all_docs),
            row_of=dict(self.row_of),
            link_units=self.link_units.copy(),
            link_recitals=self.link_recitals.copy(),
            valid_from=self.valid_from.copy(),
            valid_to=self.valid_to.copy(),
        )

    def upsert(self, doc: RetrievalDoc, shape: GraphStructure) -> None:
        """Make ``doc`` searchable now (or unsearchable, if it became provisional)."""
        self.all_docs[doc.id] = doc
        tokens = index_tokens(doc, self.all_docs, shape) if _searchable(doc) else []
        old = self.row_of.get(doc.id)
        row = self.lexical.replace(old, tokens) if old is not None else self.lexical.add(tokens)
        if self.phrase_weight:  # the phrase index keeps the same row numbers
            pairs = phrases(tokens)
            if old is not None:
                self.pairs.replace(old, pairs)
            else:
                self.pairs.add(pairs)
        if old is not None and row != old:  # links follow a base row that moved
            self.link_units[self.link_units == old] = row
            self.link_recitals[self.link_recitals == old] = row
        if old is not None and row != old:
            self.ids[old] = ""  # the base row is masked in the index; its id is free
        if row == len(self.ids):
            self.ids.append(doc.id)
            self.docs.append(doc)
            self.token_sets.append(frozenset(tokens))
            self.kind = np.append(self.kind, np.int8(_KINDS.index(doc.kind)))
            self.jurisdiction.append(doc.jurisdiction)
            self.instrument.append(doc.instrument_id)
            self.valid_from = np.append(self.valid_from, np.int32(0))
            self.valid_to = np.append(self.valid_to, np.int32(0))
        else:
            self.docs[row], self.token_sets[row] = doc, frozenset(tokens)
            self.kind[row] = _KINDS.index(doc.kind)
            self.jurisdiction[row], self.instrument[row] = doc.jurisdiction, doc.instrument_id
        self.valid_from[row], self.valid_to[row] = _in_force(doc, self.all_docs)
        self.row_of[doc.id] = row

    def scores(
        self,
        tokens: Sequence[str],
        jurisdictions: Collection[str],
        instruments: Collection[str],
        *,
        rules_pass: Collection[str] | None,
        as_at: tuple[int, int] | None = None,
    ) -> Scores:
        """BM25 per row, 0 where a filter excludes the row.

        ``instruments`` keeps provisions of those acts; the rule nodes, concepts and acts in
        ``rules_pass`` pass too (the acts were named in the question rather than chosen as a
        filter, and these nodes hang off them). ``as_at`` (first, last day, ``YYYYMMDD``) keeps
        the rows in force on some day of that window.
        """
        query = [t for t in tokens if t not in QUERY_CHATTER]
        scores = self.lexical.scores(query)
        if self.phrase_weight:
            scores = scores + np.float32(self.phrase_weight) * self.pairs.scores(phrases(query))
        return self.filtered(scores, jurisdictions, instruments, rules_pass=rules_pass, as_at=as_at)

    def filtered(
        self,
        scores: Scores,
        jurisdictions: Collection[str],
        instruments: Collection[str],
        *,
        rules_pass: Collection[str] | None,
        as_at: tuple[int, int] | None = None,
    ) -> Scores:
        """``scores`` with 0 where a filter of :meth:`scores` excludes the row (any channel's
        per-row scores: the semantic channel filters the same way)."""
        if jurisdictions:
            keep = np.array([j in jurisdictions for j in self.jurisdiction], dtype=bool)
            scores = np.where(keep, scores, 0.0).astype(np.float32)
        if instruments:
            keep = np.array(
                [
                    (i in instruments)
                    or (rules_pass is not None and d.kind not in _PROVISIONS and d.id in rules_pass)
                    for i, d in zip(self.instrument, self.docs, strict=True)
                ],
                dtype=bool,
            )
            scores = np.where(keep, scores, 0.0).astype(np.float32)
        if as_at is not None:
            scores = np.where(self.in_force(as_at), scores, 0.0).astype(np.float32)
        return scores

    def in_force(self, as_at: tuple[int, int]) -> npt.NDArray[np.bool_]:
        """Rows in force on some day of ``as_at`` (first, last day, ``YYYYMMDD``)."""
        return (self.valid_from <= as_at[1]) & (self.valid_to >= as_at[0])

    def top(
        self,
        scores: Scores,
        kinds: Iterable[DocKind],
        depth: int,
        only: Collection[str] | None = None,
        act: str | None = None,
    ) -> list[str]:
        """Ids of the best rows of ``kinds`` (score > 0), ties by id; ``only`` those ids,
        ``act`` only provisions of that act."""
        mask = np.isin(self.kind, [_KINDS.index(k) for k in kinds]) & (scores > 0)
        rows = np.flatnonzero(mask)
        if act is not None:
            rows = np.array([r for r in rows if self.instrument[r] == act], dtype=np.int64)
        if only is not None:
            rows = np.array([r for r in rows if self.ids[r] in only], dtype=np.int64)
        if len(rows) > depth * 4:
            rows = rows[np.argpartition(-scores[rows], depth * 4)[: depth * 4]]
        ranked = sorted(rows.tolist(), key=lambda r: (-float(scores[r]), self.ids[r]))
        return [self.ids[r] for r in ranked[:depth]]

    def unit_scores(
        self,
        scores: Scores,
        paragraph_mix: float,
        recital_factor: float,
        recital_flow: float = 0.0,
    ) -> Scores:
        """Scores of units on one scale: an article takes its best paragraph's score when that
        is higher (plus ``paragraph_mix`` times the lower of the two, so an article matching as
        a whole and in one paragraph beats one matching only once); recitals are scaled by
        ``recital_factor``; paragraphs themselves score 0 (they vote for their article).

        An article or annex then gains ``recital_flow`` times the best of its linked recitals'
        scores, each times the link's similarity: a question in a recital's words lifts the
        provision that the recital explains, as far as the two are alike."""
        best = np.zeros_like(scores)
        if len(self.para_rows):
            np.maximum.at(best, self.para_units, scores[self.para_rows])
        combined = np.maximum(scores, best) + paragraph_mix * np.minimum(scores, best)
        combined[self.kind == _KINDS.index(DocKind.PARAGRAPH)] = 0.0
        recitals = self.kind == _KINDS.index(DocKind.RECITAL)
        combined[recitals] = combined[recitals] * recital_factor
        if recital_flow and len(self.link_units):
            flow = np.zeros_like(scores)
            np.maximum.at(flow, self.link_units, scores[self.link_recitals] * self.link_weights)
            combined = combined + recital_flow * flow
        return combined.astype(np.float32)

    def passages(self, node_id: str, scores: Scores, limit: int) -> tuple[str, ...]:
        """The best-matching paragraphs of an article (none for other kinds)."""
        row = self.row_of.get(node_id)
        children = self.paragraphs.get(row, []) if row is not None else []
        matching = sorted(
            (r for r in children if scores[r] > 0), key=lambda r: (-float(scores[r]), self.ids[r])
        )
        return tuple(self.ids[r] for r in matching[:limit])

    def resolve(
        self, refs: Sequence[ProvisionRef], instruments: Collection[str]
    ) -> list[tuple[str, bool]]:
        """Node ids named by ``refs``, as ``(id, named)``: ``named`` is false for the article
        added after a named paragraph. References to absent provisions resolve to nothing."""
        found: list[tuple[str, bool]] = []
        for ref in refs:
            acts = [ref.instrument_id] if ref.instrument_id else sorted(self.instruments)
            for act in acts:
                if not instruments or act in instruments:
                    found += [
                        (i, named) for i, named in self._ids_for(ref, act) if i in self.all_docs
                    ]
        return found

    def _ids_for(self, ref: ProvisionRef, act: str) -> list[tuple[str, bool]]:
        if ref.kind == "article":
            article = article_id(act, ref.number)
            paragraph = paragraph_id(article, ref.paragraph) if ref.paragraph else None
            if paragraph in self.all_docs:
                return [(paragraph, True), (article, False)]
            return [(article, True)]
        if ref.kind == "recital":
            return [(recital_id(act, ref.number), True)]
        if ref.kind == "annex":
            return [(annex_id(act, ref.number), True)]
        return [(f"{act}:CHAPTER_{id_part(ref.number)}", True)]

    def coverage(
        self, tokens: Sequence[str], ignore: Collection[str], unit_ids: Sequence[str]
    ) -> float:
        """Best IDF-weighted share of the question's terms found in one of ``unit_ids``.

        ``ignore``: tokens that say where to look rather than what to find (act and place
        names); question chatter is ignored too.
        """
        terms = {t for t in tokens if t not in QUERY_CHATTER and t not in ignore}
        if not terms:
            return 1.0 if ignore else 0.0
        weights = {t: self.lexical.idf(t) for t in terms}
        total = sum(weights.values())
        best = 0.0
        for unit in unit_ids:
            row = self.row_of.get(unit)
            if row is None:
                continue
            present = set(self.token_sets[row])
            for child in self.paragraphs.get(row, []):
                present |= self.token_sets[child]
            best = max(best, sum(w for t, w in weights.items() if t in present) / total)
        return best

    def absent(self, tokens: Sequence[str], unit_ids: Sequence[str]) -> list[str]:
        """The ``tokens`` that none of ``unit_ids`` (with their paragraphs) contains."""
        left = list(tokens)
        for unit in unit_ids:
            row = self.row_of.get(unit)
            if row is None or not left:
                continue
            present = set(self.token_sets[row])
            for child in self.paragraphs.get(row, []):
                present |= self.token_sets[child]
            left = [t for t in left if t not in present]
        return left
