"""A what-if on a stored scenario (issue 28, ADR 0063 second addendum), without a store: the
latest snapshot is the base, what a message states is laid over the stored facts (keeping every
fact it does not state), and the comparison has the stored snapshot as its first column."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from scenarios.chat import (
    apply_stated,
    latest_snapshot,
    prompt_section,
    read_section,
    what_if_stored,
)
from scenarios.models import Disposal, Facts, Snapshot
from scenarios.stated import StatedFacts, parse_what_if
from tests.unit.test_scenario_support import SeedReader

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


def _facts(**kw: object) -> Facts:
    base: dict[str, object] = {
        "tax_year": 2025,
        "jurisdiction": "IE",
        "status": "single",
        "paye_income": Decimal(50000),
    }
    return Facts.model_validate({**base, **kw})


def test_the_latest_snapshot_is_the_latest_as_at_and_the_later_listed_on_a_tie() -> None:
    early = Snapshot(label="early", as_at=date(2025, 3, 1), facts=_facts())
    late = Snapshot(label="late", as_at=date(2025, 12, 31), facts=_facts())
    tie = Snapshot(label="tie", as_at=date(2025, 12, 31), facts=_facts())
    assert latest_snapshot([late, early]) is late
    assert latest_snapshot([early, late, tie]) is tie
    assert latest_snapshot([]) is None


def test_a_change_of_income_of_no_kind_replaces_the_stored_employment_income() -> None:
    stored = _facts(
        dependent_children=2,
        rent_paid=Decimal(12000),
        age=41,
        disposals=[
            Disposal(
                asset="shares",
                acquired_on=date(2015, 1, 1),
                disposed_on=date(2025, 5, 1),
                cost=Decimal(1000),
                proceeds=Decimal(9000),
            )
        ],
    )
    change = parse_what_if("what if I earned €60,000 instead?").change
    assert change is not None and change.income == Decimal(60000)
    merged, assumed, missing = apply_stated(stored, change)
    assert merged is not None and missing == [] and assumed == []
    assert merged.paye_income == Decimal(60000)
    # every stored fact the change does not state is kept
    assert (merged.dependent_children, merged.rent_paid, merged.age) == (2, Decimal(12000), 41)
    assert [d.asset for d in merged.disposals] == ["shares"]
    assert stored.paye_income == Decimal(50000)  # the stored facts are not changed


def test_an_amount_of_no_kind_replaces_a_self_employed_only_income() -> None:
    stored = _facts(paye_income=Decimal(0), self_employed_income=Decimal(42000))
    merged, _, _ = apply_stated(stored, StatedFacts(income=Decimal(50000)))
    assert merged is not None
    assert (merged.paye_income, merged.self_employed_income) == (Decimal(0), Decimal(50000))


def test_stated_kinds_status_and_year_win_and_impossible_facts_are_missing() -> None:
    merged, _, _ = apply_stated(
        _facts(), StatedFacts(self_employed_income=Decimal(20000), status="married", tax_year=2024)
    )
    assert merged is not None
    assert (merged.paye_income, merged.self_employed_income) == (Decimal(50000), Decimal(20000))
    assert (merged.status, merged.tax_year) == ("married", 2024)
    merged, _, missing = apply_stated(_facts(), StatedFacts(age=200))
    assert merged is None and missing and "facts the engine accepts" in missing[0]


async def test_the_stored_snapshot_is_the_first_column_and_the_change_the_second() -> None:
    snapshot = Snapshot(label="This year", as_at=date(2025, 6, 30), facts=_facts(age=35))
    question = parse_what_if("what if I earned €60,000 instead?")
    assert question.change is not None
    result = await what_if_stored(
        SeedReader(), "sc-1", "Salary: plan", snapshot, question.stated, question.change
    )
    assert result.columns == ["Salary plan (This year)", "what if"]
    assert result.base == {
        "scenarioId": "sc-1",
        "label": "Salary: plan",
        "snapshot": "This year",
        "asAt": "2025-06-30",
    }
    assert result.scenario_id == "sc-1" and result.missing == []
    assert [Decimal(f["paye_income"]) for f in result.facts] == [50000, 60000]
    assert all(f["age"] == 35 for f in result.facts)
    assert result.comparison is not None
    (compared,) = result.comparison.snapshots
    assert compared.label == "This year"
    totals = {(d.tax, d.person): d for d in compared.totals}
    # the same figures as the facts stated in the chat (tests/unit/test_what_if_chat.py)
    assert totals[("income_tax", "you")].amounts == [Decimal("7200.00"), Decimal("11200.00")]
    assert result.node_ids
    meta, rows, _ = read_section(prompt_section(result)) or ({}, [], [])
    assert meta["columns"][0].startswith("Salary plan (This year): PAYE €50,000.00")
    assert rows and all(row["nodes"] for row in rows)


async def test_a_change_the_engine_cannot_take_is_missing_not_guessed() -> None:
    snapshot = Snapshot(label="Now", as_at=date(2025, 12, 31), facts=_facts())
    result = await what_if_stored(
        SeedReader(), "sc-1", "Plan", snapshot, StatedFacts(), StatedFacts(age=200)
    )
    assert result.comparison is None and result.missing
    assert result.base is not None and result.scenario_id == "sc-1"
