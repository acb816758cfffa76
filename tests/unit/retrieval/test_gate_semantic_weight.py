"""The relevance gate does not refuse what the question's words find because the semantic
channel is weighted up (ADR 0045, third session): over the 3-act e2e graph, dense recitals
flowing to their articles moved GDPR recital 66 out of the fused top three for "Can I get an
online shop to delete all the personal data it has on me?", the coverage of the fused top three
fell under the bar and the question was refused as ``no_evidence``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from embeddings import Vectors, VectorStore, content_key
from engine.retrieval import RetrievalConfig, Retriever
from engine.retrieval.dense import texts_of_graph
from graph.models import GraphEdge, GraphNode

pytestmark = pytest.mark.unit

QUESTION = "Which of the following widget practices are prohibited?"
# The semantic channel prefers three provisions that share one word ("widget") with the
# question, at cosines under the gate's similarity bar; the lexical channel finds Article 5.
LEANING = {"ART_12": 0.5, "ANNEX_III": 0.45, "REC_3": 0.4}


class LeaningEmbedder:
    model = "test/leaning"
    dimension = 16

    def __init__(self, texts: dict[str, str]) -> None:
        self._axis = {text: i for i, text in enumerate(sorted(set(texts.values())))}
        self._question = np.zeros(self.dimension, dtype=np.float32)
        for node_id, cosine in LEANING.items():
            text = next(t for i, t in texts.items() if i.endswith(node_id))
            self._question[self._axis[text]] = cosine
        self._question[-1] = float(np.sqrt(1.0 - float(self._question @ self._question)))

    def embed(self, texts: Sequence[str]) -> Vectors:
        rows = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            if text in self._axis:
                rows[row, self._axis[text]] = 1.0
            else:
                rows[row] = self._question
        return rows

    def close(self) -> None:
        return None


def test_weighting_the_semantic_channel_up_does_not_refuse_what_the_words_find(
    small_graph: tuple[list[GraphNode], list[GraphEdge]],
) -> None:
    nodes, edges = small_graph
    texts = texts_of_graph(nodes)
    assert len(set(texts.values())) < LeaningEmbedder.dimension
    embedder = LeaningEmbedder(texts)
    store = VectorStore(embedder.model, embedder.dimension)
    unique = sorted(set(texts.values()))
    store.add([content_key(t) for t in unique], embedder.embed(unique))
    config = RetrievalConfig(dense_weight=1.0)
    retriever = Retriever(nodes, edges, config, embedder=embedder, vectors=store)
    lexical = retriever.search(QUESTION, 5, channels_used=frozenset({"lexical"}))
    assert lexical.verdict.answerable and lexical.ids[0].endswith(":ART_5")
    retriever.config = replace(config, dense_weight=100.0)
    fused = retriever.search(QUESTION, 5)
    assert [i.rsplit(":", 1)[1] for i in fused.ids[:3]] == list(LEANING)  # Article 5 pushed down
    assert fused.verdict.answerable, fused.verdict
