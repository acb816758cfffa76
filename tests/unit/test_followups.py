"""Follow-ups that remember (issue 23): the previous question joins a follow-up's search, and
what earlier answers cited stays citable."""

from datetime import UTC, datetime

import pytest

from conversations.models import StoredMessage
from engine.evidence import Evidence, EvidenceHit
from engine.followups import EARLIER, follow_up_query, is_follow_up, with_earlier_evidence
from engine.retrieval import RelevanceVerdict
from graph.models import GraphNode

pytestmark = pytest.mark.unit


def message(role: str, text: str) -> StoredMessage:
    return StoredMessage.model_validate({
        "id": f"m-{role}-{len(text)}", "conversation_id": "c", "role": role,
        "content": text, "content_sanitised": text, "created_at": datetime.now(UTC),
    })  # fmt: skip


HISTORY = [
    message("user", "What are the conditions for consent under the GDPR?"),
    message("assistant", "Article 7 …"),
]


@pytest.mark.parametrize(
    ("question", "names_subject", "names_act", "expected"),
    [
        ("And what about children?", False, False, True),
        ("What about the reduced rate?", False, False, True),
        ("Does it apply to banks?", False, False, True),
        ("And what about children under the AI Act?", True, True, False),
        ("What is the standard rate of VAT in Ireland for restaurants and hotels?", False, False,
         False),
        # A concept named in a short follow-up is an aspect of the subject asked before.
        ("What about the higher rate?", True, False, True),
        ("And the reduced rate?", True, False, True),
        # A concept in a question of its own, or a long one, is a new subject.
        ("Is the higher rate charged on dividends?", True, False, False),
        ("And what is the capital gains tax rate on shares sold by a company in 2024?", True,
         False, False),
    ],
)  # fmt: skip
def test_a_follow_up_is_a_question_that_leans_on_the_one_before(
    question, names_subject, names_act, expected
):
    assert is_follow_up(question, names_subject, names_act) is expected


def test_regression_a_short_follow_up_naming_a_concept_is_searched_with_the_previous_question():
    history = [message("user", "What is the standard rate of income tax in Ireland?")]
    query = follow_up_query("What about the higher rate?", history, names_subject=True)
    assert query == f"{history[0].content} What about the higher rate?"
    named_act = follow_up_query("And the AI Act?", history, names_subject=True, names_act=True)
    assert named_act == "And the AI Act?"


def test_a_follow_up_is_searched_with_the_previous_question():
    query = follow_up_query("And what about children?", HISTORY, names_subject=False)
    assert query == "What are the conditions for consent under the GDPR? And what about children?"
    assert follow_up_query("And what about children?", [], names_subject=False) == (
        "And what about children?"
    )


def node(node_id: str, label: str = "Article") -> GraphNode:
    return GraphNode(id=node_id, label=label, properties={"title": node_id, "text": "1. Text."})


def test_what_earlier_answers_cited_stays_citable_after_this_turns_evidence():
    hit = EvidenceHit(node=node("EU:REG_2016_679:ART_8"), text="Article 8: …", score=1.0)
    known = {n.id: n for n in (node("EU:REG_2016_679:ART_7"), node("EU_LAW:EU:GDPR", "Concept"))}
    evidence = Evidence(hits=[hit], verdict=RelevanceVerdict(answerable=True))
    found = with_earlier_evidence(
        evidence, ["EU_LAW:EU:GDPR", "EU:REG_2016_679:ART_7", "EU:REG_2016_679:ART_8"], known.get
    )
    assert found.ids() == ["EU:REG_2016_679:ART_8", "EU:REG_2016_679:ART_7"]
    assert found.hits[1].text.startswith(EARLIER)
    refused = Evidence(hits=[], verdict=RelevanceVerdict(answerable=False))
    assert with_earlier_evidence(refused, ["EU:REG_2016_679:ART_7"], known.get) is refused


def rule_hit(node_id: str, label: str, name: str) -> EvidenceHit:
    node = GraphNode(id=node_id, label=label, properties={"name": name, "pref_label": name})
    return EvidenceHit(node=node, text=name, score=1.0)


def test_a_follow_ups_aspect_comes_first_and_concepts_follow_the_rules():
    # Fact set (fol-084, fol-190, regressions of the narrower seeded concepts): the definitions
    # of "basic rate" and "higher rate" took the quotes from the rule with the value asked.
    from engine.turn.prepare import _aspect_first, _rules_before_concepts

    hits = [
        rule_hit("TAX:UK:HIGHER_RATE", "Concept", "Higher rate of income tax (United Kingdom)"),
        rule_hit("UK:THRESHOLD:PERSONAL_ALLOWANCE", "Threshold", "UK personal allowance"),
        rule_hit("UK:THRESHOLD:HIGHER_RATE", "Threshold", "UK higher rate threshold"),
        rule_hit("UK:THRESHOLD:ADDITIONAL_RATE", "Threshold", "UK additional rate threshold"),
    ]
    evidence = Evidence(hits=hits, verdict=RelevanceVerdict(answerable=True))
    from engine.retrieval.tokenise import tokenise

    aspect = frozenset(tokenise("And the additional rate threshold?"))
    ordered = _rules_before_concepts(_aspect_first(evidence, aspect))
    assert [h.node.id for h in ordered.hits] == [
        "UK:THRESHOLD:ADDITIONAL_RATE", "UK:THRESHOLD:HIGHER_RATE",
        "UK:THRESHOLD:PERSONAL_ALLOWANCE", "TAX:UK:HIGHER_RATE"]  # fmt: skip
    assert _aspect_first(evidence, frozenset()).hits == hits  # not a follow-up: as found


def test_the_computed_dates_of_the_rules_the_question_words_come_first():
    # Fact set batch 5: three dates are quoted; the first payment on account's rule pushed the
    # second's (fol-537), and the name-only order pushed the balancing payment's (dea-509).
    from engine.timeline import TimelineRule
    from engine.turn.prepare import _said

    def made(node_id: str, name: str, description: str) -> TimelineRule:
        unit = "months after the end of the tax year"
        props = {"name": name, "description": description, "window_kind": "DEADLINE",
                 "duration_value": 4, "duration_unit": unit}  # fmt: skip
        found = TimelineRule.from_node(node_id, props)
        assert found is not None
        return found

    rules = [
        made("UK:SA", "Self Assessment online deadline 31 January",
             "Online returns and the balancing payment for a tax year are due by 31 January."),
        made("UK:POA_JAN", "First payment on account 31 January in the tax year",
             "The first payment on account is due by 31 January in the tax year."),
        made("UK:POA_JUL", "Second payment on account 31 July",
             "The second payment on account is due by 31 July after the end of the tax year."),
    ]  # fmt: skip

    def first(question: str) -> str:
        return max(rules, key=lambda r: _said(question, r, rules)).id

    assert first("When is the balancing payment for 2024-25 due?") == "UK:SA"
    assert first("And the second payment on account for that year?") == "UK:POA_JUL"
    assert first("When is the first payment on account for 2025-26 due?") == "UK:POA_JAN"


def test_a_question_about_one_national_jurisdiction_gets_no_date_of_the_other():
    from engine.timeline import TimelineRule
    from engine.turn.prepare import _of_the_jurisdictions

    def made(node_id: str) -> TimelineRule:
        props = {"name": node_id, "window_kind": "DEADLINE", "duration_value": 60,
                 "duration_unit": "days"}  # fmt: skip
        found = TimelineRule.from_node(node_id, props)
        assert found is not None
        return found

    rules = [made("IE:CGT_15_DEC"), made("UK:CGT_60_DAYS"), made("EU:OSS")]

    def kept(jurisdictions: list[str]) -> list[str]:
        return [rule.id for rule in _of_the_jurisdictions(rules, jurisdictions)]

    assert kept(["IE"]) == ["IE:CGT_15_DEC", "EU:OSS"]
    assert kept(["UK", "NI"]) == ["UK:CGT_60_DAYS", "EU:OSS"]
    assert kept(["IE", "UK"]) == kept([]) == kept(["EU"]) == [r.id for r in rules]
