"""Time as the law means it (issue 23, ADR 0047): a question's year names a tax year, and the
obligations for that year are computed from its end; event-anchored deadlines use the event,
periodic returns their period; dates a rule states are quoted, never counted from today."""

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.as_at import find_as_at
from engine.stated_dates import applies_to, stated_dates
from engine.timeline import Asked, TimelineRule, tax_year, when

pytestmark = pytest.mark.unit

TODAY = date(2026, 11, 27)

FORM_11 = (
    "IE:TIMELINE:RETURN_DEADLINE_31_OCT",
    "DEADLINE",
    10,
    "months after the end of the tax year",
    "Self-assessed individuals must file the Form 11 for the previous year and pay the "
    "balance of tax by 31 October.",
)
PRELIMINARY = (
    "IE:TIMELINE:PRELIMINARY_TAX_31_OCT",
    "DEADLINE",
    10,
    "months into the tax year",
    "Preliminary tax for the current tax year is due by 31 October of that year.",
)
SA_ONLINE = (
    "UK:TIMELINE:SA_ONLINE_31_JAN",
    "DEADLINE",
    10,
    "months after the end of the tax year",
    "Online Self Assessment returns for a tax year ending 5 April are due by 31 January "
    "of the following year.",
)
SA_PAPER = (
    "UK:TIMELINE:SA_PAPER_31_OCT",
    "DEADLINE",
    7,
    "months after the end of the tax year",
    "Paper Self Assessment returns are due by 31 October after the end of the tax year.",
)
POA = (
    "UK:TIMELINE:PAYMENT_ON_ACCOUNT_31_JUL",
    "DEADLINE",
    4,
    "months after the end of the tax year",
    "The second payment on account is due by 31 July after the end of the tax year.",
)
CGT_DEC = (
    "IE:TIMELINE:CGT_PAYMENT_15_DEC",
    "DEADLINE",
    15,
    "days after the end of the initial period",
    "Capital gains tax on disposals made between 1 January and 30 November must be paid "
    "by 15 December of the same year.",
)
CGT_JAN = (
    "IE:TIMELINE:CGT_PAYMENT_31_JAN",
    "DEADLINE",
    31,
    "days after the end of the later period",
    "Capital gains tax on disposals made in December must be paid by 31 January of the "
    "following year.",
)
VAT3 = (
    "IE:TIMELINE:VAT3_DUE_19TH",
    "DEADLINE",
    19,
    "days after the end of the taxable period",
    "VAT returns and payments are due by the 19th day of the month after the end of each "
    "taxable period.",
)
VAT_PERIOD = (
    "IE:TIMELINE:VAT_TAXABLE_PERIOD_2_MONTHS",
    "PERIOD",
    2,
    "months",
    "The standard VAT taxable period is two calendar months.",
    "Two-month VAT taxable period",
)
AI_ACT = (
    "EU:TIMELINE:AI_ACT_GENERAL_APPLICATION",
    "TRANSITION",
    24,
    "months after entry into force",
    "Most AI Act provisions apply 24 months after entry into force (from 2 August 2026), "
    "with prohibitions and AI literacy from 2 February 2025 and some high-risk product "
    "rules from 2 August 2027.",
)
POA_FIRST = (
    "UK:TIMELINE:PAYMENT_ON_ACCOUNT_31_JAN",
    "DEADLINE",
    10,
    "months into the tax year",
    "The first Self Assessment payment on account for a tax year is due by 31 January in "
    "that tax year (the second by 31 July after it ends).",
)
CAT_JAN_AUG = (
    "IE:TIMELINE:CAT_PAY_FILE_31_OCT",
    "DEADLINE",
    2,
    "months after the valuation date",
    "For gifts and inheritances with a valuation date between 1 January and 31 August, the "
    "IT38 return must be filed and the CAT paid by 31 October of the same year.",
)
CAT_SEP_DEC = (
    "IE:TIMELINE:CAT_PAY_FILE_NEXT_YEAR",
    "DEADLINE",
    10,
    "months after the end of the tax year",
    "For gifts and inheritances with a valuation date between 1 September and 31 December, "
    "the IT38 return must be filed and the CAT paid by 31 October of the following year.",
)
OSS = (
    "EU:TIMELINE:OSS_QUARTERLY_RETURN",
    "DEADLINE",
    1,
    "months after the end of the quarter",
    "The OSS VAT return and payment for each calendar quarter are due by the last day of the "
    "month following the end of the quarter.",
)
TAX_YEAR_RULES = [FORM_11, SA_ONLINE, SA_PAPER, POA]
EVENT_RULES = [PRELIMINARY, CGT_DEC, CGT_JAN, VAT3, AI_ACT, POA_FIRST, CAT_JAN_AUG, CAT_SEP_DEC]
EVENT_RULES += [OSS]


def rule(spec: tuple[str, ...] | tuple[object, ...]) -> TimelineRule:
    node_id, kind, value, unit, description, *name = spec
    made = TimelineRule.from_node(
        str(node_id),
        {
            "name": name[0] if name else node_id,
            "window_kind": kind,
            "duration_value": value,
            "duration_unit": unit,
            "description": description,
        },
    )
    assert made is not None
    return made


def asked(question: str, jurisdictions: list[str]) -> Asked:
    found = find_as_at(question, jurisdictions)
    assert found is not None, question
    return Asked.of(found.start, found.end, found.origin, found.described)


@pytest.mark.parametrize(
    ("spec", "question", "jurisdictions", "due"),
    [
        (FORM_11, "When must I file my Form 11 for 2025?", ["IE"], date(2026, 10, 31)),
        (FORM_11, "Form 11 for the 2025 tax year", ["IE"], date(2026, 10, 31)),
        (FORM_11, "When must I file my Form 11 for the 2024 tax year?", ["IE"], date(2025, 10, 31)),
        (PRELIMINARY, "preliminary tax for 2025", ["IE"], date(2025, 10, 31)),
        (SA_ONLINE, "UK online return for 2024-25", ["UK"], date(2026, 1, 31)),
        (SA_ONLINE, "UK online return for 2024/25", ["UK"], date(2026, 1, 31)),
        (SA_ONLINE, "UK self assessment deadline for the 2023 tax year", ["UK"], date(2025, 1, 31)),
        (SA_PAPER, "UK paper return for the 2023-24 tax year", ["UK"], date(2024, 10, 31)),
        (POA, "second payment on account for 2024-25", ["UK"], date(2025, 7, 31)),
    ],
)
def test_a_named_year_is_a_tax_year_and_its_obligations_count_from_its_end(
    spec, question, jurisdictions, due
):
    computed = when(rule(spec), asked(question, jurisdictions), TODAY)
    assert computed is not None and computed.end == due, computed
    assert due.isoformat() in computed.text and "assumed" not in computed.text


def test_a_payment_on_account_falls_due_inside_the_tax_year_it_is_for():
    # Fact set batch 5, run once: the first payment on account for 2025-26 is due 31 January
    # 2026, not with the 2025-26 return on 31 January 2027.
    computed = when(rule(POA_FIRST), asked("first payment on account for 2025-26", ["UK"]), TODAY)
    assert computed is not None and computed.end == date(2026, 1, 31), computed


@pytest.mark.parametrize(
    ("question", "due_jan_aug", "due_sep_dec"),
    [
        ("I received a gift on 15 March 2025", date(2025, 10, 31), None),
        ("valuation date of 31 August 2025", date(2025, 10, 31), None),
        ("an inheritance valued on 2 September 2025", None, date(2026, 10, 31)),
        ("a valuation date of 20 October 2025", None, date(2026, 10, 31)),
    ],
)
def test_a_rule_stating_the_events_it_covers_is_left_out_for_others_whatever_it_counts_from(
    question, due_jan_aug, due_sep_dec
):
    # Fact set batch 5: the CAT return took the Form 11 deadline (31 October after the year).
    day = asked(question, ["IE"])
    for spec, due in ((CAT_JAN_AUG, due_jan_aug), (CAT_SEP_DEC, due_sep_dec)):
        computed = when(rule(spec), day, TODAY)
        assert (computed.end if computed is not None else None) == due, (spec[0], computed)


def test_a_calendar_quarter_named_by_its_number_is_the_period_asked():
    for question in ("the OSS return for the third quarter of 2025", "the OSS return for Q3 2025"):
        computed = when(rule(OSS), asked(question, ["EU"]), TODAY)
        assert computed is not None and computed.end == date(2025, 10, 31), (question, computed)


def test_without_a_year_the_answer_says_which_tax_year_it_assumed():
    computed = when(rule(FORM_11), Asked(TODAY, TODAY, "today"), TODAY)
    assert computed is not None
    assert "assumed the 2026 tax year" in computed.text and computed.end == date(2027, 10, 31)


def test_a_cgt_disposal_gets_only_the_payment_date_that_applies():
    march = asked("I sold shares on 10 March 2025", ["IE"])
    december = asked("I sold shares on 10 December 2025", ["IE"])
    march_due = when(rule(CGT_DEC), march, TODAY)
    assert march_due is not None and march_due.end == date(2025, 12, 15)
    assert when(rule(CGT_JAN), march, TODAY) is None
    assert when(rule(CGT_DEC), december, TODAY) is None
    december_due = when(rule(CGT_JAN), december, TODAY)
    assert december_due is not None and december_due.end == date(2026, 1, 31)


def test_an_irish_vat_return_is_due_on_the_19th_after_its_two_month_period():
    january = asked("When is the Irish VAT return for January 2025 due?", ["IE"])
    due = when(rule(VAT3), january, TODAY, [rule(VAT_PERIOD)])
    assert due is not None and due.end == date(2025, 3, 19)
    assert "2025-01-01 to 2025-02-28" in due.text
    # Without the period's length in the graph, no date is given rather than a wrong one.
    assert when(rule(VAT3), january, TODAY) is None


def test_dates_a_rule_states_are_quoted_never_counted_from_today():
    computed = when(rule(AI_ACT), Asked(TODAY, TODAY, "today"), TODAY)
    assert computed is not None
    assert "prohibitions and AI literacy from 2025-02-02" in computed.text
    assert TODAY.isoformat() not in computed.text and "2028" not in computed.text


def test_stated_dates_and_covered_events_are_read_from_the_rule_words():
    assert [d for _, d in stated_dates(str(AI_ACT[4]))] == [
        date(2026, 8, 2), date(2025, 2, 2), date(2027, 8, 2)]  # fmt: skip
    assert applies_to(str(CGT_DEC[4]), date(2025, 11, 30))
    assert not applies_to(str(CGT_DEC[4]), date(2025, 12, 1))
    assert applies_to(str(CGT_JAN[4]), date(2025, 12, 31))
    assert applies_to("A return is due within 30 days.", date(2025, 6, 1))


years = st.integers(min_value=2000, max_value=2090)
days = st.dates(min_value=date(2000, 1, 1), max_value=date(2095, 12, 31))


@given(
    spec=st.sampled_from(TAX_YEAR_RULES),
    year=years,
    kind=st.sampled_from(["year", "tax_year"]),
    today=days,
)
def test_a_deadline_for_tax_year_y_falls_after_the_end_of_y(spec, year, kind, today):
    made = rule(spec)
    start, end = tax_year(made.jurisdiction, year)
    window = (start, end) if kind == "tax_year" else (date(year, 1, 1), date(year, 12, 31))
    computed = when(made, Asked(window[0], window[1], kind), today)
    assert computed is not None
    assert computed.end > end
    assert computed.end <= end + timedelta(days=366)


@given(
    spec=st.sampled_from([*TAX_YEAR_RULES, *EVENT_RULES]),
    day=days,
    kind=st.sampled_from(["day", "month", "year"]),
    today=days,
    other=days,
)
def test_a_computed_date_never_depends_on_the_day_asked_when_the_question_names_one(
    spec, day, kind, today, other
):
    if kind == "day":
        window = Asked(day, day, "day")
    elif kind == "month":
        last = (date(day.year + day.month // 12, day.month % 12 + 1, 1)) - timedelta(days=1)
        window = Asked(date(day.year, day.month, 1), last, "month")
    else:
        window = Asked(date(day.year, 1, 1), date(day.year, 12, 31), "year")
    periods = [rule(VAT_PERIOD)]
    assert when(rule(spec), window, today, periods) == when(rule(spec), window, other, periods)


def test_the_requests_as_at_stands_for_now():
    at = date(2026, 3, 1)
    computed = when(rule(FORM_11), Asked(at, at, "request"), TODAY)
    assert computed is not None and computed.end == date(2026, 10, 31)


@pytest.mark.parametrize(
    ("question", "year", "left"),
    [
        ("Form 11 2025 - ROS or paper, when's it due?", 2025, "Form 11 - ROS or paper"),
        ("Preliminary tax 2025 - by when?", 2025, "Preliminary tax - by when?"),
        ("the CT1 2024 - when is it due?", 2024, "the CT1"),
        # Round 3: "Employee PRSI 2025?" named no year and got the 2026 rate.
        ("Employee PRSI 2025?", 2025, "Employee PRSI"),
        ("USC rates 2025 for a medical card holder", 2025, "USC rates"),
    ],
)
def test_a_year_written_straight_after_a_form_or_tax_is_its_year(question, year, left):
    # Fifth pass (dev, ad hoc): "Form 11 2025" was read as no year at all and the next Form 11
    # due (2027-10-31) was given; the form's name stays in the searched question.
    found = find_as_at(question, ["IE"])
    assert found is not None and (found.start, found.end) == (date(year, 1, 1), date(year, 12, 31))
    assert found.without_date(question).startswith(left)
    assert find_as_at("What changed in the Finance Act 2024?", ["IE"]) is None


def test_shorthand_that_ends_on_due_or_when_asks_for_a_deadline():
    from engine.timeline import concerns_timeline

    assert concerns_timeline("Jan/Feb 2026 VAT3 due?")
    assert concerns_timeline("balancing payment for 2025/26 - when?")
    assert not concerns_timeline("What is the VAT rate due on children's shoes in Ireland")


@pytest.mark.parametrize(
    "question",
    [
        "CGT on shares sold 20 December 2025 in Ireland – when to pay?",
        "When do I pay CGT on shares sold in March 2025?",
        "when to file the CT1?",
    ],
)
def test_when_to_pay_asks_for_a_deadline(question):
    # Round 2 (ad hoc): "when to pay?" was not read as a deadline question, so no date was
    # computed.
    from engine.timeline import concerns_timeline

    assert concerns_timeline(question)


def test_the_dates_chosen_are_listed_in_date_order():
    # Round 2 (ad hoc): "When is the balancing payment for 2024/25 due?" listed the second
    # payment on account (31 July 2025) before the balancing payment (31 January 2026).
    from engine.timeline import when_all

    rules = [rule(SA_ONLINE), rule(POA), rule(POA_FIRST)]  # the ranking's order
    asked = Asked(date(2024, 4, 6), date(2025, 4, 5), "tax_year")
    dates, _ = when_all(rules, asked, TODAY)
    assert [d.end for d in dates] == [date(2025, 1, 31), date(2025, 7, 31), date(2026, 1, 31)]
    # Each jurisdiction keeps its place: the question's own (first in the rules) before another.
    ie = rule(FORM_11)
    year = Asked(date(2024, 1, 1), date(2024, 12, 31), "year")
    dates, _ = when_all([rule(SA_ONLINE), ie, rule(POA)], year, TODAY)
    assert [d.rule_id.split(":")[0] for d in dates] == ["UK", "UK", "IE"]


def test_a_question_about_the_tax_year_itself_gets_its_bounds_not_a_deadline():
    # Round 2 (ad hoc): "When does the 2026/27 tax year start in the UK?" listed the 31 January
    # payment on account before the tax year's bounds.
    from engine.timeline import asks_tax_year_bounds, when_all

    question = "When does the 2026/27 tax year start in the UK?"
    assert asks_tax_year_bounds(question)
    assert asks_tax_year_bounds("last day of the UK tax year?")
    assert not asks_tax_year_bounds("When is the return for the 2025 tax year due?")
    uk_year = rule(("UK:TIMELINE:TAX_YEAR_6_APRIL", "PERIOD", 12, "months",
                    "The UK tax year runs from 6 April to 5 April."))  # fmt: skip
    asked = Asked(date(2026, 4, 6), date(2027, 4, 5), "tax_year")
    dates, _ = when_all([rule(POA_FIRST), uk_year], asked, TODAY, about_tax_year=True)
    assert [(d.rule_id, d.start, d.end) for d in dates] == [
        ("UK:TIMELINE:TAX_YEAR_6_APRIL", date(2026, 4, 6), date(2027, 4, 5))
    ]
    # Not asked about the bounds: the deadline stays.
    dates, _ = when_all([rule(POA_FIRST), uk_year], asked, TODAY)
    assert "UK:TIMELINE:PAYMENT_ON_ACCOUNT_31_JAN" in [d.rule_id for d in dates]


def test_the_tax_year_rule_is_known_by_what_it_is_not_by_its_id():
    # Round 3: when_all found the tax-year rule by "TAX_YEAR" in its id; a rule that is the
    # tax year under another id got a 12-month window from the day asked and no bounds, and a
    # rule whose id held the letters but was no tax year was taken for one.
    from engine.timeline import when_all

    words = "The Irish year of assessment runs from 1 January to 31 December."
    year_of_assessment = rule(("IE:TIMELINE:YEAR_OF_ASSESSMENT", "PERIOD", 12, "months", words))
    assert year_of_assessment.is_tax_year
    asked = Asked(date(2026, 1, 1), date(2026, 12, 31), "tax_year")
    dates, _ = when_all([rule(FORM_11), year_of_assessment], asked, TODAY, about_tax_year=True)
    assert [(d.rule_id, d.start, d.end) for d in dates] == [
        ("IE:TIMELINE:YEAR_OF_ASSESSMENT", date(2026, 1, 1), date(2026, 12, 31))
    ]
    mid_year = Asked(date(2026, 5, 10), date(2026, 5, 10), "day")
    (bounds,), _ = when_all([year_of_assessment], mid_year, TODAY)
    assert (bounds.start, bounds.end) == (date(2026, 1, 1), date(2026, 12, 31))
    # An id with the letters does not make a two-month VAT period a tax year.
    vat = rule(("IE:TIMELINE:VAT_PERIOD_TAX_YEARLY", "PERIOD", 2, "months",
                "The VAT taxable period is two calendar months."))  # fmt: skip
    assert not vat.is_tax_year
    (period,), _ = when_all([vat], mid_year, TODAY)
    assert (period.start, period.end) == (date(2026, 5, 1), date(2026, 6, 30))
