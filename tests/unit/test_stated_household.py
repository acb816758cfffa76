"""The chat parser reads the household facts the credits turn on, and a what-if that only moves a
sale in time (issue 28, ADR 0091)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from scenarios import Disposal, Facts
from scenarios.chat import apply_stated, what_if
from scenarios.stated import parse_facts, parse_what_if, tax_year_of
from tests.unit.test_scenario_support import SeedReader

pytestmark = [pytest.mark.unit]


def test_a_single_parent_renting_on_a_registered_tenancy() -> None:
    facts = parse_facts(
        "I am a single parent with two kids, I earn €50,000 PAYE in 2025 and pay €1,200 a month "
        "rent, the tenancy is registered with the RTB"
    )
    assert (facts.dependent_children, facts.single_person_child_carer) == (2, True)
    assert (facts.rent_paid, facts.tenancy_registered) == (Decimal("14400.00"), True)
    assert facts.tax_year == 2025
    unregistered = parse_facts("I pay €900 a month rent but the tenancy is not registered")
    assert unregistered.tenancy_registered is False


def test_a_bereavement_year_is_no_tax_year_and_makes_the_status_widowed() -> None:
    facts = parse_facts(
        "My husband died in 2022. I have a daughter and I earn €55,000 as a PAYE employee in "
        "2025, raising my daughter alone"
    )
    assert (facts.status, facts.bereaved_in, facts.tax_year) == ("widowed", 2022, 2025)
    assert (facts.dependent_children, facts.single_person_child_carer) == (1, True)
    alone = parse_facts("widowed in 2019, no children, I earn €40,000 salary")
    assert (alone.bereaved_in, alone.dependent_children, alone.tax_year) == (2019, 0, None)


def test_separate_assessment_and_marriage_allowance_are_read() -> None:
    couple = parse_facts("We are separately assessed, I earn €60,000 PAYE and my wife €30,000")
    assert couple.assessment == "separate_assessment"
    uk = parse_facts("I earn £30,000 in 2025-26, married, my wife transfers her Marriage Allowance")
    assert uk.marriage_allowance is True


def test_the_uk_tax_year_of_a_date_starts_on_6_april() -> None:
    assert tax_year_of("2025-03-15", "UK") == 2024
    assert tax_year_of("2025-04-06", "UK") == 2025
    assert tax_year_of("2025-05", "NI") == 2025
    assert tax_year_of("2025-03", "IE") == 2025
    assert tax_year_of("0000-05", "IE") is None


@pytest.mark.anyio
async def test_a_what_if_that_moves_a_uk_sale_across_the_tax_year() -> None:
    question = parse_what_if(
        "I earn £50,000 PAYE, I sold shares on 15 March 2025 for £20,000 that I bought in 2019 "
        "for £5,000. What if I sold them in May instead?"
    )
    assert question.change is not None and question.change.disposed_moved == "0000-05"
    result = await what_if(SeedReader(), question.stated, question.change)
    assert result.missing == []
    before, after = result.facts
    assert (before["tax_year"], before["disposals"][0]["disposed_on"]) == (2024, "2025-03-15")
    assert (after["tax_year"], after["disposals"][0]["disposed_on"]) == (2025, "2025-05-01")
    assert any("only 2025-05 stated" in said for said in result.assumed)


@pytest.mark.anyio
async def test_household_facts_stated_in_a_chat_reach_the_credits() -> None:
    question = parse_what_if(
        "My husband died in 2022. I have a daughter and I earn €55,000 as a PAYE employee in "
        "2025, raising my daughter alone. What if I earned €45,000?"
    )
    assert question.change is not None
    result = await what_if(SeedReader(), question.stated, question.change)
    assert result.comparison is not None
    (snapshot,) = result.comparison.snapshots
    lines = {line.key: line.amounts for line in snapshot.lines}
    # the third year after bereavement: €2,700; the single person child carer credit €1,900
    assert lines["credit_widowed_parent"] == [Decimal("-2700.00")] * 2
    assert lines["credit_spccc"] == [Decimal("-1900.00")] * 2


def test_a_stored_sale_moved_by_a_what_if_moves_its_tax_year() -> None:
    stored = Facts(
        tax_year=2025, jurisdiction="IE", age=40, paye_income=Decimal(50000),
        disposals=[Disposal(asset="shares", acquired_on=date(2019, 1, 1),
                            disposed_on=date(2025, 11, 20), cost=Decimal(1000),
                            proceeds=Decimal(9000))],
    )  # fmt: skip
    change = parse_what_if("what if I sell them in January 2026 instead?").change
    assert change is not None
    moved, assumed, missing = apply_stated(stored, change)
    assert "shares sold on 2026-01-01 (only 2026-01 stated)" in assumed
    assert missing == [] and moved is not None
    assert (moved.tax_year, moved.disposals[0].disposed_on) == (2026, date(2026, 1, 1))
    assert moved.paye_income == Decimal(50000)
