"""The kind of value a question asks for, and the rules that state it first (issue 23)."""

import pytest

from engine.answer_kind import amounts, asked_kind, kind_first
from engine.evidence import Evidence, EvidenceHit
from engine.retrieval import RelevanceVerdict
from graph.models import GraphNode

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("At what rate is CAT charged on a gift above the group threshold?", "Rate"),
        ("What rate applies to the part of the price above €1.5m?", "Rate"),
        ("What % NI does an employee pay on weekly earnings over £967 in 2025-26?", "Rate"),
        ("What's the marginal income tax rate above the standard rate band in 2025?", "Rate"),
        ("std VAT rate in IE?", "Rate"),
        ("What is the higher rate threshold?", "Threshold"),
        ("What's the 20% band for a single person for 2025?", "Threshold"),
        ("and when does the 45% rate kick in?", "Threshold"),
        ("And from what profit does the 2% rate start?", "Threshold"),
        ("At what income does higher rate tax start in the UK for 2025-26?", "Threshold"),
        ("How much can a child inherit tax-free from a parent?", "Threshold"),
        ("What is the standard rate cut-off point for a single person in 2024?", "Threshold"),
        ("CGT annual exempt amount for 2024/25?", "Threshold"),
        ("When is the VAT return due?", None),
    ],
)
def test_the_kind_a_question_asks_for(question, kind):
    assert asked_kind(question) == kind


def test_the_sums_a_text_names_and_whether_it_says_above():
    assert amounts("a €2m house: the part of the price above €1.5m") == [
        (2_000_000.0, False),
        (1_500_000.0, True),
    ]
    assert amounts("income from €27,382.01 to €70,044 in 2025 at 3%") == [
        (27_382.01, False),
        (70_044.0, False),
    ]
    assert amounts("more than 527 EUR a week") == [(527.0, True)]
    assert amounts("the 2025 rate of 20% on 12 items") == []


def hit(node_id: str, label: str, text: str) -> EvidenceHit:
    return EvidenceHit(node=GraphNode(id=node_id, label=label, properties={"name": text}),
                       text=text, score=1.0)  # fmt: skip


def ids(evidence: Evidence) -> list[str]:
    return [h.node.id for h in evidence.hits]


OK = RelevanceVerdict(answerable=True)


def test_a_rate_question_gets_the_rate_first_found_by_a_wider_search_if_need_be():
    # Fact set batch 6: the CAT rate question was answered with the group thresholds, which
    # share its words ("gift", "group threshold"); the rate was below the search's cut.
    found = Evidence(hits=[hit("B", "Threshold", "CAT Group B threshold — 40000 EUR"),
                           hit("A", "Threshold", "CAT Group A threshold — 400000 EUR"),
                           hit("REGIME", "Regime", "Capital acquisitions tax")],
                     verdict=OK)  # fmt: skip
    wider = Evidence(hits=[*found.hits, hit("RATE", "Rate", "CAT rate — 33 percent")], verdict=OK)
    question = "At what rate is CAT charged on a gift above the group threshold?"
    ordered = kind_first(found, question, wider=lambda: wider)
    assert ids(ordered) == ["RATE", "B", "A", "REGIME"]
    # A question asking for neither kind keeps the search's order, and asks no wider search.
    assert kind_first(found, "When is CAT due?", wider=lambda: pytest.fail("asked")) is found


def test_the_band_that_states_the_amounts_asked_comes_first():
    # Fact set batch 6: "the part of the price above €1.5m" was answered with the 2% band
    # ("above €1 million, up to €1.5 million"), the band above €1.5 million ranked below it.
    bands = Evidence(hits=[hit("ACT", "Statute", "Stamp Duties Consolidation Act 1999"),
                           hit("R2", "Rate", "2 percent on the part above €1 million (up to €1.5 "
                                             "million)"),
                           hit("R6", "Rate", "6 percent on the part above €1.5 million"),
                           hit("R1", "Rate", "1 percent on the first €1 million")],
                     verdict=OK)  # fmt: skip
    question = "Irish stamp duty on a €2m house: what rate applies to the part above €1.5m?"
    assert ids(kind_first(bands, question)) == ["R6", "R2", "R1", "ACT"]
    usc = Evidence(hits=[hit("U4", "Rate", "8% on income above €70,044"),
                         hit("U2", "Rate", "2% on income from €12,012.01 to €27,382"),
                         hit("U3", "Rate", "3% on income from €27,382.01 to €70,044")],
                   verdict=OK)  # fmt: skip
    question = "What USC rate applies to income between €27,382 and €70,044 in 2025?"
    assert ids(kind_first(usc, question))[0] == "U3"
    # A follow-up with no kind of its own asks what the question before it asked.
    assert ids(kind_first(usc, "and for 2024?", "What USC rate applies above €70,044?"))[0] == "U4"


def test_a_relief_counts_by_the_kind_of_value_it_states():
    # The R&D tax credit is a relief of 30 percent, the Employment Allowance one of 10,500 GBP:
    # "the R&D tax credit rate" and "the Employment Allowance" ask for them, not for a Rate or
    # a Threshold node that merely shares words (dev regressions of the first pass).
    def valued(node_id: str, label: str, unit: str) -> EvidenceHit:
        node = GraphNode(id=node_id, label=label, properties={"name": node_id, "unit": unit})
        return EvidenceHit(node=node, text=node_id, score=1.0)

    found = Evidence(hits=[valued("RD", "Relief", "percent"), valued("VAT", "Rate", "percent"),
                           valued("EA", "Relief", "GBP"), valued("PA", "Threshold", "GBP")],
                     verdict=OK)  # fmt: skip
    assert ids(kind_first(found, "What is the R&D tax credit rate?")) == ["RD", "VAT", "EA", "PA"]
    assert ids(kind_first(found, "What is the Employment Allowance?"))[:2] == ["EA", "PA"]
    # "what share of the group threshold" asks a proportion: the search's order stands.
    share = "Above what share of the group threshold must I file a CAT return?"
    assert kind_first(found, share) is found


def test_the_party_a_rate_is_asked_of_comes_first_and_the_others_rate_goes():
    # Round 2 (ad hoc): "What was the employee PRSI rate in 2025?" quoted the employer's lower
    # rate first; it shares every other word of the question.
    from engine.answer_kind import party_first

    found = Evidence(hits=[hit("IE:RATE:PRSI_CLASS_A_EMPLOYER_LOWER", "Rate",
                               "PRSI Class A employer rate (lower)"),
                           hit("IE:RATE:PRSI_A_EMPLOYEE:2025:P2", "Rate",
                               "PRSI Class A employee rate (2025-10-01 to 2025-12-31)"),
                           hit("IE:REGIME:PRSI", "Regime", "Pay Related Social Insurance"),
                           hit("IE:RATE:PRSI_A_EMPLOYEE:2025:P1", "Rate",
                               "PRSI Class A employee rate (2025-01-01 to 2025-09-30)")],
                     verdict=OK)  # fmt: skip
    ordered = party_first(found, "What was the employee PRSI rate in 2025?")
    assert ids(ordered) == [
        "IE:RATE:PRSI_A_EMPLOYEE:2025:P2",
        "IE:RATE:PRSI_A_EMPLOYEE:2025:P1",
        "IE:REGIME:PRSI",
    ]
    employer = party_first(found, "What is the employer's PRSI rate?")
    assert ids(employer)[0] == "IE:RATE:PRSI_CLASS_A_EMPLOYER_LOWER"
    # Both parties, or neither: as found.
    assert party_first(found, "employee and employer PRSI rates for 2025?") is found
    assert party_first(found, "What is the PRSI rate?") is found
