"""Rule nodes, concepts and acts have vectors too, so the semantic channel ranks them beside the
provisions (ADR 0058): with provisions only, its best cosines for a tax question were off-topic
provisions, and they pushed down the rule nodes the lexical channel had found."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from embeddings import Vectors, VectorStore, content_key, normalise
from engine.retrieval import RetrievalConfig, Retriever
from engine.retrieval.dense import texts_of_graph
from graph.models import GraphEdge, GraphNode

pytestmark = pytest.mark.unit

Graph = tuple[list[GraphNode], list[GraphEdge]]
TOPICS = ("vat", "widget", "erasure", "gadget", "penalt", "hospital")


class TopicEmbedder:
    """One axis per topic word a text holds (plus a constant axis): texts on one topic align."""

    model = "test/topics"
    dimension = len(TOPICS) + 1

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.embedded += texts
        rows = [[float(t in text.lower()) for t in TOPICS] + [0.1] for text in texts]
        return normalise(np.array(rows, dtype=np.float32))

    def close(self) -> None:
        return None


def _store(texts: Sequence[str], embedder: TopicEmbedder) -> VectorStore:
    store = VectorStore(embedder.model, embedder.dimension)
    unique = sorted(set(texts))
    store.add([content_key(t) for t in unique], embedder.embed(unique))
    return store


def test_a_rule_node_is_embedded_by_name_and_description_not_by_its_value(
    small_graph: Graph,
) -> None:
    nodes, _ = small_graph
    rate = next(n for n in nodes if n.id == "IE:RATE:VAT_STANDARD")
    text = texts_of_graph([rate])[rate.id]
    assert text == (
        "Standard rate of VAT (Ireland). The standard VAT rate on most goods and services in "
        "Ireland."
    )
    changed = rate.model_copy(update={"properties": {**rate.properties, "value": 24.0}})
    assert texts_of_graph([changed])[rate.id] == text  # a new rate keeps its vector
    texts = texts_of_graph(nodes)
    assert "TAX:IE:VAT" in texts and "EU:REG_2099_1" in texts  # a concept, an act
    assert texts["EU:REG_2099_1"] == (
        "Regulation (EU) 2099/1 (Widget Act). Regulation (EU) 2099/1 on widgets (Widget Safety Act)"
    )


def test_the_semantic_channel_ranks_rule_nodes_beside_provisions(small_graph: Graph) -> None:
    nodes, edges = small_graph
    embedder = TopicEmbedder()
    store = _store(list(texts_of_graph(nodes).values()), embedder)
    retriever = Retriever(nodes, edges, RetrievalConfig(), embedder=embedder, vectors=store)
    dense = retriever.search("How much VAT do I pay?", 5, channels_used=frozenset({"dense"}))
    assert dense.ids[0] in {"IE:RATE:VAT_STANDARD", "UK:RATE:VAT_STANDARD"}, dense.ids
    assert "TAX:IE:VAT" in dense.ids[:3]
    assert all(not i.startswith("EU:REG_2099_1:") for i in dense.ids[:3])


def test_a_rule_node_the_store_lacks_is_embedded_at_build_a_provision_waits(
    small_graph: Graph,
) -> None:
    nodes, edges = small_graph
    texts = texts_of_graph(nodes)
    embedder = TopicEmbedder()
    rate, article = texts["UK:RATE:VAT_STANDARD"], texts["EU:REG_2099_1:ART_12"]
    store = _store([t for t in texts.values() if t not in (rate, article)], embedder)
    embedder.embedded.clear()
    retriever = Retriever(nodes, edges, RetrievalConfig(), embedder=embedder, vectors=store)
    assert embedder.embedded == [rate]  # embedded at the build; the article waits for `embed`
    assert content_key(rate) in store and content_key(article) not in store
    dense = retriever.dense
    assert dense is not None and dense.missing == 1
    found = retriever.search("VAT in the United Kingdom", 5, channels_used=frozenset({"dense"}))
    assert "UK:RATE:VAT_STANDARD" in found.ids


def test_a_confirmed_concept_absorbed_after_the_build_has_its_vector_at_once(
    small_graph: Graph,
) -> None:
    nodes, edges = small_graph
    embedder = TopicEmbedder()
    store = _store(list(texts_of_graph(nodes).values()), embedder)
    # Without the act prior (ADR 0081): in a graph of two acts its channel holds every
    # provision, and five of them outrank the concept; the vector is what is tested here.
    config = RetrievalConfig(act_prior=0.0)
    first = Retriever(nodes, edges, config, embedder=embedder, vectors=store)
    concept = GraphNode(
        id="EU:CONCEPT:HOSPITAL_WIDGET", label="Concept",
        properties={"pref_label": "hospital widget", "status": "confirmed",
                    "definition": "A widget used in hospitals."},
    )  # fmt: skip
    after = first.absorb([*nodes, concept], edges)
    assert after is not None
    dense_only = frozenset({"dense"})
    assert concept.id in after.search("hospital equipment", 5, channels_used=dense_only).ids
    assert concept.id not in first.search("hospital equipment", 5, channels_used=dense_only).ids
