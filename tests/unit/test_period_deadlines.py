"""Returns whose periods differ by business (issue 23, ADR 0059): a UK VAT return is due one
calendar month and seven days after the end of its period, counted from the period end the
question names ("the quarter ending 31 March 2025"); with no end named, no date is given."""

import calendar
from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.as_at import find_as_at
from engine.retrieval.amounts import amount
from engine.timeline import Asked, TimelineRule, when

pytestmark = pytest.mark.unit

TODAY = date(2026, 11, 27)
UK_VAT = {
    "name": "UK VAT return and payment one month and seven days",
    "window_kind": "DEADLINE",
    "duration_value": 1,
    "duration_unit": "months and 7 days after the end of the VAT period",
    "description": "UK VAT returns and payments are normally due one calendar month and seven "
    "days after the end of the VAT accounting period.",
}
VAT3 = {
    "name": "VAT3 due by the 19th",
    "window_kind": "DEADLINE",
    "duration_value": 19,
    "duration_unit": "days after the end of the taxable period",
    "description": "VAT returns are due by the 19th day of the month after each taxable period.",
}
VAT_PERIOD = {
    "name": "Two-month VAT taxable period",
    "window_kind": "PERIOD",
    "duration_value": 2,
    "duration_unit": "months",
    "description": "The standard VAT taxable period is two calendar months.",
}


def rule(node_id: str, props: dict[str, object]) -> TimelineRule:
    made = TimelineRule.from_node(node_id, props)
    assert made is not None
    return made


def asked(question: str, jurisdictions: list[str]) -> Asked:
    found = find_as_at(question, jurisdictions)
    assert found is not None, question
    return Asked.of(found.start, found.end, found.origin, found.described, found.ends_period)


def test_a_compound_duration_is_read_from_the_rules_unit():
    made = rule("UK:TIMELINE:VAT_RETURN_1_MONTH_7_DAYS", UK_VAT)
    assert (made.value, made.unit, made.extra_days) == (1, "months", 7)
    assert made.anchor == "after the end of the vat period"


@pytest.mark.parametrize(
    ("question", "due"),
    [
        ("When is the UK VAT return for the quarter ending 31 March 2025 due?", date(2025, 5, 7)),
        ("UK VAT for the VAT quarter ending 30 September 2024", date(2024, 11, 7)),
        ("UK VAT payment for the quarter ending 31 January 2025", date(2025, 3, 7)),
        ("UK VAT return for the quarter ending 31 December 2025", date(2026, 2, 7)),
        ("UK VAT return for the quarter ended February 2024", date(2024, 4, 7)),
    ],
)
def test_a_uk_vat_return_is_due_a_month_and_seven_days_after_the_period_end_named(question, due):
    made = rule("UK:TIMELINE:VAT_RETURN_1_MONTH_7_DAYS", UK_VAT)
    computed = when(made, asked(question, ["UK"]), TODAY)
    assert computed is not None and computed.end == due, computed
    assert f"due {due.isoformat()}" in computed.text


def test_regression_a_uk_vat_month_that_names_no_period_end_gets_no_date():
    # The UK quarter holding March depends on the business's stagger: no date beats a wrong one.
    march = asked("When is the UK VAT return for March 2025 due?", ["UK"])
    assert when(rule("UK:TIMELINE:VAT_RETURN_1_MONTH_7_DAYS", UK_VAT), march, TODAY) is None


def test_an_irish_period_ending_on_a_named_day_keeps_the_two_month_periods():
    vat3, periods = rule("IE:TIMELINE:VAT3_DUE_19TH", VAT3), [rule("IE:TIMELINE:P", VAT_PERIOD)]
    december = asked("Irish VAT return for the period ending 31 December 2025", ["IE"])
    computed = when(vat3, december, TODAY, periods)
    assert computed is not None and computed.end == date(2026, 1, 19)
    # 31 January ends no Irish taxable period (they run January-February, ...).
    january = asked("Irish VAT return for the period ending 31 January 2025", ["IE"])
    assert when(vat3, january, TODAY, periods) is None


@given(
    end=st.dates(min_value=date(2000, 1, 1), max_value=date(2090, 12, 1)),
    today=st.dates(min_value=date(2000, 1, 1), max_value=date(2095, 12, 31)),
)
def test_a_period_deadline_follows_the_named_end_and_never_depends_on_today(end, today):
    end = date(end.year, end.month, calendar.monthrange(end.year, end.month)[1])
    period_end = Asked(end, end, "day", ends_period=True)
    made = rule("UK:TIMELINE:VAT_RETURN_1_MONTH_7_DAYS", UK_VAT)
    computed = when(made, period_end, today)
    assert computed is not None and computed == when(made, period_end, TODAY)
    assert end + timedelta(days=35) <= computed.end <= end + timedelta(days=38)
    assert computed.end.day == 7  # a month end: the 7th of the month after next


def test_hmrcs_2024_to_2025_tax_year_is_the_uk_2024_25_tax_year():
    found = find_as_at("the UK return for the 2024 to 2025 tax year", ["UK"])
    assert found is not None and (found.start, found.end) == (date(2024, 4, 6), date(2025, 4, 5))
    assert not found.ends_period
    assert find_as_at("VAT for the quarter ending 31 March 2025", ["UK"]).ends_period  # type: ignore[union-attr]
    assert not find_as_at("shares sold on 31 March 2025", ["UK"]).ends_period  # type: ignore[union-attr]


def test_regression_an_amount_of_a_million_reads_as_written_not_1e06():
    assert amount(1000000) == "1000000" and amount(1e6) == "1000000"
    assert amount(4.8) == "4.8" and amount(12.5) == "12.5" and amount("n/a") == "n/a"


def test_regression_an_articles_act_lends_it_the_acts_timelines():
    # "When do the AI Act obligations for general-purpose AI models apply?" finds Article 53;
    # when its parts apply is stated once, on the act (Article 113), not on each article.
    from typing import cast

    from engine.evidence import EvidenceIndex
    from graph.models import GraphEdge, GraphNode
    from graph.port import GraphReader

    act, article, timeline = "EU:REG_2024_1689", "EU:REG_2024_1689:ART_53", "EU:TIMELINE:AI_ACT"
    regime = "EU:REGIME:AI_ACT"
    index = EvidenceIndex(cast(GraphReader, object()))
    index._build(
        [
            GraphNode(id=act, label="EURegulation", properties={"name": "AI Act"}),
            GraphNode(id=regime, label="Regime", properties={"name": "AI Act regime"}),
            GraphNode(id=article, label="Article", properties={"title": "Article 53"}),
            GraphNode(id="EU:REG_2016_679:ART_8", label="Article", properties={"title": "8"}),
            GraphNode(id=timeline, label="Timeline", properties={"name": "AI Act application"}),
        ],
        [
            GraphEdge(source=regime, target=act, type="CITES"),
            GraphEdge(source=regime, target=timeline, type="HAS_TIMELINE"),
        ],
    )
    assert [n.id for n in index.timelines_of([article], [act])] == [timeline]
    # Found for a question that does not name the act (a VAT question), it lends nothing.
    assert index.timelines_of([article]) == []
    assert index.timelines_of(["EU:REG_2016_679:ART_8"], [act]) == []


def test_the_graph_says_a_group_however_a_search_would_rank_it():
    from typing import cast

    from engine.evidence import EvidenceIndex
    from graph.models import GraphNode
    from graph.port import GraphReader

    index = EvidenceIndex(cast(GraphReader, object()))
    index._build(
        [
            GraphNode(id="IE:THRESHOLD:CAT_GROUP_B", label="Threshold",
                      properties={"name": "CAT Group B threshold", "description": "€40,000."}),
            GraphNode(id="UK:THRESHOLD:X", label="Threshold", properties={"name": "Group B"}),
            GraphNode(id="EU:REG_2022_2554:ART_2", label="Article",
                      properties={"title": "Scope", "text": "group b entities"}),
        ]
    )  # fmt: skip
    assert index.texts_saying("group b", ["IE"]) == [
        "CAT Group B threshold €40,000.", "Scope group b entities"]  # fmt: skip
    assert len(index.texts_saying("group b")) == 3
    assert index.texts_saying("group c", ["IE"]) == []
    # The rows are kept between calls; a node remembered since is read as it is now.
    index.remember([GraphNode(id="IE:THRESHOLD:CAT_GROUP_C", label="Threshold",
                              properties={"name": "CAT Group C threshold"})])  # fmt: skip
    assert index.texts_saying("group c", ["IE"]) == ["CAT Group C threshold "]
    index.remember([GraphNode(id="UK:THRESHOLD:X", label="Threshold",
                              properties={"name": "Group B", "status": "merged"})])  # fmt: skip
    assert len(index.texts_saying("group b")) == 2  # hidden now (a merged concept's redirect)


def test_regression_a_form_lends_the_timelines_of_the_obligation_that_uses_it():
    # "When is the Irish income tax return for 2022 due?" finds Form 11, not its obligation.
    from typing import cast

    from engine.evidence import EvidenceIndex
    from graph.models import GraphEdge, GraphNode
    from graph.port import GraphReader

    form, duty, due = "IE:FORM:FORM_11", "IE:OBLIGATION:FORM_11_RETURN", "IE:TIMELINE:D_31_OCT"
    index = EvidenceIndex(cast(GraphReader, object()))
    index._build(
        [GraphNode(id=form, label="Form", properties={"name": "Form 11"}),
         GraphNode(id=duty, label="Obligation", properties={"name": "File a Form 11"}),
         GraphNode(id=due, label="Timeline", properties={"name": "31 October"})],
        [GraphEdge(source=duty, target=form, type="USES_FORM"),
         GraphEdge(source=duty, target=due, type="HAS_TIMELINE")],
    )  # fmt: skip
    assert [n.id for n in index.timelines_of([form])] == [due]


def test_a_deadline_no_later_than_a_day_of_the_nth_month_is_capped_there():
    ct1 = rule(
        "IE:TIMELINE:CT1_NINE_MONTHS",
        {"name": "CT1 filing deadline", "window_kind": "DEADLINE", "duration_value": 9,
         "duration_unit": "months",
         "description": "The CT1 return and balance of corporation tax are due within nine "
         "months of the end of the accounting period, no later than the 23rd day of the ninth "
         "month."},
    )  # fmt: skip
    assert ct1.latest == (23, 9)
    for end, due in [
        (date(2024, 12, 31), date(2025, 9, 23)),
        (date(2025, 6, 30), date(2026, 3, 23)),
    ]:
        computed = when(ct1, Asked(end, end, "day"), TODAY)
        assert computed is not None and computed.end == due, computed


def test_a_returns_period_comes_from_the_jurisdictions_period_rules_not_only_the_hits():
    from engine.timeline import when_all

    september = asked("When is the VAT3 for September 2024 due in Ireland?", ["IE"])
    vat3, period = rule("IE:TIMELINE:VAT3_DUE_19TH", VAT3), rule("IE:TIMELINE:P", VAT_PERIOD)
    alone, _ = when_all([vat3], september, TODAY)
    assert alone == []  # the period's length unknown: no date
    dates, _ = when_all([vat3], september, TODAY, periods=[period])
    assert [d.end for d in dates] == [date(2024, 11, 19)]
