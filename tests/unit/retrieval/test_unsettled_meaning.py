"""The gate's rule 5 in meaning (issue 22, ADR 0087): every word of what a question asks for is
in the best evidence, but the phrase they make is far in meaning from all of it ("interest" in
a definition does not settle "what interest rate must a bank pay"): refused. The semantic
channel is a stand-in that points each text at the provision it means, so that the test
decides which phrases are near and which are far."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from embeddings import Vectors, VectorStore, content_key
from engine.retrieval import RefusalReason, RetrievalConfig, Retriever
from engine.retrieval.dense import texts_of_graph
from engine.retrieval.focus import asked_phrase
from graph.models import GraphEdge, GraphNode

pytestmark = pytest.mark.unit

Graph = tuple[list[GraphNode], list[GraphEdge]]
# Every asked-for word (glowing, widget, practices) is in Article 5: lexical rule 5 lets it by.
QUESTION = "Which glowing widget practices does the Widget Act prohibit?"
PHRASE = "glowing widget practices"


class PointingEmbedder:
    """One axis per graph text; other texts point at the graph text named for them in
    ``points`` (cosine 1 with it), or at an axis of their own (cosine 0 with every text)."""

    model = "test/pointing"

    def __init__(self, texts: dict[str, str], points: dict[str, str]) -> None:
        self._axis = {text: i for i, text in enumerate(sorted(set(texts.values())))}
        self.dimension = len(self._axis) + 1
        self._points = {
            said: next(t for i, t in texts.items() if i.endswith(node))
            for said, node in points.items()
        }

    def embed(self, texts: Sequence[str]) -> Vectors:
        rows = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            rows[row, self._axis.get(self._points.get(text, text), self.dimension - 1)] = 1.0
        return rows

    def close(self) -> None:
        return None


def _retriever(graph: Graph, points: dict[str, str], asked_similarity: float = 0.2) -> Retriever:
    nodes, edges = graph
    texts = texts_of_graph(nodes)
    embedder = PointingEmbedder(texts, points)
    store = VectorStore(embedder.model, embedder.dimension)
    unique = sorted(set(texts.values()))
    store.add([content_key(t) for t in unique], embedder.embed(unique))
    config = replace(RetrievalConfig(), asked_similarity=asked_similarity)
    return Retriever(nodes, edges, config, embedder=embedder, vectors=store)


def test_the_asked_phrase_is_the_words_between_the_question_word_and_the_verb() -> None:
    assert asked_phrase(QUESTION) == PHRASE
    assert asked_phrase("What  interest rate must a bank pay?") == "interest rate"
    assert asked_phrase("Can I cancel a bank transfer?") == ""


def test_an_asked_phrase_far_from_every_best_unit_is_refused(small_graph: Graph) -> None:
    # The question means Article 5 (the semantic channel finds it); the phrase means nothing
    # the graph holds.
    result = _retriever(small_graph, {QUESTION: "ART_5"}).search(QUESTION)
    assert result.ids[0].endswith(":ART_5")
    assert (result.verdict.answerable, result.verdict.reason) == (
        False,
        RefusalReason.NO_EVIDENCE,
    )


def test_off_the_words_alone_answer_it(small_graph: Graph) -> None:
    retriever = _retriever(small_graph, {QUESTION: "ART_5"}, asked_similarity=0.0)
    assert retriever.search(QUESTION).verdict.answerable


def test_an_asked_phrase_near_a_best_unit_is_answered(small_graph: Graph) -> None:
    retriever = _retriever(small_graph, {QUESTION: "ART_5", PHRASE: "ART_5_1"})
    assert retriever.search(QUESTION).verdict.answerable


def test_without_a_semantic_channel_the_words_decide(small_graph: Graph) -> None:
    assert Retriever(*small_graph).search(QUESTION).verdict.answerable
