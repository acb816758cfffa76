"""The timeline engine: properties (Hypothesis) and the seeded rules applied at known dates."""

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.timeline import (
    TimelineRule,
    add_duration,
    compute,
    concerns_timeline,
    deadline,
    lock_in_end,
    lookback_window,
    tax_year,
    tax_year_of,
)

pytestmark = pytest.mark.unit

days = st.dates(min_value=date(1990, 1, 1), max_value=date(2090, 12, 31))
units = st.sampled_from(["hours", "days", "weeks", "months", "years"])
amounts = st.integers(min_value=0, max_value=120)
jurisdictions = st.sampled_from(["IE", "UK"])


@given(end=days, value=amounts, unit=units)
def test_a_lookback_window_always_contains_its_end_date(end, value, unit):
    start, last = lookback_window(end, value, unit)
    assert start <= end == last


@given(start=days, value=amounts, unit=units)
def test_a_lock_in_never_ends_before_it_starts(start, value, unit):
    assert lock_in_end(start, value, unit) >= start


@given(start=days, value=st.integers(min_value=1, max_value=120), unit=units)
def test_a_positive_duration_moves_forward(start, value, unit):
    assert add_duration(start, value, unit) > start


@given(anchor=days, value=amounts, unit=units)
def test_a_business_day_deadline_is_a_weekday_within_two_days_of_the_nominal_one(
    anchor, value, unit
):
    nominal = deadline(anchor, value, unit)
    moved = deadline(anchor, value, unit, business_days=True)
    assert moved.weekday() < 5
    assert nominal <= moved <= nominal + timedelta(days=2)


@given(anchor=days, month=st.integers(1, 12), day=st.integers(1, 31))
def test_a_fixed_date_deadline_is_that_date_within_a_year_after_the_anchor(anchor, month, day):
    due = deadline(anchor, 0, "days", fixed=(month, day))
    assert anchor < due <= anchor + timedelta(days=366)
    assert due.month == month and (due.day == day or day > due.day)  # clamped to month end


@given(anchor=days, day=st.integers(1, 31))
def test_a_day_of_month_deadline_falls_in_the_next_two_months(anchor, day):
    due = deadline(anchor, 0, "days", day_of_month=day)
    assert anchor < due <= anchor + timedelta(days=62)


@given(day=days, jurisdiction=jurisdictions)
def test_every_day_falls_in_exactly_the_tax_year_tax_year_of_names(day, jurisdiction):
    start, end = tax_year(jurisdiction, tax_year_of(jurisdiction, day))
    assert start <= day <= end
    assert (end - start).days in (364, 365)
    assert tax_year(jurisdiction, tax_year_of(jurisdiction, day) + 1)[0] == end + timedelta(1)


def test_the_uk_tax_year_starts_on_6_april_and_the_irish_on_1_january():
    assert tax_year("UK", 2023) == (date(2023, 4, 6), date(2024, 4, 5))
    assert tax_year("IE", 2023) == (date(2023, 1, 1), date(2023, 12, 31))
    assert tax_year_of("UK", date(2024, 4, 5)) == 2023
    assert tax_year_of("UK", date(2024, 4, 6)) == 2024


def test_a_month_added_to_31_january_is_the_last_day_of_february():
    assert add_duration(date(2024, 1, 31), 1, "months") == date(2024, 2, 29)
    assert add_duration(date(2023, 1, 31), 1, "months") == date(2023, 2, 28)


def _rule(node_id: str, kind: str, value: int, unit: str, description: str = "") -> TimelineRule:
    rule = TimelineRule.from_node(
        node_id,
        {"name": node_id, "window_kind": kind, "duration_value": value,
         "duration_unit": unit, "description": description},
    )  # fmt: skip
    assert rule is not None
    return rule


@pytest.mark.parametrize(
    ("node_id", "unit", "at", "due"),
    [
        # Form 11 for 2025: 31 October 2026; asked after it passed, the next one is 2027's.
        ("IE:TIMELINE:RETURN_DEADLINE_31_OCT", "months after the end of the tax year",
         date(2026, 3, 1), date(2026, 10, 31)),
        ("IE:TIMELINE:RETURN_DEADLINE_31_OCT", "months after the end of the tax year",
         date(2026, 11, 23), date(2027, 10, 31)),
        # UK online return for 2023-24 (ended 5 April 2024): 31 January 2025.
        ("UK:TIMELINE:SA_ONLINE_31_JAN", "months after the end of the tax year",
         date(2024, 6, 1), date(2025, 1, 31)),
        # VAT3 for the period ending 28 February: the 19th of March.
        ("IE:TIMELINE:VAT3_DUE_19TH", "days after the end of the taxable period",
         date(2025, 2, 28), date(2025, 3, 19)),
    ],
)  # fmt: skip
def test_seeded_deadlines_fall_where_the_rule_says(node_id, unit, at, due):
    computed = compute(_rule(node_id, "DEADLINE", 10, unit), at)
    assert computed.end == due
    assert due.isoformat() in computed.text


def test_a_rule_that_says_working_days_moves_a_weekend_deadline_to_monday():
    rule = _rule("IE:TIMELINE:X", "DEADLINE", 5, "days", "due within 5 working days")
    assert rule.business_days
    assert compute(rule, date(2025, 3, 3)).end == date(2025, 3, 10)  # Saturday 8th -> Monday


def test_a_lookback_and_a_lock_in_state_their_dates():
    lookback = compute(_rule("IE:TIMELINE:LB", "LOOKBACK", 4, "years"), date(2026, 11, 23))
    assert (lookback.start, lookback.end) == (date(2022, 11, 23), date(2026, 11, 23))
    lock = compute(_rule("IE:TIMELINE:LI", "LOCK_IN", 3, "years"), date(2024, 5, 1))
    assert lock.end == date(2027, 5, 1) and "2027-05-01" in lock.text


def test_a_node_without_a_readable_duration_is_no_rule():
    assert TimelineRule.from_node("X", {"duration_value": 3, "duration_unit": "fortnights"}) is None
    assert TimelineRule.from_node("X", {"duration_unit": "days"}) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When must I file my Form 11?", True),
        ("Can I sell my shares before three years are up?", True),
        ("How far back can Revenue assess me?", True),
        # Past tense (fact set batch 4, run once: the rule was found, no date computed).
        ("When was the UK online self assessment return for 2019-20 due?", True),
        ("I exercised share options on 10 March 2023. When was the RTSO due?", True),
        # "What date" asks for a date (fact set batch 5: no date was computed).
        ("From what date do the AI Act's penalty provisions apply?", True),
        ("By what date must the IT38 be filed?", True),
        ("What is the filing date for a VAT return covering January and February 2026?", True),
        # "When's"/"whens" as advisers type them (fact set batch 6: the rule cited, no date).
        ("When's the 2nd payment on account for 2025/26 due?", True),
        ("Paper filer here - whens my form 11 for 2025 due?", True),
        ("What is the standard rate of VAT in Ireland?", False),
        ("Is VAT due on exports of goods?", False),
    ],
)
def test_questions_about_a_timeline_are_recognised(question, expected):
    assert concerns_timeline(question) is expected
