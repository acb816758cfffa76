"""Which recitals explain which operative provisions, inferred from the text at index build time.

Recitals say in plainer words what a provision is for ("chatbots", "deceased persons", "the
website of a controller"), but the acts print no link from a recital to its article, and the
graph holds none. A link is inferred within each act:

- **lexically**: the cosine similarity of TF-IDF vectors (sublinear term frequency, IDF over the
  act's recitals, articles and annexes, on the tokens the index uses) between each recital and
  each article or annex of the same act;
- **explicitly**: a recital that cites a provision of its own act (a ``CITES`` edge, which
  ``corpus`` draws from "Article 5(1) ... of this Regulation") is linked to it with similarity 1.

Each article and annex keeps its ``per_unit`` most similar recitals, with their similarity. The
retriever lets a recital's match flow to the provisions it explains (``rows.RowTable``), so a
question in the recitals' words reaches the operative article (ADR 0012).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from engine.retrieval.documents import DocKind, RetrievalDoc
from engine.retrieval.structure import GraphStructure

__all__ = [
    "RecitalLinks",
    "link_recitals",
]

# Unit id -> its recitals, each ``(recital id, similarity in [0, 1])``, most similar first.
RecitalLinks = dict[str, tuple[tuple[str, float], ...]]

_TARGETS = frozenset({DocKind.ARTICLE, DocKind.ANNEX})


def _tfidf(documents: Sequence[Sequence[str]]) -> npt.NDArray[np.float32]:
    """Rows of L2-normalised TF-IDF vectors (``1 + log tf`` times ``log(N / df)``)."""
    frequency: Counter[str] = Counter()
    for tokens in documents:
        frequency.update(set(tokens))
    vocabulary = {term: column for column, term in enumerate(sorted(frequency))}
    size = len(documents)
    matrix = np.zeros((size, len(vocabulary)), dtype=np.float32)
    for row, tokens in enumerate(documents):
        for term, count in Counter(tokens).items():
            matrix[row, vocabulary[term]] = (1.0 + math.log(count)) * math.log(
                size / frequency[term]
            )
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def link_recitals(
    docs: Mapping[str, RetrievalDoc],
    tokens: Mapping[str, Sequence[str]],
    shape: GraphStructure,
    per_unit: int,
) -> RecitalLinks:
    """Link each article and annex to the ``per_unit`` recitals of its act that explain it best.

    ``tokens`` holds the index tokens of the recitals, articles and annexes to link (others in
    it are ignored); a unit with no recital of any similarity gets no entry.
    """
    by_act: dict[str, tuple[list[str], list[str]]] = {}
    for doc_id in sorted(tokens):
        doc = docs[doc_id]
        if doc.instrument_id is None:
            continue
        recitals, units = by_act.setdefault(doc.instrument_id, ([], []))
        if doc.kind is DocKind.RECITAL:
            recitals.append(doc_id)
        elif doc.kind in _TARGETS:
            units.append(doc_id)
    links: RecitalLinks = {}
    for recitals, units in by_act.values():
        if not recitals or not units or per_unit <= 0:
            continue
        vectors = _tfidf([tokens[i] for i in recitals + units])
        similarity = vectors[len(recitals) :] @ vectors[: len(recitals)].T  # units x recitals
        unit_row = {unit: row for row, unit in enumerate(units)}
        for column, recital in enumerate(recitals):
            for target in shape.cites.get(recital, []):
                if target in unit_row:
                    similarity[unit_row[target], column] = 1.0
        for row, unit in enumerate(units):
            order = np.argsort(-similarity[row], kind="stable")[:per_unit]
            chosen = tuple(
                (recitals[c], float(similarity[row, c]))
                for c in order.tolist()
                if similarity[row, c] > 0
            )
            if chosen:
                links[unit] = chosen
    return links
