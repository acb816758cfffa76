"""The engine's CGT reliefs against a held-out set
(``bench/data/scenario_examples_reliefs_heldout.jsonl``).

The set was written from Revenue's and GOV.UK's relief pages and committed alone, before the
engine computed any relief (issue 28); its sha256 is pinned so it cannot drift with tuning.
"""

from __future__ import annotations

import hashlib
import json
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from bench.scenario_bench import grade
from scenarios import Facts, Snapshot, evaluate_snapshot
from scenarios.eligibility import load_rules
from scenarios.result import SnapshotResult
from tests.unit.test_scenario_support import SeedReader

pytestmark = [pytest.mark.unit]

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
HELD_OUT = DATA / "scenario_examples_reliefs_heldout.jsonl"
SHA256 = "32716f3e0f94e9e28c8fcea311bbc6c14b3d9c23a9d18b76ce153c6562ccfa8d"


def test_the_held_out_set_is_frozen() -> None:
    assert hashlib.sha256(HELD_OUT.read_bytes()).hexdigest() == SHA256


def _records() -> list[dict[str, Any]]:
    lines = HELD_OUT.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line]


async def _evaluate(facts: Facts, reader: SeedReader | None = None) -> SnapshotResult:
    reader = reader or SeedReader()
    snapshot = Snapshot(label="x", as_at=date(facts.tax_year, 12, 31), facts=facts)
    return await evaluate_snapshot(reader, snapshot, await load_rules(reader))


@pytest.mark.anyio
@pytest.mark.parametrize("example", _records(), ids=lambda e: e["id"])
async def test_held_out_relief_example(example: dict[str, Any]) -> None:
    reader = SeedReader()
    result = await _evaluate(Facts.model_validate(example["facts"]), reader)
    assert grade(example, result) == []
    for cited in {n for line in result.lines for n in line.node_ids}:
        assert cited in reader.nodes


def _shares(**change: Any) -> Facts:
    disposal = {
        "asset": "company shares", "acquired_on": "2015-02-01", "disposed_on": "2025-06-30",
        "cost": "100000", "proceeds": "600000", "shareholding_percent": "10",
        "working_director": True,
    }  # fmt: skip
    facts: dict[str, Any] = {"tax_year": 2025, "jurisdiction": "IE", "age": 45}
    facts.update(change.pop("facts", {}))
    disposal.update(change)
    return Facts.model_validate({**facts, "disposals": [disposal]})


@pytest.mark.anyio
async def test_a_relief_line_cites_the_relief_and_the_conditions_that_decided_it() -> None:
    result = await _evaluate(_shares())
    line = next(ln for ln in result.lines if ln.key == "charge_relief_rate")
    assert {
        "IE:RELIEF:ENTREPRENEUR_RELIEF",
        "IE:CONDITION:ER_OWNERSHIP_3_YEARS",
        "IE:CONDITION:ER_5_PERCENT_WORKING_DIRECTOR",
        "IE:RATE:CGT_ENTREPRENEUR:2025",
        "IE:THRESHOLD:ER_LIFETIME_LIMIT:2025",
    } <= set(line.node_ids)


@pytest.mark.anyio
async def test_the_relief_effect_is_read_from_the_graph() -> None:
    """Without the node's cgt_effect the relief applies but is not computed: a gap, 33%."""
    reader = SeedReader({"IE:RELIEF:ENTREPRENEUR_RELIEF": {"cgt_effect": None}})
    result = await _evaluate(_shares(), reader)
    assert result.total("cgt") == Decimal("164580.90")
    assert any("Revised entrepreneur relief applies" in g.reason for g in result.gaps)


@pytest.mark.anyio
async def test_a_condition_that_cannot_be_told_is_a_gap_not_a_relief() -> None:
    result = await _evaluate(_shares(working_director=None))
    assert result.total("cgt") == Decimal("164580.90")
    gap = next(g for g in result.gaps if "cannot be told" in g.reason)
    assert gap.missing is not None and "working_director" in gap.missing
    assert not next(t for t in result.totals if t.tax == "cgt").complete


@pytest.mark.anyio
async def test_gains_beyond_the_lifetime_limit_left_are_a_gap() -> None:
    result = await _evaluate(_shares(facts={"lifetime_relief_gains_used": "700000"}))
    assert result.total("cgt") is None
    assert any(g.missing == "lifetime_relief_gains_used" for g in result.gaps)


@pytest.mark.anyio
async def test_retirement_relief_not_knowing_who_buys_is_a_gap() -> None:
    result = await _evaluate(_shares(facts={"age": 60}))
    assert any("CGT retirement relief on a disposal to a child or outside the family"
               in g.reason for g in result.gaps)  # fmt: skip
    assert any(g.missing == "to_child" for g in result.gaps)


@pytest.mark.anyio
async def test_a_home_used_partly_for_business_is_exempt_in_proportion() -> None:
    facts = Facts.model_validate({
        "tax_year": 2025, "jurisdiction": "UK", "paye_income": "30000",
        "disposals": [{"asset": "home", "acquired_on": "2015-04-01",
                       "disposed_on": "2025-07-10", "cost": "200000", "proceeds": "230000",
                       "main_residence": True, "residential_property": True,
                       "home_use_percent": "90"}],
    })  # fmt: skip
    result = await _evaluate(facts)
    exempt = next(ln for ln in result.lines if ln.key.startswith("relief_exempt"))
    assert exempt.base == Decimal("27000.00")
    assert "UK:RELIEF:PRIVATE_RESIDENCE_RELIEF" in exempt.node_ids
    # £3,000 left less the £3,000 exempt amount: nothing to pay
    assert result.total("cgt") == Decimal("0.00")
