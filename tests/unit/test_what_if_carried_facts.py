"""Facts stated in one chat turn reach the next (issue 28): the conversation's stored scenario
carries every fact the parser stores — sales, pension, rent, household facts — not only the
incomes, status, year, jurisdiction and age, so a date-only what-if ("what if I sold them in May
instead?") finds the sale stated a turn earlier, with no scenario linked."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from conversations.sqlite import SqliteConversationStore
from engine.turn.what_if import WhatIfOutcome, WhatIfStep
from graph.models import GraphNode
from tests.unit.test_scenario_support import SeedReader

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


class SeedNodes:
    def __init__(self) -> None:
        self.nodes = SeedReader().nodes

    def get(self, node_id: str) -> GraphNode | None:
        return self.nodes.get(node_id)


async def _turns(tmp_path: Path, *messages: str) -> list[WhatIfOutcome | None]:
    """Each message as a turn of one conversation (no history passed: what a turn knows of
    the earlier ones is the conversation's stored scenario); each turn's outcome."""
    store = SqliteConversationStore(tmp_path / "c.db")
    await store.init()
    try:
        step = WhatIfStep(store.scenario_store(), SeedNodes())
        outcomes = [await step.run("t1", "u1", "c1", m, []) for m in messages]
    finally:
        await store.aclose()
    return outcomes


async def test_a_sale_stated_a_turn_earlier_is_moved_by_a_date_only_what_if(
    tmp_path: Path,
) -> None:
    first, second = await _turns(
        tmp_path,
        "I earn £50,000 PAYE. I sold shares on 15 March 2025 for £20,000 that I bought in 2019 "
        "for £5,000.",
        "What if I sold them in May instead?",
    )
    assert first is not None and first.result is None and first.scenario_id
    assert second is not None
    result = second.result
    assert result is not None and result.missing == [] and result.comparison is not None
    before, after = result.facts
    assert (before["tax_year"], before["disposals"][0]["disposed_on"]) == (2024, "2025-03-15")
    assert (after["tax_year"], after["disposals"][0]["disposed_on"]) == (2025, "2025-05-01")
    assert after["disposals"][0]["proceeds"] == "20000.00"
    assert after["disposals"][0]["cost"] == "5000.00"


async def test_every_stored_fact_survives_to_the_next_turn(tmp_path: Path) -> None:
    _, second = await _turns(
        tmp_path,
        "My husband died in 2022. I am 40, I have 2 children and I earn €50,000 as a PAYE "
        "employee in 2025; I pay €1,200 a month rent, the tenancy is registered with the RTB. "
        "I put €3,000 into a PRSA.",
        "what if I earned €60,000 instead?",
    )
    assert second is not None
    result = second.result
    assert result is not None and result.missing == [] and result.comparison is not None
    for facts in result.facts:
        kept = {
            k: facts[k]
            for k in (
                "status",
                "bereaved_in",
                "age",
                "dependent_children",
                "rent_paid",
                "tenancy_registered",
                "pension_contributions",
            )
        }
        assert kept == {
            "status": "widowed",
            "bereaved_in": 2022,
            "age": 40,
            "dependent_children": 2,
            "rent_paid": "14400.00",
            "tenancy_registered": True,
            "pension_contributions": "3000.00",
        }
    assert [f["paye_income"] for f in result.facts] == ["50000.00", "60000.00"]
    (snapshot,) = result.comparison.snapshots
    lines = {line.key: line.amounts for line in snapshot.lines}
    # the third year after bereavement: the widowed parent credit €2,700 in both columns
    assert lines["credit_widowed_parent"] == [Decimal("-2700.00")] * 2


async def test_an_irish_sale_with_no_income_is_stored_and_moved_a_turn_later(
    tmp_path: Path,
) -> None:
    first, second = await _turns(
        tmp_path,
        "I sold shares on 10 March 2025 for €30,000 that I bought in 2018 for €10,000.",
        "What if I sold them in January 2026 instead?",
    )
    assert first is not None and first.scenario_id
    assert second is not None
    result = second.result
    assert result is not None and result.missing == []
    assert [f["tax_year"] for f in result.facts] == [2025, 2026]
    assert result.facts[1]["disposals"][0]["disposed_on"] == "2026-01-01"
