"""Recital links, the recital flow, the phrase index and the channel over every act."""

from __future__ import annotations

import pytest

from engine.retrieval import RetrievalConfig, Retriever
from engine.retrieval.documents import document_of
from engine.retrieval.links import link_recitals
from engine.retrieval.rows import index_tokens, phrases
from engine.retrieval.structure import GraphStructure
from graph.models import GraphEdge, GraphNode
from tests.unit.retrieval.conftest import ACT, OTHER, provision

pytestmark = pytest.mark.unit

Graph = tuple[list[GraphNode], list[GraphEdge]]


@pytest.fixture
def explained() -> Graph:
    """Articles in legal words, recitals in plainer ones; one recital cites its article."""
    nodes = [
        GraphNode(id=ACT, label="EURegulation",
                  properties={"name": "Regulation (EU) 2099/1 (Widget Act)", "number": "2099/1"}),
        GraphNode(id=OTHER, label="EURegulation",
                  properties={"name": "Regulation (EU) 2098/7 (Gadget Regulation)",
                              "number": "2098/7"}),
        provision(f"{ACT}:ART_50", "Article",
                  "Providers shall ensure that widgets intended to interact directly with natural "
                  "persons inform those persons that they are interacting with a widget.",
                  "Transparency obligations for interacting widgets"),
        provision(f"{ACT}:ART_99", "Article",
                  "Infringements shall be subject to administrative fines of up to EUR 35 000 000.",
                  "Penalties"),
        provision(f"{ACT}:ART_7", "Article",
                  "The widget registry shall record each sprocket assembly and its serial number.",
                  "Registry of sprocket assemblies"),
        provision(f"{ACT}:REC_132", "Recital",
                  "Widgets that interact with natural persons, such as chatbots on a website, "
                  "should inform those persons that they are interacting with a widget."),
        provision(f"{ACT}:REC_168", "Recital",
                  "Penalties should be effective; this recital concerns the sanctions regime."),
        provision(f"{ACT}:REC_20", "Recital",
                  "Sprocket registries matter for the overall tidiness of the whole market."),
        provision(f"{OTHER}:ART_3", "Article",
                  "Gadget makers shall keep records of gadget serial numbers.", "Records"),
    ]  # fmt: skip
    edges = [GraphEdge(source=f"{ACT}:REC_168", target=f"{ACT}:ART_99", type="CITES")]
    return nodes, edges


def _links(graph: Graph) -> dict[str, tuple[tuple[str, float], ...]]:
    nodes, edges = graph
    docs = {n.id: d for n in nodes if (d := document_of(n)) is not None}
    shape = GraphStructure.build(docs, {n.id: n for n in nodes}, edges)
    tokens = {i: index_tokens(d, docs, shape) for i, d in docs.items()}
    return link_recitals(docs, tokens, shape, per_unit=1)


def test_a_recital_is_linked_to_the_article_it_shares_words_with(explained: Graph) -> None:
    links = _links(explained)
    assert links[f"{ACT}:ART_50"][0][0] == f"{ACT}:REC_132"
    assert 0.0 < links[f"{ACT}:ART_50"][0][1] < 1.0


def test_a_recital_citing_an_article_is_linked_to_it_fully(explained: Graph) -> None:
    assert _links(explained)[f"{ACT}:ART_99"][0] == (f"{ACT}:REC_168", 1.0)


def test_recitals_are_linked_within_their_own_act(explained: Graph) -> None:
    assert f"{OTHER}:ART_3" not in _links(explained)


def test_recital_words_reach_the_article_they_explain(explained: Graph) -> None:
    question = "Do chatbots on my website have to say so?"
    with_flow = Retriever(*explained).search(question)
    without = Retriever(*explained, RetrievalConfig(recital_flow=0.0)).search(question)
    assert f"{ACT}:ART_50" in with_flow.ids
    assert f"{ACT}:ART_50" not in without.ids


def test_the_flow_follows_an_article_replaced_by_upsert(explained: Graph) -> None:
    retriever = Retriever(*explained)
    changed = provision(f"{ACT}:ART_50", "Article",
                        "Providers shall label widgets that interact with natural persons.",
                        "Transparency obligations for interacting widgets")  # fmt: skip
    retriever.upsert([changed])
    assert f"{ACT}:ART_50" in retriever.search("Do chatbots on my website have to say so?").ids


def test_phrases_are_adjacent_pairs() -> None:
    assert phrases(["facial", "recognit", "databas"]) == ["facial_recognit", "recognit_databas"]
    assert phrases(["one"]) == []


def test_words_together_beat_words_apart() -> None:
    together = provision(
        f"{ACT}:ART_1", "Article", "Rules on serial numbers of sprockets in a ledger."
    )
    apart = provision(f"{ACT}:ART_2", "Article", "Serial rules on sprockets and numbers.")
    others = [
        provision(f"{ACT}:ART_{n}", "Article", f"Widgets of class {n} shall be blue.")
        for n in range(3, 12)
    ]
    nodes = [together, apart, *others]  # fmt: skip
    question = "Where are sprocket serial numbers?"
    plain = Retriever(nodes, config=RetrievalConfig(phrase_weight=0.0)).search(question)
    assert plain.ids[0] == f"{ACT}:ART_2"  # shorter, so BM25 alone prefers it
    assert Retriever(nodes).search(question).ids[0] == f"{ACT}:ART_1"


def test_a_named_act_comes_first_and_the_others_still_count(explained: Graph) -> None:
    question = "Under the Gadget Regulation, who keeps records of sprocket assembly serial numbers?"
    result = Retriever(*explained).search(question)
    assert result.ids[0] == f"{OTHER}:ART_3"
    assert f"{ACT}:ART_7" in result.ids
    only_named = Retriever(*explained, RetrievalConfig(unnamed_weight=0.0)).search(question)
    assert f"{ACT}:ART_7" not in only_named.ids
