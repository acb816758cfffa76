"""The engine against published worked examples, to the cent (bench/data/scenario_examples.jsonl).

``dev`` examples were used while the engine was written; ``held_out`` ones were not run until
it was finished (issue 28's note gives both figures).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from scenarios import Facts, Snapshot, evaluate_snapshot
from scenarios.result import SnapshotResult
from tests.unit.test_scenario_support import SeedReader, load_examples

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


def _gross(result: SnapshotResult, person: str) -> Decimal:
    keys = {"standard_rate", "higher_rate"}
    lines = [ln for ln in result.lines if ln.tax == "income_tax" and ln.person == person]
    assert {ln.key for ln in lines} >= keys, "no income tax charge lines"
    return sum((ln.amount for ln in lines if ln.key in keys), Decimal(0))


async def _check(example: dict[str, Any]) -> None:
    facts = Facts.model_validate(example["facts"])
    snapshot = Snapshot(label="example", as_at=date(facts.tax_year, 12, 31), facts=facts)
    reader = SeedReader()
    result = await evaluate_snapshot(reader, snapshot)
    for cited in {n for line in result.lines for n in line.node_ids}:
        assert cited in reader.nodes
    for key, expected in example["expected"].items():
        if key == "gap":
            assert result.totals == [] and result.lines == []
            assert any(g.missing and str(facts.tax_year) in g.missing for g in result.gaps)
            continue
        name, _, person = key.partition(":")
        person = person or "you"
        got: Decimal | None
        if name == "income_tax_gross":
            got = _gross(result, person)
        else:
            got = result.total(name, person)
        assert got == Decimal(expected), f"{example['id']} {key}: {got} != {expected}"


@pytest.mark.parametrize("example", load_examples("dev"), ids=lambda e: e["id"])
async def test_dev_example(example: dict[str, Any]) -> None:
    await _check(example)


@pytest.mark.parametrize("example", load_examples("held_out"), ids=lambda e: e["id"])
async def test_held_out_example(example: dict[str, Any]) -> None:
    await _check(example)
