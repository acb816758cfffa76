"""The gate's rule 5 (issue 22): a question asking for something the best evidence never names
(a word the acts use elsewhere) is refused, not answered from the act's nearest article."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.retrieval import RefusalReason, RetrievalConfig, Retriever
from engine.retrieval.focus import asked_terms
from graph.models import GraphEdge, GraphNode

pytestmark = pytest.mark.unit

Graph = tuple[list[GraphNode], list[GraphEdge]]
UNSETTLED = "What VAT rate must providers charge on every widget registered in the Union database under the Widget Act?"  # noqa: E501


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What minimum password length does the AI Act require?",
         ["minimum", "password", "length"]),
        ("Which programming languages does the Cyber Resilience Act forbid?",
         ["program", "languag"]),
        ("How much paid annual leave does the DSA give moderators?", ["paid", "annual", "leav"]),
        ("What must an internet provider tell me before I sign?", []),
        ("Can I cancel a bank transfer?", []),
        # The kind of value is not what is asked about; "what if" asks nothing by name.
        ("By what date must we notify the authority?", []),
        ("At what level of profits does Class 4 start?", ["profit"]),
        ("What if the sale had closed in April?", []),
    ],
)  # fmt: skip
def test_asked_terms_are_the_words_between_the_question_word_and_the_verb(
    question: str, asked: list[str]
) -> None:
    assert asked_terms(question) == asked


def test_asked_terms_leave_out_act_and_place_names() -> None:
    assert asked_terms("Which Irish rules apply?", ignore={"irish"}) == []


def test_what_the_act_does_not_settle_is_refused(small_graph: Graph) -> None:
    verdict = Retriever(*small_graph).search(UNSETTLED).verdict
    assert (verdict.answerable, verdict.reason) == (False, RefusalReason.NO_EVIDENCE)


def test_off_it_answers_from_the_nearest_article(small_graph: Graph) -> None:
    config = replace(RetrievalConfig(), asked_depth=0)
    assert Retriever(*small_graph, config).search(UNSETTLED).verdict.answerable


@pytest.mark.parametrize(
    "question",
    [
        # "penalties" is in Article 5(2): the act speaks to what is asked.
        "What penalties may Member States lay down for glowing widgets under the Widget Act?",
        # "paperwork" is in no act: everyday wording proves nothing.
        "What paperwork must providers file to register every widget in the Union database?",
    ],
)
def test_what_the_evidence_names_or_no_act_uses_is_answered(
    small_graph: Graph, question: str
) -> None:
    assert Retriever(*small_graph).search(question).verdict.answerable
