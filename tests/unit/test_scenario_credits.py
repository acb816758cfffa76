"""The credits and reliefs of some households, computed from the graph (issue 28): the rent tax
credit, the single person child carer credit, the widowed person and widowed parent credits,
pension contribution relief, Irish separate assessment and UK Marriage Allowance; and a share
sale told that principal private residence relief does not apply to it.

Dev examples written from the rules on Revenue's, Citizens Information's and GOV.UK's pages
(figures of our own, none from the frozen held-out sets); each total is worked in the comment.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from scenarios import Facts, Snapshot, evaluate_snapshot
from scenarios.eligibility import assess, load_rules
from scenarios.result import SnapshotResult
from tests.unit.test_scenario_support import SeedReader

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


async def _run(**facts: Any) -> SnapshotResult:
    reader = SeedReader()
    parsed = Facts.model_validate({"jurisdiction": "IE", "status": "single", **facts})
    snapshot = Snapshot(label="x", as_at=date(parsed.tax_year, 12, 31), facts=parsed)
    result = await evaluate_snapshot(reader, snapshot, await load_rules(reader))
    for line in result.lines:  # every line cites nodes the graph holds
        assert line.node_ids and set(line.node_ids) <= reader.nodes.keys(), line
    return result


def _line(result: SnapshotResult, key: str, person: str = "you") -> Decimal | None:
    return next((ln.amount for ln in result.lines if ln.key == key and ln.person == person), None)


def _missing(result: SnapshotResult) -> set[str | None]:
    return {g.missing for g in result.gaps}


# --- rent tax credit -------------------------------------------------------------------------


async def test_rent_credit_is_a_fifth_of_the_rent() -> None:
    result = await _run(tax_year=2025, age=30, paye_income="38000", rent_paid="3500",
                        tenancy_registered=True)  # fmt: skip
    assert _line(result, "credit_rent") == Decimal("-700.00")
    # 38,000 x 20% = 7,600 - 2,000 - 2,000 - 700
    assert result.total("income_tax") == Decimal("2900.00")
    assert result.gaps == []


async def test_rent_credit_of_a_jointly_assessed_couple_is_capped_at_the_couple_amount() -> None:
    result = await _run(tax_year=2025, status="married", assessment="joint", age=40,
                        spouse_age=40, paye_income="50000", rent_paid="12000",
                        tenancy_registered=True)  # fmt: skip
    assert _line(result, "credit_rent", "couple") == Decimal("-2000.00")  # not 12,000 x 20%
    # 50,000 x 20% (band 53,000) = 10,000 - 4,000 - 2,000 - 2,000
    assert result.total("income_tax", "couple") == Decimal("2000.00")


async def test_rent_credit_when_the_tenancy_is_not_known_or_not_registered() -> None:
    unknown = await _run(tax_year=2025, age=30, paye_income="38000", rent_paid="3500")
    assert _line(unknown, "credit_rent") is None
    assert "tenancy_registered" in _missing(unknown)
    assert unknown.total("income_tax") == Decimal("3600.00")
    refused = await _run(tax_year=2025, age=30, paye_income="38000", rent_paid="3500",
                         tenancy_registered=False)  # fmt: skip
    assert _line(refused, "credit_rent") is None and refused.gaps == []


async def test_no_rent_credit_without_its_node_for_the_year() -> None:
    reader = SeedReader({"IE:RELIEF:RENT_TAX_CREDIT_SINGLE:2025": None})
    facts = Facts(tax_year=2025, jurisdiction="IE", age=30, paye_income=Decimal(38000),
                  rent_paid=Decimal(3500), tenancy_registered=True)  # fmt: skip
    snapshot = Snapshot(label="x", as_at=date(2025, 12, 31), facts=facts)
    result = await evaluate_snapshot(reader, snapshot)
    assert _line(result, "credit_rent") is None
    assert any(g.missing and "RENT_TAX_CREDIT_SINGLE" in g.missing for g in result.gaps)


# --- single person child carer and widowed credits --------------------------------------------


async def test_single_person_child_carer_credit_and_band_2024() -> None:
    result = await _run(tax_year=2024, status="separated", age=35, dependent_children=1,
                        single_person_child_carer=True, paye_income="46000")  # fmt: skip
    assert _line(result, "credit_spccc") == Decimal("-1750.00")
    # band 46,000: 9,200 - 1,875 - 1,875 - 1,750
    assert result.total("income_tax") == Decimal("3700.00")
    assert result.gaps == []


async def test_widowed_without_children_gets_the_widowed_person_credit() -> None:
    result = await _run(tax_year=2024, status="widowed", bereaved_in=2019, age=55,
                        paye_income="50000")  # fmt: skip
    assert _line(result, "credit_widowed") == Decimal("-540.00")
    # 42,000 x 20% + 8,000 x 40% = 11,600 - 1,875 - 540 - 1,875
    assert result.total("income_tax") == Decimal("7310.00")


async def test_widowed_parent_credit_tapers_over_five_years() -> None:
    facts = {"tax_year": 2025, "status": "widowed", "age": 45, "dependent_children": 1,
             "single_person_child_carer": True, "paye_income": "40000"}  # fmt: skip
    fifth = await _run(bereaved_in=2020, **facts)
    assert _line(fifth, "credit_widowed_parent") == Decimal("-1800.00")
    # 8,000 - 2,000 - 2,000 - 1,900 - 1,800
    assert fifth.total("income_tax") == Decimal("300.00")
    sixth = await _run(bereaved_in=2019, **facts)
    assert _line(sixth, "credit_widowed_parent") is None
    assert sixth.total("income_tax") == Decimal("2100.00")
    assert _line(sixth, "credit_widowed") is None  # children: not the widowed person credit


async def test_widowed_year_not_stated_or_the_year_of_bereavement_is_a_gap() -> None:
    unknown = await _run(tax_year=2025, status="widowed", age=50, paye_income="40000")
    assert unknown.total("income_tax") is None and "bereaved_in" in _missing(unknown)
    same = await _run(tax_year=2025, status="widowed", bereaved_in=2025, age=50,
                      paye_income="40000")  # fmt: skip
    assert same.total("income_tax") is None and "bereaved_in" in _missing(same)


def test_impossible_widowed_and_marriage_allowance_facts_are_refused() -> None:
    with pytest.raises(ValidationError):
        Facts(tax_year=2025, jurisdiction="IE", status="single", bereaved_in=2020)
    with pytest.raises(ValidationError):
        Facts(tax_year=2025, jurisdiction="IE", status="widowed", bereaved_in=2026)
    with pytest.raises(ValidationError):
        Facts(tax_year=2025, jurisdiction="IE", status="married", marriage_allowance=True)


# --- pension contribution relief ---------------------------------------------------------------


async def test_pension_relief_is_limited_by_age_and_does_not_reduce_usc() -> None:
    without = await _run(tax_year=2025, age=55, paye_income="80000")
    result = await _run(tax_year=2025, age=55, paye_income="80000", pension_contributions="30000")
    relief = next(ln for ln in result.lines if ln.key == "pension_relief_you")
    assert relief.base == Decimal("28000")  # 35% of 80,000; 2,000 carries forward
    assert "carries forward" in relief.description
    # taxable 52,000: 8,800 + 3,200 - 4,000
    assert result.total("income_tax") == Decimal("8000.00")
    assert result.total("usc") == without.total("usc")
    assert result.total("prsi") == without.total("prsi")


async def test_pension_relief_earnings_limit_and_unknown_age() -> None:
    capped = await _run(tax_year=2024, age=61, paye_income="150000",
                        pension_contributions="60000")  # fmt: skip
    relief = next(ln for ln in capped.lines if ln.key == "pension_relief_you")
    assert relief.base == Decimal("46000")  # 40% of the 115,000 limit
    unknown = await _run(tax_year=2024, paye_income="50000", pension_contributions="5000")
    assert not any(ln.key == "pension_relief_you" for ln in unknown.lines)
    assert any("pension contribution relief" in g.reason for g in unknown.gaps)


# --- separate assessment -----------------------------------------------------------------------


async def test_separate_assessment_pays_what_joint_assessment_pays() -> None:
    facts = {"tax_year": 2024, "status": "married", "age": 40, "spouse_age": 40,
             "paye_income": "70000", "spouse_paye_income": "20000"}  # fmt: skip
    separate = await _run(assessment="separate_assessment", **facts)
    joint = await _run(assessment="joint", **facts)
    # you: band 51,000 (71,000 less the spouse's 20,000): 10,200 + 7,600 - 1,875 - 1,875
    assert separate.total("income_tax") == Decimal("14050.00")
    # spouse: 20,000 x 20% - 1,875 - 1,875
    assert separate.total("income_tax", "spouse") == Decimal("250.00")
    assert joint.total("income_tax", "couple") == Decimal("14300.00")


async def test_separate_assessment_passes_unused_credits_to_the_other_spouse() -> None:
    result = await _run(tax_year=2024, status="married", assessment="separate_assessment",
                        age=40, spouse_age=40, paye_income="60000",
                        spouse_paye_income="5000")  # fmt: skip
    assert _line(result, "credit_transferred") == Decimal("-1875.00")
    # 51,000 x 20% + 9,000 x 40% = 13,800 - 1,875 - 1,875 - 1,875
    assert result.total("income_tax") == Decimal("8175.00")
    assert result.total("income_tax", "spouse") == Decimal("0.00")


# --- UK Marriage Allowance ---------------------------------------------------------------------


async def test_marriage_allowance_received_from_a_spouse() -> None:
    result = await _run(tax_year=2024, jurisdiction="UK", status="married", age=40,
                        paye_income="25000", marriage_allowance=True)  # fmt: skip
    assert _line(result, "marriage_allowance") == Decimal("-252.00")
    # (25,000 - 12,570) x 20% = 2,486 - 252
    assert result.total("income_tax") == Decimal("2234.00")


async def test_marriage_allowance_not_due_or_transferred_by_you() -> None:
    above = await _run(tax_year=2025, jurisdiction="UK", status="married", age=40,
                       paye_income="25000", spouse_paye_income="15000",
                       marriage_allowance=True)  # fmt: skip
    assert _line(above, "marriage_allowance") == Decimal("0.00")
    assert above.total("income_tax") == Decimal("2486.00")
    lower = await _run(tax_year=2025, jurisdiction="UK", status="married", age=40,
                       paye_income="9000", spouse_paye_income="30000",
                       marriage_allowance=True)  # fmt: skip
    assert "marriage_allowance" in _missing(lower)


# --- principal private residence relief and shares ---------------------------------------------


@pytest.mark.parametrize("jurisdiction", ["IE", "UK"])
async def test_a_share_sale_is_told_home_reliefs_do_not_apply(jurisdiction: str) -> None:
    facts = Facts.model_validate({
        "tax_year": 2025, "jurisdiction": jurisdiction, "age": 40,
        "disposals": [{"asset": "Apple shares", "acquired_on": "2015-03-01",
                       "disposed_on": "2025-05-01", "cost": "1000", "proceeds": "20000"}],
    })  # fmt: skip
    found = assess(await load_rules(SeedReader()), facts, date(2025, 6, 1))
    home = [e for e in found if "RESIDENCE" in e.node_id]
    assert all(e.status == "does_not_apply" for e in home)
    if jurisdiction == "IE":
        (ppr,) = home
        dwelling = next(c for c in ppr.conditions if c.node_id == "IE:CONDITION:PPR_DWELLING_HOUSE")
        assert dwelling.status == "not_met" and "shares" in dwelling.name
    assert not any("main_residence" in e.missing for e in found)


async def test_a_house_stated_as_the_main_residence_still_gets_the_relief() -> None:
    facts = Facts.model_validate({
        "tax_year": 2025, "jurisdiction": "IE", "age": 40,
        "disposals": [{"asset": "house", "acquired_on": "2015-03-01", "disposed_on": "2025-05-01",
                       "cost": "200000", "proceeds": "300000", "main_residence": True}],
    })  # fmt: skip
    found = assess(await load_rules(SeedReader()), facts, date(2025, 6, 1))
    ppr = next(e for e in found if e.node_id == "IE:RELIEF:PRINCIPAL_PRIVATE_RESIDENCE")
    assert ppr.status == "applies"


# --- retirement relief (s.598, a disposal outside the family) -----------------------------------


async def _retiring(
    tax_year: int, age: int, proceeds: str, cost: str = "200000", held: str = "40"
) -> SnapshotResult:
    return await _run(tax_year=tax_year, age=age, disposals=[{
        "asset": "company shares", "acquired_on": "2008-02-01",
        "disposed_on": f"{tax_year}-09-30", "cost": cost, "proceeds": proceeds,
        "shareholding_percent": held, "working_director": True, "to_child": False,
    }])  # fmt: skip


async def test_retirement_relief_exempts_a_sale_within_the_limit() -> None:
    result = await _retiring(2025, 58, "700000")
    exempt = next(ln for ln in result.lines if ln.key.startswith("relief_exempt"))
    assert exempt.base == Decimal("500000")
    assert "IE:THRESHOLD:RR_LIMIT:2025" in exempt.node_ids
    assert "IE:CONDITION:RR_WORKING_DIRECTOR" in exempt.node_ids
    assert result.total("cgt") == Decimal("0.00")
    # neither a relief gap nor entrepreneur relief on a gain already exempt
    assert not [g for g in result.gaps if "retirement" in g.reason or "entrepreneur" in g.reason]
    assert not any(ln.key == "charge_relief_rate" for ln in result.lines)


async def test_retirement_relief_lower_limit_moved_from_66_to_70_in_2025() -> None:
    # aged 67 with €600,000: 2025's limit is €750,000 (the lower one from 70); 2024's €500,000
    within = await _retiring(2025, 67, "600000")
    assert within.total("cgt") == Decimal("0.00")
    above = await _retiring(2024, 67, "600000")
    # above the limit: marginal relief caps the tax at half of €100,000, but entrepreneur
    # relief's 10% on (400,000 - 1,270) is lower
    assert not any(ln.key == "marginal_relief" for ln in above.lines)
    assert above.total("cgt") == Decimal("39873.00")


async def test_retirement_relief_marginal_relief_caps_the_tax() -> None:
    # aged 72 in 2025 (limit €500,000), 4% of the shares (no entrepreneur relief): the tax on
    # (520,000 - 100,000 - 1,270) at 33% = 138,180.90 is capped at 50% of 20,000
    result = await _retiring(2025, 72, "520000", cost="100000", held="4")
    marginal = next(ln for ln in result.lines if ln.key == "marginal_relief")
    assert marginal.amount == Decimal("-128180.90")
    assert "IE:RATE:RR_MARGINAL:2025" in marginal.node_ids
    assert result.total("cgt") == Decimal("10000.00")
