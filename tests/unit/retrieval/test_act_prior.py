"""The act prior (issue 22, ADR 0081): on by default, one more semantic channel inside the acts
whose provisions the question's vector is closest to; it re-ranks, and the relevance gate reads
the order without it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from embeddings import Vectors, VectorStore, content_key
from engine.retrieval import RetrievalConfig, Retriever
from engine.retrieval.dense import texts_of_graph
from graph.models import GraphEdge, GraphNode
from tests.unit.retrieval.conftest import provision

pytestmark = pytest.mark.unit

WIDGETS = "EU:REG_2099_1"
GADGETS = "EU:REG_2098_7"
SPROCKETS = "EU:REG_2097_3"
QUESTION = "Which glowing widgets are banned?"
# The question's vector leans on six gadget articles (none of them uses its words) and on one
# sprocket article; only the widget article has its words.
LEANING = {f"{GADGETS}:ART_{n}": 0.9 - 0.05 * n for n in range(1, 7)} | {f"{SPROCKETS}:ART_1": 0.3}


def graph() -> tuple[list[GraphNode], list[GraphEdge]]:
    nodes = [
        GraphNode(id=act, label="EURegulation", properties={"name": f"Regulation {act}"})
        for act in (WIDGETS, GADGETS, SPROCKETS)
    ]
    nodes.append(provision(f"{WIDGETS}:ART_1", "Article", "Glowing widgets are banned.", "Ban"))
    nodes += [
        provision(f"{GADGETS}:ART_{n}", "Article", f"Gadget rule number {n} applies.", "Rule")
        for n in range(1, 7)
    ]
    nodes.append(provision(f"{SPROCKETS}:ART_1", "Article", "Sprockets are oiled.", "Oil"))
    return nodes, []


class LeaningEmbedder:
    model = "test/leaning-acts"
    dimension = 16

    def __init__(self, texts: dict[str, str]) -> None:
        self._axis = {text: i for i, text in enumerate(sorted(set(texts.values())))}
        self._question = np.zeros(self.dimension, dtype=np.float32)
        for node_id, cosine in LEANING.items():
            self._question[self._axis[texts[node_id]]] = cosine
        self._question /= np.linalg.norm(self._question)

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


def retriever(config: RetrievalConfig) -> Retriever:
    nodes, edges = graph()
    texts = texts_of_graph(nodes)
    assert len(set(texts.values())) < LeaningEmbedder.dimension
    embedder = LeaningEmbedder(texts)
    store = VectorStore(embedder.model, embedder.dimension)
    unique = sorted(set(texts.values()))
    store.add([content_key(t) for t in unique], embedder.embed(unique))
    return Retriever(nodes, edges, config, embedder=embedder, vectors=store)


def test_it_is_on_by_default_over_two_acts() -> None:
    config = RetrievalConfig()
    assert (config.act_prior, config.act_prior_acts) == (1.0, 2)


def test_the_prior_reranks_but_the_gate_reads_the_order_without_it() -> None:
    off = retriever(RetrievalConfig(act_prior=0.0)).search(QUESTION, 10)
    on = retriever(RetrievalConfig(act_prior=1.0, act_prior_acts=1)).search(QUESTION, 10)
    widget = f"{WIDGETS}:ART_1"
    # Without the prior the widget article, which alone has the question's words, is in the top
    # five; the prior (the gadget act's provisions once more) pushes it below five of them.
    assert off.ids.index(widget) < 5 <= on.ids.index(widget)
    assert all(i.startswith(GADGETS) for i in on.ids[:5])
    # Had the gate read that order, rule 5 would refuse: "glowing widgets" is in none of the
    # top five units. It reads the order without the prior: the same verdict as off.
    assert on.verdict == off.verdict
    assert on.verdict.answerable
