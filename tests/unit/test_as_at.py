"""The date a question is about: phrases, the request's asAt, today (ADR 0032)."""

from datetime import date

import pytest

from engine.as_at import find_as_at, resolve_as_at, same_year_as, split_year_jurisdiction

pytestmark = pytest.mark.unit

TODAY = date(2026, 11, 23)


@pytest.mark.parametrize(
    ("question", "jurisdictions", "start", "end"),
    [
        ("What was the VAT rate on 1 December 2020?", ["IE"], date(2020, 12, 1), date(2020, 12, 1)),
        ("What was the VAT rate in December 2020?", ["IE"], date(2020, 12, 1), date(2020, 12, 31)),
        ("VAT rate on December 1, 2020", [], date(2020, 12, 1), date(2020, 12, 1)),
        ("VAT rate as at 2020-12-01", [], date(2020, 12, 1), date(2020, 12, 1)),
        ("Income tax bands for the 2023 tax year", ["IE"], date(2023, 1, 1), date(2023, 12, 31)),
        ("Income tax bands for the 2023 tax year", ["UK"], date(2023, 4, 6), date(2024, 4, 5)),
        ("NIC for the 2023-24 tax year", [], date(2023, 4, 6), date(2024, 4, 5)),
        ("What was the VAT rate in 2022?", ["IE"], date(2022, 1, 1), date(2022, 12, 31)),
        ("What was the rate in Feb 2021", [], date(2021, 2, 1), date(2021, 2, 28)),
        # Calendar quarters by number (fact set batch 5: "the third quarter of 2025" named none).
        ("OSS return for the third quarter of 2025", [], date(2025, 7, 1), date(2025, 9, 30)),
        ("OSS return for Q1 2026", [], date(2026, 1, 1), date(2026, 3, 31)),
        ("the 2025 Q4 OSS return", [], date(2025, 10, 1), date(2025, 12, 31)),
    ],
)  # fmt: skip
def test_a_date_in_the_question_names_a_window(question, jurisdictions, start, end):
    as_at = find_as_at(question, jurisdictions)
    assert as_at is not None
    assert (as_at.start, as_at.end, as_at.origin) == (start, end, "question")
    assert as_at.phrase and as_at.phrase in question
    assert as_at.start.isoformat() in as_at.label()


@pytest.mark.parametrize(
    "question",
    [
        "What does Article 5 of Regulation 2016/679 say?",
        "What is the standard rate of VAT?",
    ],
)
def test_a_question_without_a_date_names_none(question):
    assert find_as_at(question) is None


def test_an_impossible_day_names_only_its_month():
    as_at = find_as_at("What was the rate on 31 February 2020?")
    assert as_at is not None
    assert (as_at.start, as_at.end) == (date(2020, 2, 1), date(2020, 2, 29))


def test_before_an_act_applied_is_the_day_before_the_date_the_graph_gives_it():
    def act_start(text: str) -> date | None:
        return date(2024, 8, 1) if "AI Act" in text else None

    as_at = find_as_at("What applied before the AI Act applied?", [], act_start)
    assert as_at is not None and as_at.start == as_at.end == date(2024, 7, 31)
    assert find_as_at("What applied before the Widget Act applied?", [], act_start) is None


def test_the_question_wins_over_the_request_which_wins_over_today():
    named = resolve_as_at("the VAT rate on 1 December 2020", date(2022, 6, 1), TODAY)
    assert (named.start, named.origin) == (date(2020, 12, 1), "question")
    requested = resolve_as_at("the VAT rate", date(2022, 6, 1), TODAY)
    assert (requested.start, requested.origin) == (date(2022, 6, 1), "request")
    today = resolve_as_at("the VAT rate", None, TODAY)
    assert (today.start, today.end, today.origin) == (TODAY, TODAY, "today")


def test_the_date_words_are_not_searched_for():
    question = "What was the standard rate of VAT in Ireland on 1 December 2020?"
    as_at = find_as_at(question)
    assert as_at is not None
    assert as_at.without_date(question) == "What was the standard rate of VAT in Ireland ?"


@pytest.mark.parametrize(
    "question",
    ["Our VAT quarter runs to 30 Nov 2025 - what's the deadline?",
     "When is the VAT return for the period to 30 November 2025 due?"],
)  # fmt: skip
def test_a_day_a_period_runs_to_ends_the_period(question):
    as_at = find_as_at(question)
    assert as_at is not None and as_at.ends_period and as_at.start == date(2025, 11, 30)


def test_a_day_from_1_may_is_not_a_period_end():
    as_at = find_as_at("From 1 May 2025 to 30 June 2025")
    assert as_at is not None and not as_at.ends_period


def test_a_follow_up_day_without_a_year_takes_the_year_asked_before():
    before = find_as_at("Client sold shares on 14 Dec 2025. What's the CGT payment date?")
    assert before is not None
    moved = same_year_as("What if the disposal had been on 14 November instead?", before)
    assert moved is not None and moved.start == moved.end == date(2025, 11, 14)
    assert moved.phrase == "on 14 November"
    third = same_year_as("and on November 3rd?", before)
    assert third is not None and third.start == date(2025, 11, 3)
    # A year named, or no such day: not this rule's to read.
    assert same_year_as("What if it had been 14 November 2024?", before) is None
    assert same_year_as("What if it had been 31 February?", before) is None
    assert same_year_as("May I ask again?", before) is None  # "may" alone is a verb
    assert same_year_as("On 3 March?", resolve_as_at("Why?", None, date(2025, 1, 1))) is None
    # A month after a preposition is that month of the year asked before.
    month = same_year_as("And in May?", before)
    assert month is not None and (month.start, month.end) == (date(2025, 5, 1), date(2025, 5, 31))


def test_two_months_written_as_one_period_are_both():
    """Irish VAT periods as advisers write them ("VAT3 for Jan/Feb 2026"): the two months, and
    a follow-up's "and the Mar/Apr one?" the next two of the same year."""
    before = find_as_at("VAT3 for Jan/Feb 2026 - due date?")
    assert before is not None
    assert (before.start, before.end) == (date(2026, 1, 1), date(2026, 2, 28))
    assert before.phrase == "for Jan/Feb 2026"
    sept = find_as_at("the Sept-Oct 2024 VAT return")
    assert sept is not None and (sept.start, sept.end) == (date(2024, 9, 1), date(2024, 10, 31))
    nxt = same_year_as("and the Mar/Apr one?", before)
    assert nxt is not None and (nxt.start, nxt.end) == (date(2026, 3, 1), date(2026, 4, 30))
    # Months out of order are not one period of a year: the single month is read instead.
    backwards = find_as_at("the Dec/Jan 2026 return")
    assert backwards is not None
    assert (backwards.start, backwards.end) == (date(2026, 1, 1), date(2026, 1, 31))
    # An earlier window across two calendar years (a UK tax year) gives no year to a month.
    uk = find_as_at("NIC for the 2023-24 tax year")
    assert uk is not None and same_year_as("and in May?", uk) is None


def test_a_date_marks_a_boundary_where_the_coverage_check_reads():
    question = "whats the online filing deadline for the 2024/25 tax return"
    as_at = find_as_at(question, ["UK"])
    assert as_at is not None
    assert as_at.without_date(question, " ; ") == "whats the online filing deadline ; tax return"


@pytest.mark.parametrize(
    ("question", "expected"),
    [("PA for 2025/26?", "UK"), ("1st POA for the 2026-27 tax year", "UK"),
     ("Form 11 for 2025", None), ("VAT for 2020-12", None), ("the 2024-26 period", None)],
)  # fmt: skip
def test_a_tax_year_across_two_years_names_the_uk(question, expected):
    assert split_year_jurisdiction(question) == expected


def test_a_tax_year_asked_about_keeps_its_words_when_its_number_goes():
    # Round 2 (ad hoc): "When does the 2026/27 tax year start in the UK?" was searched and
    # gated as "When does start in the UK?" and refused as not regulatory.
    question = "When does the 2026/27 tax year start in the UK?"
    found = find_as_at(question, ["UK"])
    assert found is not None and found.start == date(2026, 4, 6)
    assert found.without_date(question) == "When does tax year start in the UK?"
    assert found.without_date(question, " ; ") == "When does ; tax year ; start in the UK?"
    # A year that only qualifies what is asked goes whole, as before.
    asked = "When must I file my Form 11 for the 2024 tax year?"
    found = find_as_at(asked, ["IE"])
    assert found is not None and found.without_date(asked) == "When must I file my Form 11 ?"
