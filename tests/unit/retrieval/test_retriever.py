"""The retriever on a small synthetic graph: explicit refs, lexical, expansion, filters, gate."""

from __future__ import annotations

import pytest

from engine.retrieval import HitReason, RefusalReason, Retriever
from graph.models import GraphEdge, GraphNode
from tests.unit.retrieval.conftest import ACT, OTHER

pytestmark = pytest.mark.unit

Graph = tuple[list[GraphNode], list[GraphEdge]]


@pytest.fixture
def retriever(small_graph: Graph) -> Retriever:
    return Retriever(*small_graph)


def test_explicit_paragraph_comes_first_then_its_article(retriever: Retriever) -> None:
    result = retriever.search("What does Article 5(2) of the Widget Act say?")
    assert [(h.node.id, h.why) for h in result.hits[:2]] == [
        (f"{ACT}:ART_5_2", HitReason.EXPLICIT),
        (f"{ACT}:ART_5", HitReason.EXPANSION),
    ]
    assert result.verdict.answerable


def test_explicit_reference_without_act_resolves_where_it_exists(retriever: Retriever) -> None:
    result = retriever.search("What does Article 17 say?")
    assert result.hits[0].node.id == f"{OTHER}:ART_17"
    assert result.hits[0].why is HitReason.EXPLICIT


def test_a_paragraph_match_ranks_its_article_with_the_paragraph_as_passage(
    retriever: Retriever,
) -> None:
    result = retriever.search("Are glowing widgets prohibited?")
    top = result.hits[0]
    assert top.node.id == f"{ACT}:ART_5"
    assert top.why is HitReason.LEXICAL
    assert top.passages[0] == f"{ACT}:ART_5_1"


def test_cited_articles_are_added_as_expansion(retriever: Retriever) -> None:
    result = retriever.search("Are glowing widgets prohibited?")
    expanded = {h.node.id: h.why for h in result.hits}
    assert expanded.get(f"{ACT}:ART_9") is HitReason.EXPANSION


def test_recitals_are_retrievable(retriever: Retriever) -> None:
    result = retriever.search("Do glowing widgets harm sleep?")
    assert f"{ACT}:REC_3" in result.ids[:3]


def test_same_question_same_order(retriever: Retriever) -> None:
    first = retriever.search("widgets penalties registration")
    assert retriever.search("widgets penalties registration").ids == first.ids


def test_instrument_filter_keeps_that_act_only(retriever: Retriever) -> None:
    result = retriever.search("right to erasure of widget data", instruments=[OTHER])
    assert result.ids == [f"{OTHER}:ART_17"]


def test_jurisdiction_filter(retriever: Retriever) -> None:
    result = retriever.search("What is the standard rate of VAT?", jurisdictions=["UK"])
    assert result.ids == ["UK:RATE:VAT_STANDARD"]


def test_rule_nodes_answer_tax_questions(retriever: Retriever) -> None:
    result = retriever.search("What is the standard rate of VAT in Ireland?")
    assert result.ids[0] == "IE:RATE:VAT_STANDARD"
    assert result.verdict.answerable


def test_focus_concept_prefers_its_neighbours(retriever: Retriever) -> None:
    plain = retriever.search("What is the standard rate?")
    focused = retriever.search("What is the standard rate?", focus=["TAX:IE:VAT"])
    assert plain.ids[0] == "IE:RATE:VAT_STANDARD" or "UK:RATE:VAT_STANDARD" in plain.ids
    assert focused.ids[0] == "IE:RATE:VAT_STANDARD"


def test_a_named_act_restricts_the_provisions_it_shares_no_words_with(
    retriever: Retriever,
) -> None:
    result = retriever.search("What does the Gadget Regulation say about data?")
    assert all(not i.startswith(ACT) for i in result.ids)


def test_upsert_makes_a_new_node_searchable_at_once(retriever: Retriever) -> None:
    assert "EU:LEVY:WIDGET" not in retriever.search("widget levy amount").ids
    levy = GraphNode(
        id="EU:LEVY:WIDGET",
        label="Rate",
        properties={"name": "Widget levy", "description": "A levy on widgets."},
    )
    retriever.upsert([levy])
    assert retriever.search("widget levy amount").ids[0] == "EU:LEVY:WIDGET"


def test_upsert_replaces_a_node(retriever: Retriever) -> None:
    changed = GraphNode(id=f"{ACT}:ART_12", label="Article",
                        properties={"title": "Labelling", "text": "Widgets carry a purple label.",
                                    "instrument": ACT})  # fmt: skip
    retriever.upsert([changed])
    assert retriever.search("purple label widgets").ids[0] == f"{ACT}:ART_12"
    assert f"{ACT}:ART_12" not in retriever.search("register Union database").ids


def test_a_provisional_concept_is_never_evidence(retriever: Retriever) -> None:
    retriever.upsert([GraphNode(id="TAX:IE:SPROCKET_DUTY", label="Concept",
                                properties={"pref_label": "Sprocket duty",
                                            "status": "provisional"})])  # fmt: skip
    assert "TAX:IE:SPROCKET_DUTY" not in retriever.search("sprocket duty").ids


@pytest.mark.parametrize(
    ("question", "reason", "subject"),
    [
        ("How fast must a bank report an incident under DORA?",
         RefusalReason.UNKNOWN_INSTRUMENT, "DORA"),
        ("What does Directive 2003/88/EC say about annual leave?",
         RefusalReason.UNKNOWN_INSTRUMENT, "Directive 2003/88/EC"),
        ("What is the minimum wage in California?",
         RefusalReason.OUT_OF_COVERAGE_JURISDICTION, "California"),
        ("What is the speed limit for cars on motorways?", RefusalReason.NO_EVIDENCE, None),
    ],
)  # fmt: skip
def test_gate_refuses(
    retriever: Retriever, question: str, reason: RefusalReason, subject: str | None
) -> None:
    verdict = retriever.search(question).verdict
    assert (verdict.answerable, verdict.reason, verdict.subject) == (False, reason, subject)


@pytest.mark.parametrize(
    "question",
    [
        "What does Article 12 of the Widget Act say?",
        "Are glowing widgets prohibited in France?",
        "Is the Widget Act stricter than DORA on glowing widgets?",
        "Are glowing widgets prohibited under the Widget Safety Act?",
    ],
)
def test_gate_answers(retriever: Retriever, question: str) -> None:
    assert retriever.search(question).verdict.answerable
