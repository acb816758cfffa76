"""The semantic channel: provisions ranked by the cosine of their sentence embedding with the
question's (issue 22; docs/adr, "sentence embeddings").

What is embedded (:func:`embedding_text`), one vector per retrieval row:

- a **paragraph**: its article's heading, then its text ("Right to erasure ('right to be
  forgotten'). 1. The data subject shall have the right ..."), so a paragraph that never names
  its subject still carries it;
- a **definition**: its text ("'legacy ICT system' means ...");
- an **article without numbered paragraphs** and an **annex**: heading, then text;
- a **recital**: its text;
- a **rule node** (a rate, a threshold, a benefit, a form, a statute ...), a confirmed
  **concept** and an **act**: its name, then what it says of itself (``description``,
  ``definition`` or ``text``): "Standard rate of income tax (Ireland). Income tax at 20% on
  taxable income up to the standard rate band ...". Not its ``value``, citation or codes: a rate
  that changes keeps its vector (the description says what the node *is*; the evidence the
  prompt quotes still carries the value), and a code says nothing to a sentence model.

An article scores as the best of its own vector (its heading and the start of its text: the
model reads 128 tokens) and its paragraphs', as in the lexical channel. The model reads no
further than 128 tokens (over the 49 acts 2,243 of 10,550 paragraphs are longer), so a long
paragraph, an article without numbered paragraphs and an annex may also have **chunk vectors**
(:func:`chunk_texts`): the rest of their text in windows of about :data:`CHUNK_CHARS`
characters, cut at clause ends, each after the heading; the row's cosine is then the best of
its own vector's and its chunks' (max-sim). **Off by default** (``RetrievalConfig.dense_chunks``,
ADR 0058, seventh-pass addendum): they lift the semantic channel alone on the broad dev set, but
the fused ranking gains one or two dev questions, held-out 2 does not move and the first
held-out set loses two; their vectors are not shipped (``tools/embed_shipped_acts.py
--chunks``). Every unit
the lexical channel ranks has a vector, so the two channels rank the same kinds of node: with
provisions only, the semantic channel's best cosines for a tax question were off-topic
provisions, and it pushed the rule nodes the lexical channel had found down (ADR 0058). Texts
are cut at :data:`MAX_CHARS` before tokenising (the tokenizer cuts again at the model's token
budget).

Vectors come from a :class:`embeddings.VectorStore` keyed by the hash of the embedded text, so
an index build looks vectors up instead of computing them; rows whose vector is missing are left
out of this channel (and counted: ``/health`` reports them) until ``regintel embed`` or the next
ingest computes them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import structlog

from embeddings import Embedder, VectorStore, content_key
from engine.retrieval.documents import DocKind, RetrievalDoc, document_of
from errors import AdapterClosed, RegintelError
from graph.models import GraphEdge, GraphNode

__all__ = [
    "CHUNK_CHARS",
    "CHUNK_MARK",
    "EMBED_AT_BUILD",
    "MAX_CHARS",
    "DenseRows",
    "chunk_texts",
    "chunk_texts_of",
    "embedding_text",
    "embedding_texts",
    "texts_of_graph",
]

log = structlog.get_logger(__name__)

MAX_CHARS = 1200
#: Rule nodes, concepts and acts without a stored vector that a build embeds itself (beyond
#: it they wait for ``regintel embed``): a seed file edited after the shipped vectors were
#: computed, captures confirmed since the last ``regintel embed``.
EMBED_AT_BUILD = 256
#: Characters of a chunk's window (a heading of ~40 characters and 520 of text are about 80-110
#: tokens of the model's 128; 2 % of the shipped acts' chunks are cut by the tokenizer).
CHUNK_CHARS = 520
#: Between a row's id and its chunk's number in :func:`texts_of_graph` (``...:ART_5_1#2``).
CHUNK_MARK = "#"
# Where a window may end: after a sentence, a semicolon or a colon, or before a point "(a) ".
_CLAUSE = re.compile(r"(?<=[.;:])\s+(?=\S)|\s+(?=\([a-z0-9ivx]{1,4}\)\s)")
_ARTICLE_OF = re.compile(r"^(?P<article>.+:ART_[0-9A-Z]+)_")
# Nodes that are not provisions, embedded by name and self-description (module docstring).
_NAMED = (DocKind.RULE, DocKind.CONCEPT, DocKind.INSTRUMENT)
_SELF_DESCRIPTION = ("description", "definition", "text")


def _named_text(doc: RetrievalDoc) -> str | None:
    """A rule node's, concept's or act's name, then its description (see the module docstring)."""
    props = doc.node.properties
    name = doc.heading if doc.heading != doc.id else ""
    title = str(props.get("title") or "")
    if name and title and title not in name:  # an act: "Regulation (EU) 2025/302 (... Forms)"
        name = title if name in title else f"{name}. {title}"
    about = next((str(props[k]) for k in _SELF_DESCRIPTION if props.get(k)), "")
    if about == name:
        about = ""
    text = f"{name}. {about}" if name and about else name or about
    return _cut(text) if text else None


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS]


def embedding_text(
    doc: RetrievalDoc, docs: Mapping[str, RetrievalDoc], has_paragraphs: bool
) -> str | None:
    """The text embedded for ``doc`` (see the module docstring), or ``None``."""
    if doc.provisional:
        return None
    if doc.kind in _NAMED:
        return _named_text(doc)
    if not doc.body:
        return None
    if doc.kind is DocKind.RECITAL:
        return _cut(doc.body)
    if doc.kind is DocKind.PARAGRAPH:
        if doc.heading:  # a definition: its term is its heading, its text says "... means"
            return _cut(doc.body)
        match = _ARTICLE_OF.match(doc.id)
        article = docs.get(match["article"]) if match else None
        heading = article.heading if article is not None else ""
        return _cut(f"{heading}. {doc.body}" if heading else doc.body)
    del has_paragraphs  # an article is embedded whether or not its paragraphs are
    if doc.kind in (DocKind.ARTICLE, DocKind.ANNEX):
        return _cut(f"{doc.heading}. {doc.body}" if doc.heading else doc.body)
    return None


def _windows(text: str, size: int) -> list[str]:
    """``text`` in windows of at most ``size`` characters, cut at clause ends (a clause longer
    than ``size`` at a space)."""
    pieces: list[str] = []
    for clause in _CLAUSE.split(text):
        while len(clause) > size:
            cut = clause.rfind(" ", 0, size)
            cut = cut if cut > size // 2 else size
            pieces.append(clause[:cut])
            clause = clause[cut:].lstrip()
        if clause:
            pieces.append(clause)
    windows: list[str] = []
    current = ""
    for piece in pieces:
        if current and len(current) + 1 + len(piece) > size:
            windows.append(current)
            current = piece
        else:
            current = f"{current} {piece}" if current else piece
    if current:
        windows.append(current)
    return windows


def chunk_texts(
    doc: RetrievalDoc, docs: Mapping[str, RetrievalDoc], has_paragraphs: bool
) -> list[str]:
    """The chunk texts of ``doc`` (see the module docstring): the windows of its text after
    the first (the row's own vector reads that one), each after its heading; none for a text
    of one window, a recital, a rule node, a concept or an act, and an article whose
    paragraphs are rows of their own (they have their own vectors and chunks)."""
    if doc.provisional or not doc.body:
        return []
    if doc.kind is DocKind.PARAGRAPH:
        heading = doc.heading  # a definition's term
        if not heading and (match := _ARTICLE_OF.match(doc.id)) is not None:
            article = docs.get(match["article"])
            heading = article.heading if article is not None else ""
    elif doc.kind is DocKind.ANNEX or (doc.kind is DocKind.ARTICLE and not has_paragraphs):
        heading = doc.heading
    else:
        return []
    windows = _windows(" ".join(doc.body.split()), CHUNK_CHARS)[1:]
    return [_cut(f"{heading}. {w}" if heading else w) for w in windows]


def chunk_texts_of(docs: Mapping[str, RetrievalDoc]) -> dict[str, list[str]]:
    """Id -> chunk texts of every row that has some."""
    articles = _with_paragraphs(docs)
    chunks = {}
    for doc_id, doc in docs.items():
        if texts := chunk_texts(doc, docs, doc_id in articles):
            chunks[doc_id] = texts
    return chunks


def _with_paragraphs(docs: Mapping[str, RetrievalDoc]) -> set[str]:
    return {
        match["article"]
        for doc in docs.values()
        if doc.kind is DocKind.PARAGRAPH
        and not doc.heading
        and (match := _ARTICLE_OF.match(doc.id)) is not None
    }


def embedding_texts(docs: Mapping[str, RetrievalDoc]) -> dict[str, str]:
    """Id -> embedded text of every row that has one."""
    articles = _with_paragraphs(docs)
    texts = {}
    for doc_id, doc in docs.items():
        text = embedding_text(doc, docs, doc_id in articles)
        if text:
            texts[doc_id] = text
    return texts


def texts_of_graph(
    nodes: Sequence[GraphNode], edges: Sequence[GraphEdge] = (), *, chunks: bool = False
) -> dict[str, str]:
    """:func:`embedding_texts` of a graph's nodes (what ``regintel embed`` computes), and with
    ``chunks`` their chunk texts too (keyed ``<id>#<n>``, n from 1): the chunk vectors are off
    by default (``RetrievalConfig.dense_chunks``), so only ``tools/embed_shipped_acts.py
    --chunks`` computes them."""
    docs = {n.id: d for n in nodes if (d := document_of(n)) is not None}
    del edges  # the embedded text depends on ids and properties only
    texts = embedding_texts(docs)
    for doc_id, windows in (chunk_texts_of(docs) if chunks else {}).items():
        texts.update({f"{doc_id}{CHUNK_MARK}{n}": t for n, t in enumerate(windows, start=1)})
    return texts


@dataclass
class DenseRows:
    """Row-aligned unit vectors (a zero row: no vector), the chunk vectors with the row each
    belongs to (ascending), and the question encoder."""

    embedder: Embedder
    matrix: npt.NDArray[np.float32]
    present: int
    missing: int
    chunks: npt.NDArray[np.float32] = field(
        default_factory=lambda: np.zeros((0, 0), dtype=np.float32)
    )
    chunk_rows: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    #: Rows the embedder failed to embed at build (a remote one down, a closed one at shutdown):
    #: such a build is not kept on disk (``cache.build_retriever``), else the next start on the
    #: same graph would load it and those rows would stay lexical only.
    failed: int = 0

    @classmethod
    def build(
        cls,
        ids: Sequence[str],
        docs: Mapping[str, RetrievalDoc],
        embedder: Embedder,
        store: VectorStore,
        *,
        chunks: bool = False,
    ) -> DenseRows:
        """Rows of ``ids`` from ``store`` (with ``chunks``, their chunk vectors too); rule
        nodes, concepts and acts it lacks (a rule node written after the vectors were computed,
        a confirmed capture) are embedded now, up to :data:`EMBED_AT_BUILD` (short texts:
        milliseconds each) and added to ``store``."""
        texts = embedding_texts(docs)
        windows = chunk_texts_of(docs) if chunks else {}
        matrix = np.zeros((len(ids), embedder.dimension), dtype=np.float32)
        stored = store.matrix()
        present = missing = 0
        late: list[tuple[int, str]] = []
        chunk_rows: list[int] = []
        chunk_found: list[int] = []
        for row, doc_id in enumerate(ids):
            for chunk in windows.get(doc_id, ()):
                if (at := store.row_of(content_key(chunk))) is None:
                    missing += 1  # computed by `regintel embed` as the rows' own are
                else:
                    chunk_rows.append(row)
                    chunk_found.append(at)
            text = texts.get(doc_id)
            if text is None:
                continue
            found = store.row_of(content_key(text))
            if found is None:
                if docs[doc_id].kind in _NAMED and len(late) < EMBED_AT_BUILD:
                    late.append((row, text))
                else:
                    missing += 1
                continue
            matrix[row] = stored[found]
            present += 1
        rows = cls(
            embedder,
            matrix,
            present,
            missing,
            stored[chunk_found].astype(np.float32),
            np.array(chunk_rows, dtype=np.int64),
        )
        rows.embed_now(late, store)
        return rows

    def embed_now(self, rows: Sequence[tuple[int, str]], store: VectorStore | None = None) -> None:
        """Embed ``(row, text)`` pairs now and set their rows (the matrix grows to hold a row
        added after the build); the vectors join ``store`` too. An embedder that fails (a
        remote one down) leaves them without a vector: lexical only, counted as missing."""
        if not rows:
            return
        texts = [text for _, text in rows]
        try:
            vectors = self.embedder.embed(texts)
        except AdapterClosed:  # shut down under a build still running in its thread: no fault
            log.info("embedding_at_build_skipped_closed", texts=len(texts))
            self.missing += len(rows)
            self.failed += len(rows)
            return
        except RegintelError:
            log.warning("embedding_at_build_failed", texts=len(texts), exc_info=True)
            self.missing += len(rows)
            self.failed += len(rows)
            return
        top = max(row for row, _ in rows)
        if top >= len(self.matrix):
            grown = np.zeros((top + 1, self.matrix.shape[1]), dtype=np.float32)
            grown[: len(self.matrix)] = self.matrix
            self.matrix = grown
        for (row, _), vector in zip(rows, vectors, strict=True):
            self.matrix[row] = vector
        self.present += len(rows)
        if store is not None:
            store.add([content_key(t) for t in texts], np.asarray(vectors, dtype=np.float32))

    def scores(
        self, query_vector: npt.NDArray[np.float32], rows: int, chunk_weight: float = 1.0
    ) -> npt.NDArray[np.float32]:
        """Cosine of each of ``rows`` rows with the question: the best of its own vector's and
        of its chunks' (each times ``chunk_weight``; 0: the rows' own vectors only). 0 for rows
        without a vector: provisions added after the build have none until the next build."""
        cosine = (self.matrix @ query_vector).astype(np.float32)
        if chunk_weight and len(self.chunk_rows):
            np.maximum.at(cosine, self.chunk_rows, chunk_weight * (self.chunks @ query_vector))
        if rows > len(cosine):
            cosine = np.concatenate([cosine, np.zeros(rows - len(cosine), dtype=np.float32)])
        return cosine

    def forget(self, row: int) -> None:
        """Row ``row`` no longer holds what was embedded (its node was replaced)."""
        if row < len(self.matrix):
            self.matrix[row] = 0.0
        if len(self.chunk_rows):
            self.chunks[self.chunk_rows == row] = 0.0

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes + self.chunks.nbytes)
