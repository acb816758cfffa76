"""Sentence embeddings for retrieval: the :class:`Embedder` port, its adapters, and the vector
store kept beside the graph (issue 22; docs/adr, "sentence embeddings").

This package knows nothing of the graph or the chat turn: ``engine.retrieval.dense`` decides
what is embedded and ``api.bootstrap`` builds the embedder from settings.
"""

from embeddings.port import Embedder, NoEmbedder, Vectors, normalise
from embeddings.vectors import REEMBED_COMMAND, VectorStore, content_key, model_file_name

__all__ = [
    "REEMBED_COMMAND",
    "Embedder",
    "NoEmbedder",
    "VectorStore",
    "Vectors",
    "content_key",
    "model_file_name",
    "normalise",
]
