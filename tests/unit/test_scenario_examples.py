"""The engine against published worked examples, to the cent (bench/data/scenario_examples.jsonl).

``dev`` examples were used while the engine was written; ``held_out`` ones were not run until
it was finished (issue 28's note gives both figures).
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from bench.scenario_bench import grade
from scenarios import Facts, Snapshot, evaluate_snapshot
from tests.unit.test_scenario_support import SeedReader, load_examples

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


async def _check(example: dict[str, Any]) -> None:
    facts = Facts.model_validate(example["facts"])
    snapshot = Snapshot(label="example", as_at=date(facts.tax_year, 12, 31), facts=facts)
    reader = SeedReader()
    result = await evaluate_snapshot(reader, snapshot)
    assert grade(example, result) == []
    for cited in {n for line in result.lines for n in line.node_ids}:
        assert cited in reader.nodes


@pytest.mark.parametrize("example", load_examples("dev"), ids=lambda e: e["id"])
async def test_dev_example(example: dict[str, Any]) -> None:
    await _check(example)


@pytest.mark.parametrize("example", load_examples("held_out"), ids=lambda e: e["id"])
async def test_held_out_example(example: dict[str, Any]) -> None:
    await _check(example)
