"""The built retriever, kept on disk by what it was built from (ADR 0045).

Building the retriever over the 49 acts (17,000 rows: tokens, two BM25 indexes, recital links,
the dense matrix, the act catalogue) takes tens of seconds of CPU, and the evidence index
rebuilds at every server start. :func:`build_retriever` keys a build by the sha256 of
everything it reads — every node (id, label, properties) and edge, the configuration, the
embedder's model and dimension, which texts the vector store holds, and the source of the
retrieval package itself — and, with an :class:`IndexCache`, loads the build it saved under that
key instead of building again. A start on an unchanged graph loads; any change of graph, vectors,
settings or code is a new key and builds afresh (then saves). The file holds public legal text
and what was derived from the graph; it is written atomically and read only from the data folder
the deployment owns.

The embedder is not saved (a local model is 90 MB, a remote one a client): it is attached again
at load.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import structlog

from embeddings import Embedder, VectorStore
from engine.retrieval.retriever import RetrievalConfig, Retriever
from graph.models import GraphEdge, GraphNode

__all__ = ["IndexCache", "build_retriever", "index_key"]

log = structlog.get_logger(__name__)

_PACKAGE = Path(__file__).resolve().parent
_FORMAT = b"regintel-retriever-1"


def _code_digest() -> bytes:
    """The retrieval package's source: a change of code is a change of index."""
    digest = hashlib.sha256(_FORMAT)
    for path in sorted(_PACKAGE.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.digest()


def index_key(
    nodes: Sequence[GraphNode],
    edges: Sequence[GraphEdge],
    config: RetrievalConfig,
    embedder: Embedder | None,
    vectors: VectorStore | None,
) -> str:
    """The sha256 of everything a build reads (see the module docstring), in hex."""
    digest = hashlib.sha256(_code_digest())
    digest.update(repr(config).encode())
    if embedder is not None and vectors is not None:
        digest.update(f"{embedder.model}\0{embedder.dimension}\0".encode())
        digest.update(vectors.fingerprint())
    for node in sorted(nodes, key=lambda n: n.id):
        digest.update(f"{node.id}\0{node.label}\0".encode())
        digest.update(json.dumps(node.properties, sort_keys=True, default=str).encode())
    for edge in sorted(edges, key=lambda e: (e.source, e.type, e.target)):
        digest.update(f"\1{edge.source}\0{edge.type}\0{edge.target}\0".encode())
        if edge.properties:
            digest.update(json.dumps(edge.properties, sort_keys=True, default=str).encode())
    return digest.hexdigest()


class IndexCache:
    """Built retrievers in ``directory``, one file per key; the newest ``keep`` are kept. A
    build quicker than ``min_build_s`` is not worth a file (a small graph: tests, a fresh
    tenant) and is not saved."""

    def __init__(self, directory: Path, *, keep: int = 2, min_build_s: float = 1.0) -> None:
        self.directory = directory
        self.min_build_s = min_build_s
        self._keep = keep

    def _path(self, key: str) -> Path:
        return self.directory / f"retriever-{key[:32]}.pickle"

    def load(self, key: str, embedder: Embedder | None) -> Retriever | None:
        """The retriever saved under ``key`` (its embedder attached), or ``None``."""
        path = self._path(key)
        try:
            with path.open("rb") as file:
                saved = pickle.load(file)  # our own file, in our data folder
        except FileNotFoundError:
            return None
        except Exception:  # a torn or foreign file: build instead, and overwrite it
            log.warning("retriever_cache_unreadable", path=str(path), exc_info=True)
            return None
        if not isinstance(saved, tuple) or len(saved) != 2 or saved[0] != key:
            return None
        retriever = saved[1]
        if not isinstance(retriever, Retriever):
            return None
        retriever.attach(embedder)
        return retriever

    def save(self, key: str, retriever: Retriever) -> None:
        """Write atomically (a reader never sees half a file), then drop the oldest files."""
        self.directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".pickle.tmp")
        try:
            with os.fdopen(handle, "wb") as file:
                pickle.dump((key, retriever), file, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, self._path(key))
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        saved = sorted(self.directory.glob("retriever-*.pickle"), key=lambda p: p.stat().st_mtime)
        for old in saved[: -self._keep] if self._keep > 0 else saved:
            old.unlink(missing_ok=True)


def build_retriever(
    nodes: Iterable[GraphNode],
    edges: Iterable[GraphEdge] = (),
    config: RetrievalConfig | None = None,
    *,
    embedder: Embedder | None = None,
    vectors: VectorStore | None = None,
    cache: IndexCache | None = None,
    previous: Retriever | None = None,
) -> Retriever:
    """``Retriever(nodes, edges, ...)``: ``previous`` (the retriever being replaced) when it can
    :meth:`~Retriever.absorb` the difference (a confirmation: only its nodes are indexed), else
    the build ``cache`` holds for this very graph, else a build (saved to ``cache`` unless the
    embedder failed on some of its rows: the next start then builds again)."""
    node_list, edge_list = list(nodes), list(edges)
    config = config or RetrievalConfig()
    started = time.perf_counter()
    absorbed = (
        previous.absorb(node_list, edge_list)
        if previous is not None and previous.config == config
        else None
    )
    if absorbed is not None:
        # Not saved: the next start loads the last full build's file, or builds.
        log.info("retriever_absorbed", ms=(time.perf_counter() - started) * 1000)
        return absorbed
    if cache is None:
        return Retriever(node_list, edge_list, config, embedder=embedder, vectors=vectors)
    key = index_key(node_list, edge_list, config, embedder, vectors)
    loaded = cache.load(key, embedder)
    if loaded is not None:
        log.info("retriever_loaded", rows=len(loaded), ms=(time.perf_counter() - started) * 1000)
        return loaded
    building = time.perf_counter()
    retriever = Retriever(node_list, edge_list, config, embedder=embedder, vectors=vectors)
    failed = retriever.dense.failed if retriever.dense is not None else 0
    try:
        if failed:  # an incomplete build: the next start builds again rather than load it
            log.warning("retriever_not_saved_embedding_failed", rows=failed)
        elif time.perf_counter() - building >= cache.min_build_s:
            cache.save(key, retriever)
    except OSError:  # a read-only or full disk costs the next start a build, nothing else
        log.warning("retriever_cache_not_saved", exc_info=True)
    log.info("retriever_built", rows=len(retriever), ms=(time.perf_counter() - started) * 1000)
    return retriever
