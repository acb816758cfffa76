"""Two query-side switches of the fusion (issue 22, sixth pass; off by default, ADR 0058
addendum): the lexical channel's weight scaled by how much of the question its own best units
cover (``lexical_trust``), and the question's vector moved towards its best rows' mean before
the semantic channel ranks (``dense_feedback``, Rocchio), while the gate still reads the
question's own vector."""

from __future__ import annotations

from dataclasses import replace

import pytest

from embeddings import VectorStore, content_key
from engine.retrieval import RetrievalConfig, Retriever
from engine.retrieval.dense import texts_of_graph
from graph.models import GraphEdge, GraphNode
from tests.unit.retrieval.test_gate_semantic_weight import LEANING, QUESTION, LeaningEmbedder

pytestmark = pytest.mark.unit


def retriever_over(graph: tuple[list[GraphNode], list[GraphEdge]]) -> Retriever:
    nodes, edges = graph
    texts = texts_of_graph(nodes)
    embedder = LeaningEmbedder(texts)
    store = VectorStore(embedder.model, embedder.dimension)
    unique = sorted(set(texts.values()))
    store.add([content_key(t) for t in unique], embedder.embed(unique))
    return Retriever(nodes, edges, RetrievalConfig(), embedder=embedder, vectors=store)


def test_both_switches_are_off_by_default() -> None:
    config = RetrievalConfig()
    assert config.lexical_trust == 0.0 and config.dense_feedback == 0.0


def test_a_lexical_channel_that_covers_little_of_the_question_counts_less(
    small_graph: tuple[list[GraphNode], list[GraphEdge]],
) -> None:
    retriever = retriever_over(small_graph)
    plain = retriever.search(QUESTION, 5)
    top = [i.rsplit(":", 1)[1] for i in plain.ids[:3]]
    assert "ART_5" in top and top != list(LEANING)  # the words find Article 5
    # A bar far above any coverage: the lexical channel's weight falls to a sliver of the
    # semantic channel's, whose order (LEANING) takes the top ranks.
    retriever.config = replace(retriever.config, lexical_trust=50.0)
    trusted = retriever.search(QUESTION, 5)
    assert [i.rsplit(":", 1)[1] for i in trusted.ids[:3]] == list(LEANING)  # Art 5 pushed down
    assert trusted.verdict == plain.verdict  # the gate reads coverage, not the weights


def test_feedback_moves_the_ranking_vector_but_not_the_gate(
    small_graph: tuple[list[GraphNode], list[GraphEdge]],
) -> None:
    retriever = retriever_over(small_graph)
    # No word of it is in the graph; its vector is the test embedder's question vector, whose
    # best cosine (0.5, Article 12) is under the gate's similarity bar (0.55): refused.
    question = "Blorf zxq quuxes?"
    before = retriever.search(question, 5)
    assert not before.verdict.answerable
    retriever.config = replace(retriever.config, dense_feedback=1.0, dense_feedback_depth=1)
    after = retriever.search(question, 5)
    # Moved halfway to Article 12 its cosine there would be 0.87, over the bar: the ranking
    # uses the moved vector (Article 12 stays first), the gate the question's own.
    assert before.ids[0].endswith(":ART_12") and after.ids[0].endswith(":ART_12")
    assert after.verdict == before.verdict
