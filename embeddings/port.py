"""The :class:`Embedder` port: texts in, unit-length vectors out.

Three adapters implement it (``build_embedder`` picks one from settings): the local
sentence-embedding model run with numpy (:mod:`embeddings.minilm`, the default), an
OpenAI-compatible ``/v1/embeddings`` client (:mod:`embeddings.openai_compat`) and
:class:`NoEmbedder` (lexical retrieval only, always available).

The port is synchronous on purpose: the evidence search that embeds the question is a
synchronous CPU step of the turn (``engine.evidence``), and the local model encodes a question in
a few milliseconds. A remote embedder blocks for its round trip; its timeout is short and a
failure leaves the search lexical (docs/adr, "sentence embeddings").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

__all__ = ["Embedder", "NoEmbedder", "Vectors", "normalise"]

Vectors = NDArray[np.float32]
"""A ``(texts, dimension)`` float32 matrix whose rows have unit length."""


@runtime_checkable
class Embedder(Protocol):
    """Sentence embeddings for retrieval."""

    @property
    def model(self) -> str:
        """The model's name, recorded beside the vectors (a mismatch must be noticed)."""
        ...

    @property
    def dimension(self) -> int:
        """Length of each vector; 0 for :class:`NoEmbedder`."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One unit-length row per text, in order."""
        ...

    def close(self) -> None:
        """Release what the adapter holds (an HTTP pool); using it afterwards is a defect."""
        ...


class NoEmbedder:
    """No semantic channel: retrieval stays lexical (BM25, references, graph)."""

    model = "none"
    dimension = 0

    def embed(self, texts: Sequence[str]) -> Vectors:
        return np.zeros((len(texts), 0), dtype=np.float32)

    def close(self) -> None:
        return None


def normalise(matrix: NDArray[np.floating]) -> Vectors:
    """Rows scaled to unit length (a zero row stays zero)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.asarray(matrix / np.maximum(norms, 1e-12), dtype=np.float32)
