"""The stated-facts parser (issue 28, ADR 0063): the phrasings it was written from (dev), and
held-out sentences from public pages it was not written from, measured side by side."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from scenarios.stated import StatedFacts, maybe_scenario, parse_facts, parse_what_if

pytestmark = [pytest.mark.unit]

HELD_OUT = Path(__file__).parent / "data" / "stated_facts_heldout.jsonl"
HELD_OUT_2 = Path(__file__).parent / "data" / "stated_facts_heldout2.jsonl"


def _got(text: str) -> dict[str, Any]:
    question = parse_what_if(text)
    got = {k: v for k, v in question.stated.data().items() if k not in ("currency", "age")}
    if question.change is not None:
        got["what_if"] = True
    return got


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I earn €50,000 as a PAYE employee, single, in 2025 — what if I earned €60,000?",
         {"paye_income": "50000.00", "status": "single", "tax_year": 2025, "jurisdiction": "IE",
          "what_if": True}),
        ("I'm self-employed in Belfast on £42k profits for 2024-25, married",
         {"self_employed_income": "42000.00", "status": "married", "tax_year": 2024,
          "jurisdiction": "NI"}),
        ("My salary is 55,000 euro, tax year 2024, civil partnership",
         {"paye_income": "55000.00", "status": "civil_partner", "tax_year": 2024,
          "jurisdiction": "IE"}),
        ("I'm a freelancer making £35k a year in England, tax year 2025/26",
         {"self_employed_income": "35000.00", "tax_year": 2025, "jurisdiction": "UK"}),
        ("We're married; I'm on a salary of €62,500 and my husband is self-employed with "
         "profits of €18,000 (2024)",
         {"paye_income": "62500.00", "spouse_self_employed_income": "18000.00",
          "status": "married", "tax_year": 2024, "jurisdiction": "IE"}),
        ("I pay €3,000 rent and earn €40k",
         {"income": "40000.00", "rent_paid": "3000.00", "jurisdiction": "IE"}),
        ("I sold shares for €20,000 in 2024", {"tax_year": 2024, "jurisdiction": "IE"}),
        ("What is the standard rate of VAT in Ireland?", {"jurisdiction": "IE"}),
    ],
)  # fmt: skip
def test_dev_phrasings(text: str, expected: dict[str, Any]) -> None:
    assert _got(text) == expected


def test_held_out_phrasings_from_public_pages() -> None:
    """Sentences from forums, news and calculators (URL in each record), expectations written
    before the parser first ran on them (commit 2a08c8c on main). First run: 8 of 14; after two
    generic changes (an amount's own neighbouring words; a rise is no income) 12 of 14 — the
    set is no longer unseen since, said in ADR 0063. Misses left: "£5,000 pay rise from £100k"
    (kind of the £100k) and "if your salary goes from £48k to £52k" (a what-if "from X to Y")."""
    cases = [json.loads(line) for line in HELD_OUT.read_text(encoding="utf-8").splitlines()]
    passed = [case["text"] for case in cases if _got(case["text"]) == case["expect"]]
    assert len(cases) == 14
    assert len(passed) >= 12, set(c["text"] for c in cases) - set(passed)


def _with_change(text: str) -> dict[str, Any]:
    question = parse_what_if(text)
    got = {k: v for k, v in question.stated.data().items() if k not in ("currency", "age")}
    if question.change is not None:
        change = question.change.data()
        got["change"] = {k: v for k, v in change.items() if k not in ("currency", "jurisdiction")}
    return got


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I earn €3,000 a month as an employee, 2025",
         {"paye_income": "36000.00", "tax_year": 2025, "jurisdiction": "IE"}),
        ("I pay €250 a week in rent and earn £40k", {"income": "40000.00", "rent_paid": "13000.00",
                                                    "jurisdiction": "IE"}),
        ("I put €5,000 into a PRSA; my salary is €80,000",
         {"paye_income": "80000.00", "pension_contributions": "5000.00", "jurisdiction": "IE"}),
        ("I sold my apartment on 3 December 2025 for €400,000, which I bought in March 2015 for "
         "€250,000",
         {"disposals": [{"asset": "apartment", "cost": "250000.00", "proceeds": "400000.00",
                         "acquired": "2015-03", "disposed": "2025-12-03"}],
          "tax_year": 2025, "jurisdiction": "IE"}),
        ("I sold shares for €20,000 in 2024", {"tax_year": 2024, "jurisdiction": "IE"}),
        ("What if my profits go from €30k to €45k in 2025?",
         {"self_employed_income": "30000.00", "tax_year": 2025, "jurisdiction": "IE",
          "change": {"self_employed_income": "45000.00"}}),
        ("I earn £50,000 in 2025-26; what if I put £4,000 into my pension?",
         {"income": "50000.00", "tax_year": 2025, "jurisdiction": "UK",
          "change": {"pension_contributions": "4000.00"}}),
    ],
)  # fmt: skip
def test_dev_disposals_pensions_rent_and_ranges(text: str, expected: dict[str, Any]) -> None:
    assert _with_change(text) == expected


def test_held_out_2_disposals_pensions_rent_and_ranges() -> None:
    """Ten sentences frozen (commit 72e0a76) before the parser read disposals, pensions, rent,
    monthly amounts or ranges: one from a public page, nine written by the helper (each record
    says which). First run 5 of 10; 10 of 10 after two generic changes made after seeing the
    misses (an amount's kind from the words between it and its neighbours, not its whole
    clause; the disposal's own clauses give no income and no tax year) — no longer unseen."""
    cases = [json.loads(line) for line in HELD_OUT_2.read_text(encoding="utf-8").splitlines()]
    passed = [case["text"] for case in cases if _with_change(case["text"]) == case["expect"]]
    assert len(cases) == 10
    assert len(passed) == 10, set(c["text"] for c in cases) - set(passed)


def test_a_bare_number_is_never_an_amount_and_a_k_suffix_is() -> None:
    # "2 children" is a count of children (ADR 0091), never an amount; 1990 no tax year
    born = parse_facts("I was born in 1990 and have 2 children")
    assert born.data() == {"dependent_children": 2}
    assert parse_facts("earning 45k").income == Decimal("45000.00")
    assert parse_facts("€42.5k salary").paye_income == Decimal("42500.00")


def test_the_cheap_check_passes_plain_questions_by() -> None:
    assert not maybe_scenario("What is the standard rate of VAT in Ireland?")
    assert not maybe_scenario("When is the CGT deadline for a disposal in December 2025?")
    assert maybe_scenario("what if I earned €60,000 instead?")
    assert maybe_scenario("suppose my salary were 70k")


def test_a_what_if_amount_replaces_the_income_it_must_mean() -> None:
    stated = StatedFacts(self_employed_income=Decimal(40000), tax_year=2025, jurisdiction="IE")
    change = parse_what_if("what if I made €50,000?").change
    assert change is not None
    merged = change.over(stated)
    assert merged.self_employed_income == Decimal("50000.00") and merged.income is None
    # "what if I earned £60,000" keeps a stated NI: the currency names no jurisdiction there
    ni = StatedFacts(paye_income=Decimal(30000), tax_year=2025, jurisdiction="NI")
    pounds = parse_what_if("what if I earned £60,000?").change
    assert pounds is not None and pounds.over(ni).jurisdiction == "NI"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I sold shares for €20,000 in March 2025 that cost €8,000 in 2019.",
         {"asset": "shares", "cost": "8000.00", "proceeds": "20000.00", "acquired": "2019",
          "disposed": "2025-03"}),
        ("In 2025 I sold shares for €20,000 that I bought in 2019 for €8,000, paying €500 in "
         "fees.",
         {"asset": "shares", "cost": "8000.00", "proceeds": "20000.00", "expenses": "500.00",
          "acquired": "2019", "disposed": "2025"}),
        ("I sold a flat for £250,000 in July 2025 that I bought in 2012 for £180,000. Estate "
         "agent and solicitor fees came to £4,000. I earn £60,000 as an employee.",
         {"asset": "flat", "cost": "180000.00", "proceeds": "250000.00", "expenses": "4000.00",
          "acquired": "2012", "disposed": "2025-07"}),
    ],
)  # fmt: skip
def test_a_disposal_said_with_what_it_cost_and_its_fees(
    text: str, expected: dict[str, str]
) -> None:
    stated = parse_facts(text)
    assert stated.disposals is not None
    assert stated.disposals[0].data() == expected
    # the cost, proceeds and fees are never an income
    assert stated.income is None and stated.paye_income in (None, Decimal("60000.00"))


@pytest.mark.parametrize(
    "text",
    [
        "I have losses of €3,000 brought forward and earn €50,000 PAYE in 2025",
        "I earn €50,000 as a PAYE employee in 2025 and have unused capital losses of €3,000",
        "My losses carried forward from earlier years are €3,000; I earn €50,000 PAYE, 2025",
    ],
)
def test_losses_brought_forward_are_read_and_never_an_income(text: str) -> None:
    stated = parse_facts(text)
    assert stated.capital_losses_brought_forward == Decimal("3000.00")
    assert stated.paye_income == Decimal("50000.00") and stated.income is None


@pytest.mark.parametrize(
    ("text", "assessment"),
    [
        ("We're married, jointly assessed, I earn €50,000 PAYE in 2025", "joint"),
        ("Married, joint assessment, 2025, my salary is €50,000", "joint"),
        ("We are married but treated as single, I earn €50,000 in 2025", "separate_treatment"),
        ("Married with separate treatment, €50,000 PAYE, 2025", "separate_treatment"),
        ("Married, €50,000 PAYE, 2025", None),
    ],
)
def test_how_a_couple_is_assessed_is_read_when_said(text: str, assessment: str | None) -> None:
    assert parse_facts(text).assessment == assessment


def test_marrying_someone_with_an_income_states_the_spouses_income() -> None:
    question = parse_what_if(
        "I earn €50,000 PAYE, single, in 2025. What if I married someone earning €30,000?"
    )
    assert question.change is not None
    assert question.change.spouse_paye_income == Decimal("30000.00")
    assert question.change.status == "married" and question.change.income is None
