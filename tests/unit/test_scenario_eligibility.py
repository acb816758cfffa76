"""Eligibility and deadlines per snapshot, decided by the graph's conditions (ADR 0071)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from scenarios import Facts, ScenarioInput, Snapshot, compare, evaluate, load_rules
from scenarios.eligibility import (
    DISPOSAL_FACTS,
    RULE_LABELS,
    Eligibility,
    ExpressionError,
    assess,
    evaluate_expression,
    parse_expression,
)
from tests.unit.test_scenario_support import SeedReader

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

AS_AT = date(2025, 6, 1)


def _facts(**facts: Any) -> Facts:
    return Facts(**{"tax_year": 2025, "jurisdiction": "IE", "age": 40, **facts})


def _shares(**extra: Any) -> dict[str, Any]:
    return {"asset": "shares", "acquired_on": "2012-03-01", "disposed_on": "2025-05-01",
            "cost": "1000", "proceeds": "20000", **extra}  # fmt: skip


async def _assess(facts: Facts, reader: SeedReader | None = None) -> dict[tuple[str, str | None],
                                                                          Eligibility]:  # fmt: skip
    rules = await load_rules(reader or SeedReader())
    return {(e.node_id, e.about): e for e in assess(rules, facts, AS_AT)}


def test_expressions_are_three_valued() -> None:
    facts = {"age": Decimal(70), "rent_paid": Decimal(0), "tenancy_registered": None}
    assert evaluate_expression("age >= value", facts, Decimal(65)) == (True, [])
    assert evaluate_expression("rent_paid > 0", facts) == (False, [])
    assert evaluate_expression("tenancy_registered == true", facts) == (
        None,
        ["tenancy_registered"],
    )
    # one true alternative decides; a false clause decides a conjunction despite a missing one
    assert evaluate_expression("rent_paid > 0 or age >= 65", facts) == (True, [])
    assert evaluate_expression("rent_paid > 0 and tenancy_registered", facts) == (False, [])
    assert evaluate_expression("years_owned >= 3", facts) == (None, ["years_owned"])
    with pytest.raises(ExpressionError):
        parse_expression("age >= sixty")


async def test_every_expression_in_the_seeds_reads_and_names_known_facts() -> None:
    known = set(Facts.model_fields) | DISPOSAL_FACTS | {"disposals"}
    found = 0
    for node in (await SeedReader().snapshot(RULE_LABELS, 5000)).nodes:
        for key in ("applies_when", "test"):
            if text := node.properties.get(key):
                found += 1
                facts = {c.fact for alt in parse_expression(str(text)) for c in alt}
                assert facts <= known, (node.id, facts - known)
    assert found >= 30


async def test_a_credit_applies_fails_or_cannot_be_told_by_its_condition() -> None:
    unknown = await _assess(_facts(paye_income="50000"))
    credit = unknown[("IE:RELIEF:EMPLOYEE_TAX_CREDIT", None)]
    assert credit.status == "cannot_tell"
    assert credit.missing == ["proprietary_director"]
    assert credit.node_ids == ["IE:RELIEF:EMPLOYEE_TAX_CREDIT",
                               "IE:CONDITION:NOT_PROPRIETARY_DIRECTOR"]  # fmt: skip
    employee = await _assess(_facts(paye_income="50000", proprietary_director=False))
    assert employee[("IE:RELIEF:EMPLOYEE_TAX_CREDIT", None)].status == "applies"
    director = await _assess(_facts(paye_income="50000", proprietary_director=True))
    assert director[("IE:RELIEF:EMPLOYEE_TAX_CREDIT", None)].status == "does_not_apply"
    # not relevant at all: no rent paid, no self-employment
    assert ("IE:RELIEF:RENT_TAX_CREDIT", None) not in unknown
    assert ("IE:OBLIGATION:FORM_11_RETURN", None) not in unknown


async def test_a_single_persons_age_credit_does_not_wait_for_a_spouse() -> None:
    young = await _assess(_facts(paye_income="30000", age=40))
    assert ("IE:RELIEF:AGE_TAX_CREDIT", None) not in young
    old = await _assess(_facts(paye_income="30000", age=67))
    assert old[("IE:RELIEF:AGE_TAX_CREDIT", None)].status == "applies"
    unknown = await _assess(_facts(paye_income="30000", age=None))
    assert unknown[("IE:RELIEF:AGE_TAX_CREDIT", None)].missing == ["age"]


async def test_self_employment_binds_the_pay_and_file_deadlines() -> None:
    found = await _assess(_facts(self_employed_income="40000"))
    form11 = found[("IE:OBLIGATION:FORM_11_RETURN", None)]
    assert form11.status == "applies"
    [due] = form11.deadlines
    assert (due.node_id, due.end, due.status) == (
        "IE:TIMELINE:RETURN_DEADLINE_31_OCT",
        date(2026, 10, 31),
        "ahead",
    )
    [prelim] = found[("IE:OBLIGATION:PRELIMINARY_TAX", None)].deadlines
    assert (prelim.end, prelim.status) == (date(2025, 10, 31), "ahead")


@pytest.mark.parametrize(
    ("disposed_on", "timeline", "due"),
    [
        ("2025-05-01", "IE:TIMELINE:CGT_PAYMENT_15_DEC", date(2025, 12, 15)),
        ("2025-12-10", "IE:TIMELINE:CGT_PAYMENT_31_JAN", date(2026, 1, 31)),
    ],
)
async def test_the_cgt_payment_date_follows_the_disposal_month(
    disposed_on: str, timeline: str, due: date
) -> None:
    found = await _assess(_facts(disposals=[_shares(disposed_on=disposed_on)]))
    payment = found[("IE:OBLIGATION:CGT_PAYMENT", "shares")]
    assert [(d.node_id, d.end) for d in payment.deadlines] == [(timeline, due)]
    [ret] = found[("IE:OBLIGATION:CGT_RETURN", "shares")].deadlines
    assert ret.end == date(2026, 10, 31)


async def test_retirement_relief_is_decided_by_the_graphs_age_condition() -> None:
    director = _shares(working_director=True)
    young = await _assess(_facts(age=54, disposals=[director]))
    relief = young[("IE:RELIEF:RETIREMENT_RELIEF", "shares")]
    assert relief.status == "does_not_apply"
    assert {c.node_id: c.status for c in relief.conditions} == {
        "IE:CONDITION:RR_AGE_55": "not_met",
        "IE:CONDITION:RR_OWNERSHIP_10_YEARS": "met",
        "IE:CONDITION:RR_WORKING_DIRECTOR": "met",
    }
    assert relief.deadlines == []
    no_age = await _assess(_facts(age=None, disposals=[director]))
    assert no_age[("IE:RELIEF:RETIREMENT_RELIEF", "shares")].missing == ["age"]
    # the age is the condition node's value: change it in the graph and the verdict follows
    lower = SeedReader({"IE:CONDITION:RR_AGE_55": {"value": 50}})
    moved = await _assess(_facts(age=54, disposals=[director]), lower)
    assert moved[("IE:RELIEF:RETIREMENT_RELIEF", "shares")].status == "applies"


async def test_a_condition_held_only_in_words_cannot_be_told_and_says_why() -> None:
    reader = SeedReader({"IE:CONDITION:RR_AGE_55": {"test": None}})
    found = await _assess(_facts(age=60, disposals=[_shares(working_director=True)]), reader)
    relief = found[("IE:RELIEF:RETIREMENT_RELIEF", "shares")]
    assert relief.status == "cannot_tell"
    assert relief.missing == [
        "IE:CONDITION:RR_AGE_55 (the graph states this condition in words only)"
    ]


async def test_uk_residential_gain_has_sixty_days() -> None:
    facts = Facts(tax_year=2025, jurisdiction="UK",
                  disposals=[_shares(asset="flat", residential_property=True,
                                     disposed_on="2025-07-10")])  # fmt: skip
    found = await _assess(facts)
    [due] = found[("UK:OBLIGATION:CGT_PROPERTY_60_DAYS", "flat")].deadlines
    assert due.end == date(2025, 9, 8)
    assert not any(key[0].startswith("IE:") for key in found)


async def test_compare_says_which_obligations_are_gained() -> None:
    def scenario(label: str, **facts: Any) -> ScenarioInput:
        return ScenarioInput(label=label, snapshots=[Snapshot(label="2025", as_at=AS_AT,
                                                              facts=_facts(**facts))])  # fmt: skip

    reader = SeedReader()
    rules = await load_rules(reader)
    paye = await evaluate(reader, scenario("PAYE", paye_income="50000"), rules)
    both = await evaluate(
        reader, scenario("side", paye_income="50000", self_employed_income="10000"), rules
    )
    [snap] = compare(["PAYE", "side"], [paye, both]).snapshots
    by_id = {d.node_id: d for d in snap.eligibility}
    form11 = by_id["IE:OBLIGATION:FORM_11_RETURN"]
    assert form11.statuses == [None, "applies"] and form11.changed
    assert form11.deadlines == {"IE:TIMELINE:RETURN_DEADLINE_31_OCT": [None, date(2026, 10, 31)]}
    assert not by_id["IE:RELIEF:EMPLOYEE_TAX_CREDIT"].changed
    # without rules nothing is claimed either way
    assert (await evaluate(reader, scenario("x", paye_income="1")))[0].eligibility is None
