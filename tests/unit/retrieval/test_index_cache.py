"""The built retriever kept on disk by what it was built from (ADR 0045): a start on an
unchanged graph loads it instead of building, any change builds afresh, and a rebuild
tokenises only the texts it has not seen."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from embeddings import Vectors, VectorStore, content_key, normalise
from engine.retrieval import Retriever, rows
from engine.retrieval import cache as cache_module
from engine.retrieval import dense as dense_module
from engine.retrieval.cache import IndexCache, build_retriever
from engine.retrieval.dense import texts_of_graph
from engine.retrieval.tokenise import tokenise
from errors import AdapterClosed
from graph.models import GraphEdge, GraphNode

pytestmark = pytest.mark.unit

Graph = tuple[list[GraphNode], list[GraphEdge]]


class HashEmbedder:
    model = "test/hash"
    dimension = 8

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        rows_ = [[float((hash(t) >> i) % 7) + 1.0 for i in range(8)] for t in texts]
        return normalise(np.array(rows_, dtype=np.float32))

    def close(self) -> None:
        return None


def _vectors(nodes: list[GraphNode], embedder: HashEmbedder) -> VectorStore:
    store = VectorStore(embedder.model, embedder.dimension)
    texts = sorted(set(texts_of_graph(nodes).values()))
    store.add([content_key(t) for t in texts], embedder.embed(texts))
    return store


def _built(graph: Graph, cache: IndexCache, embedder: HashEmbedder) -> Retriever:
    nodes, edges = graph
    return build_retriever(
        nodes, edges, embedder=embedder, vectors=_vectors(nodes, embedder), cache=cache
    )


def test_an_unchanged_graph_is_loaded_not_built(
    small_graph: Graph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = HashEmbedder()
    cache = IndexCache(tmp_path, min_build_s=0)
    first = _built(small_graph, cache, embedder)
    assert len(list(tmp_path.glob("retriever-*.pickle"))) == 1

    def no_build(*_: object, **__: object) -> None:
        raise AssertionError("built again")

    monkeypatch.setattr(Retriever, "__init__", no_build)
    again = _built(small_graph, cache, embedder)
    assert again is not first and len(again) == len(first)
    for question in ("glowing widgets", "penalties for widgets", "Article 5 Widget Act"):
        found, expected = again.search(question, 5), first.search(question, 5)
        assert found.ids == expected.ids and found.verdict == expected.verdict
    assert again.dense is not None and again.dense.embedder is embedder  # attached at load


def test_a_changed_node_builds_afresh(small_graph: Graph, tmp_path: Path) -> None:
    embedder = HashEmbedder()
    cache = IndexCache(tmp_path, keep=5, min_build_s=0)
    nodes, edges = small_graph
    _built((nodes, edges), cache, embedder)
    changed = [
        n.model_copy(update={"properties": {**n.properties, "text": "Sparkling gizmos."}})
        if n.id.endswith(":ART_5_1")
        else n
        for n in nodes
    ]
    rebuilt = _built((changed, edges), cache, embedder)
    assert len(list(tmp_path.glob("retriever-*.pickle"))) == 2
    assert rebuilt.search("sparkling gizmos", 3).ids[:1] in (["EU:REG_2099_1:ART_5"],
                                                             ["EU:REG_2099_1:ART_5_1"])  # fmt: skip


def test_a_torn_cache_file_is_rebuilt(small_graph: Graph, tmp_path: Path) -> None:
    embedder = HashEmbedder()
    cache = IndexCache(tmp_path, min_build_s=0)
    _built(small_graph, cache, embedder)
    [saved] = tmp_path.glob("retriever-*.pickle")
    saved.write_bytes(saved.read_bytes()[:100])
    assert len(_built(small_graph, cache, embedder)) > 0
    assert saved.stat().st_size > 100  # overwritten by the rebuild


def test_a_quick_build_is_not_saved(small_graph: Graph, tmp_path: Path) -> None:
    _built(small_graph, IndexCache(tmp_path, min_build_s=60), HashEmbedder())
    assert not list(tmp_path.glob("retriever-*.pickle"))


def test_a_rebuild_tokenises_only_new_texts(
    small_graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    nodes, edges = small_graph
    Retriever(nodes, edges)
    seen: list[str] = []

    def counting(text: str) -> list[str]:
        seen.append(text)
        return tokenise(text)

    monkeypatch.setattr(rows, "tokenise", counting)
    concept = GraphNode(
        id="EU:CONCEPT:GLOW", label="Concept",
        properties={"domain": "EU", "kind": "GLOW", "jurisdiction": "EU",
                    "pref_label": "glowing widget", "status": "confirmed"},
    )  # fmt: skip
    Retriever([*nodes, concept], edges)
    assert len(seen) == 1 and "glowing widget" in seen[0]


def _confirmed(graph: Graph) -> Graph:
    nodes, edges = graph
    concept = GraphNode(
        id="EU:CONCEPT:SPARKLE", label="Concept",
        properties={"domain": "EU", "kind": "SPARKLE", "jurisdiction": "EU",
                    "pref_label": "sparkle certificate", "status": "confirmed"},
    )  # fmt: skip
    label = GraphNode(
        id="LABEL:shimmer_permit", label="Label", properties={"text": "shimmer permit"}
    )
    edge = GraphEdge(source=concept.id, target=label.id, type="HAS_ALT_LABEL")
    return [*nodes, concept, label], [*edges, edge]


def test_a_confirmation_is_absorbed_without_a_build(
    small_graph: Graph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = HashEmbedder()
    cache = IndexCache(tmp_path, min_build_s=0)
    first = _built(small_graph, cache, embedder)
    nodes, edges = _confirmed(small_graph)

    def no_build(*_: object, **__: object) -> None:
        raise AssertionError("built again")

    monkeypatch.setattr(Retriever, "__init__", no_build)
    store = _vectors(small_graph[0], embedder)
    after = build_retriever(
        nodes, edges, embedder=embedder, vectors=store, cache=cache, previous=first
    )
    assert after is not first and len(after) == len(first) + 1
    assert "EU:CONCEPT:SPARKLE" in after.search("shimmer permit", 5).ids  # by its alt label
    assert "EU:CONCEPT:SPARKLE" not in first.search("shimmer permit", 5).ids  # untouched


@pytest.mark.parametrize("change", ["provision", "removed", "edge"])
def test_anything_but_a_confirmation_is_built_afresh(small_graph: Graph, change: str) -> None:
    nodes, edges = small_graph
    first = Retriever(nodes, edges)
    if change == "provision":
        nodes = [
            n.model_copy(update={"properties": {**n.properties, "text": "Changed."}})
            if n.label == "Article"
            else n
            for n in nodes
        ]
    elif change == "removed":
        nodes = nodes[1:]
    else:
        edges = [*edges, GraphEdge(source=nodes[2].id, target=nodes[3].id, type="CITES")]
    before = first.search("glowing widgets", 5).ids
    assert first.absorb(nodes, edges) is None
    assert first.search("glowing widgets", 5).ids == before  # untouched


class ClosedEmbedder(HashEmbedder):
    """An embedder closed under a build still running (the seed command's shutdown)."""

    def embed(self, texts: Sequence[str]) -> Vectors:
        raise AdapterClosed("the local embedding model was closed")


def test_a_build_whose_embedder_failed_is_not_kept(
    small_graph: Graph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows the embedder could not embed at build stay lexical only in that build; kept on disk,
    the next start on the same graph would load it and never embed them. Not kept: the next
    start, with a working embedder, builds with every vector."""
    nodes, edges = small_graph
    # Logs recorded by a stand-in per module: structlog's capture_logs misses a logger cached
    # under an earlier app's configuration in the same worker (the full suite's CI failure).
    logs: list[dict[str, object]] = []

    class Recorder:
        def __getattr__(self, level: str):
            return lambda event, **kw: logs.append({"event": event, "log_level": level, **kw})

    for module in (cache_module, dense_module):
        monkeypatch.setattr(module, "log", Recorder())
    empty = VectorStore(HashEmbedder.model, HashEmbedder.dimension)  # nothing embedded yet
    cache = IndexCache(tmp_path, min_build_s=0)
    failed = build_retriever(nodes, edges, embedder=ClosedEmbedder(), vectors=empty, cache=cache)
    assert failed.dense is not None and failed.dense.failed > 0
    # a shutdown, not a fault: one quiet line, no warning with a traceback
    assert [e["event"] for e in logs if e["log_level"] == "warning"] == [
        "retriever_not_saved_embedding_failed"
    ]
    assert "embedding_at_build_skipped_closed" in [e["event"] for e in logs]
    assert list(tmp_path.glob("retriever-*.pickle")) == []
    working = HashEmbedder()
    again = build_retriever(nodes, edges, embedder=working, vectors=empty, cache=cache)
    assert again.dense is not None and again.dense.failed == 0 and working.calls >= 1
    assert len(list(tmp_path.glob("retriever-*.pickle"))) == 1
