"""BM25 over token lists (``bm25s``), plus an overlay for nodes added after the build.

The base index is built once from a snapshot; ``bm25s`` scores every document for a query in one
sparse pass (``get_scores``), so the retriever can split the scores by kind and filter them with
numpy masks. A node added or replaced later (a concept created mid-conversation) goes into a small
overlay scored with the same Lucene BM25 formula and the base index's statistics; a replaced base
row is masked out. The overlay is meant to stay small: the owner rebuilds in the background.
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Sequence
from typing import Final

import bm25s
import numpy as np
import numpy.typing as npt

__all__ = [
    "K1",
    "B",
    "LexicalIndex",
    "Scores",
]

K1: Final = 1.5
B: Final = 0.75
Scores = npt.NDArray[np.float32]


class LexicalIndex:
    """BM25 scores of a query against every document, base rows then overlay rows."""

    def __init__(self, documents: Sequence[Sequence[str]]) -> None:
        self._size = len(documents)
        self._document_frequency: Counter[str] = Counter()
        for tokens in documents:
            self._document_frequency.update(set(tokens))
        lengths = [len(tokens) for tokens in documents]
        self._average_length = (sum(lengths) / len(lengths)) if lengths else 1.0
        self._bm25: bm25s.BM25 | None = None
        if documents:
            self._bm25 = bm25s.BM25(k1=K1, b=B, method="lucene")
            # An empty document would break bm25s' vocabulary; it can never match anyway.
            self._bm25.index([list(tokens) or [""] for tokens in documents], show_progress=False)
        self._shadowed = np.ones(self._size, dtype=np.float32)
        self._overlay: list[Counter[str]] = []
        self._overlay_lengths: list[int] = []

    def __len__(self) -> int:
        return self._size + len(self._overlay)

    @property
    def base_size(self) -> int:
        return self._size

    def idf(self, token: str) -> float:
        """Lucene IDF from the base statistics (an unseen token counts as seen once)."""
        frequency = max(self._document_frequency.get(token, 0), 1)
        return math.log(1.0 + (self._size - frequency + 0.5) / (frequency + 0.5))

    def known(self, token: str) -> bool:
        return token in self._document_frequency

    def copy(self) -> LexicalIndex:
        """A copy whose overlay can change without changing this one (the base index, which
        never changes, is shared)."""
        twin = copy.copy(self)
        twin._shadowed = self._shadowed.copy()
        twin._overlay = list(self._overlay)
        twin._overlay_lengths = list(self._overlay_lengths)
        return twin

    def add(self, tokens: Sequence[str]) -> int:
        """Add an overlay document; return its row number."""
        self._overlay.append(Counter(tokens))
        self._overlay_lengths.append(len(tokens))
        return self._size + len(self._overlay) - 1

    def replace(self, row: int, tokens: Sequence[str]) -> int:
        """New text for ``row``; returns the row that now holds it (a base row moves)."""
        if row < self._size:
            self._shadowed[row] = 0.0
            return self.add(tokens)
        slot = row - self._size
        self._overlay[slot] = Counter(tokens)
        self._overlay_lengths[slot] = len(tokens)
        return row

    def scores(self, query: Sequence[str]) -> Scores:
        """One score per row (base rows first), 0 where nothing matches."""
        terms = list(dict.fromkeys(query))
        if self._bm25 is not None and terms:
            raw: Scores = np.asarray(self._bm25.get_scores(terms), dtype=np.float32)
            base = raw * self._shadowed
        else:
            base = np.zeros(self._size, dtype=np.float32)
        if not self._overlay:
            return base
        extra = np.zeros(len(self._overlay), dtype=np.float32)
        for slot, counts in enumerate(self._overlay):
            norm = K1 * (1 - B + B * self._overlay_lengths[slot] / self._average_length)
            extra[slot] = sum(
                self.idf(t) * counts[t] / (counts[t] + norm) for t in terms if counts[t]
            )
        return np.concatenate([base, extra])
