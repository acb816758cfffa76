"""A long provision's text past the model's 128 tokens has chunk vectors, and a row's cosine is
the best of its own vector's and its chunks' (ADR 0058, seventh-pass addendum)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from embeddings import VectorStore, content_key
from engine.retrieval import RetrievalConfig, Retriever
from engine.retrieval.dense import CHUNK_CHARS, CHUNK_MARK, chunk_texts, texts_of_graph
from engine.retrieval.documents import document_of
from graph.models import GraphEdge, GraphNode
from tests.unit.retrieval.conftest import part_of, provision
from tests.unit.retrieval.test_rule_vectors import TopicEmbedder

pytestmark = pytest.mark.unit

ACT = "EU:REG_2099_1"
# A paragraph whose first window is about widgets only; erasure comes past the 1,200 characters
# its own vector reads (the test embedder reads every word: the cut stands for the model's 128
# tokens).
FILLER = "Providers shall label every widget sold in the Union; " * 25
LONG = (
    f"1. {FILLER}the label shall state how a widget may be returned. "
    "(a) Erasure of the owner's records follows a return."
)


def _graph() -> tuple[list[GraphNode], list[GraphEdge]]:
    nodes = [
        GraphNode(id=ACT, label="EURegulation", properties={"name": "Widget Act"}),
        provision(f"{ACT}:ART_4", "Article", LONG + "\n2. Labels are kept.", "Widget labels"),
        provision(f"{ACT}:ART_4_1", "Paragraph", LONG),
        provision(f"{ACT}:ART_4_2", "Paragraph", "2. Labels are kept."),
        provision(
            f"{ACT}:ART_8", "Article", "Gadgets in hospitals: erasure of their records.", "Gadgets"
        ),
        provision(f"{ACT}:REC_2", "Recital", FILLER),
    ]
    edges = [part_of(f"{ACT}:ART_4_1", f"{ACT}:ART_4"), part_of(f"{ACT}:ART_4_2", f"{ACT}:ART_4")]
    return nodes, edges


def test_a_long_paragraph_has_chunks_after_its_first_window_each_after_its_heading() -> None:
    nodes, _ = _graph()
    docs = {n.id: d for n in nodes if (d := document_of(n)) is not None}
    chunks = chunk_texts(docs[f"{ACT}:ART_4_1"], docs, False)
    assert chunks and all(c.startswith("Widget labels. ") for c in chunks)
    assert all(len(c) <= len("Widget labels. ") + CHUNK_CHARS for c in chunks)
    assert "Erasure" in chunks[-1] and chunks[-1].endswith("follows a return.")
    assert not any(c.removeprefix("Widget labels. ").startswith("1.") for c in chunks)
    # A short paragraph, a recital and an article whose paragraphs are rows: no chunks.
    assert chunk_texts(docs[f"{ACT}:ART_4_2"], docs, False) == []
    assert chunk_texts(docs[f"{ACT}:REC_2"], docs, False) == []
    assert chunk_texts(docs[f"{ACT}:ART_4"], docs, True) == []
    texts = texts_of_graph(nodes, chunks=True)
    assert [texts[f"{ACT}:ART_4_1{CHUNK_MARK}{n}"] for n in range(1, len(chunks) + 1)] == chunks
    assert not any(CHUNK_MARK in i for i in texts_of_graph(nodes))  # off by default


def test_a_row_scores_as_the_best_of_its_vector_and_its_chunks() -> None:
    nodes, edges = _graph()
    embedder = TopicEmbedder()
    texts = sorted(set(texts_of_graph(nodes, chunks=True).values()))
    store = VectorStore(embedder.model, embedder.dimension)
    store.add([content_key(t) for t in texts], embedder.embed(texts))
    dense_only = frozenset({"dense"})
    question = "Can I have my records erased (erasure)?"
    on = RetrievalConfig(dense_chunks=0.9)
    with_chunks = Retriever(nodes, edges, on, embedder=embedder, vectors=store)
    found = with_chunks.search(question, 3, channels_used=dense_only)
    assert found.ids[0] == f"{ACT}:ART_4", found.ids
    dense = with_chunks.dense
    assert dense is not None and len(dense.chunk_rows) > 0 and dense.missing == 0
    vector = with_chunks.query_vector(question)
    assert vector is not None
    row = with_chunks._rows.row_of[f"{ACT}:ART_4_1"]
    pooled, own = (
        dense.scores(vector, len(with_chunks), 1.0),
        dense.scores(vector, len(with_chunks), 0.0),
    )
    assert pooled[row] > own[row] + 0.3  # the erasure is in a chunk only
    # A saved index keeps its chunks (engine.retrieval.cache pickles the retriever).
    loaded = pickle.loads(pickle.dumps(with_chunks))
    loaded.attach(embedder)
    assert loaded.search(question, 3, channels_used=dense_only).ids == found.ids
    # Chunks off (the default): the paragraph's own vector never saw the erasure; a weaker
    # match ranks first.
    off = Retriever(nodes, edges, RetrievalConfig(), embedder=embedder, vectors=store)
    assert off.search(question, 3, channels_used=dense_only).ids[0] == f"{ACT}:ART_8"
    assert off.dense is not None and len(off.dense.chunk_rows) == 0  # off: none loaded
    # As a channel of its own beside the rows' own vectors, the chunks lift the paragraph too.
    channel = RetrievalConfig(dense_chunk_channel=0.5)
    both = Retriever(nodes, edges, channel, embedder=embedder, vectors=store)
    assert both.dense is not None and len(both.dense.chunk_rows) > 0
    scored = {h.node.id: h.score for h in both.search(question, 3, channels_used=dense_only).hits}
    alone = {h.node.id: h.score for h in off.search(question, 3, channels_used=dense_only).hits}
    assert scored[f"{ACT}:ART_4"] > alone.get(f"{ACT}:ART_4", 0.0)
    # A chunk the store lacks waits for `regintel embed`, counted as missing.
    chunk = texts_of_graph(nodes, chunks=True)[f"{ACT}:ART_4_1{CHUNK_MARK}1"]
    partial = VectorStore(embedder.model, embedder.dimension)
    kept = [t for t in texts if t != chunk]
    partial.add([content_key(t) for t in kept], np.asarray(embedder.embed(kept)))
    lacking = Retriever(nodes, edges, on, embedder=embedder, vectors=partial)
    assert lacking.dense is not None and lacking.dense.missing == 1
