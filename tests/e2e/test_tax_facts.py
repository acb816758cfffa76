"""The tax-adviser fact set (``bench/data/tax_facts.jsonl``, issue 23) through the real turn
over HTTP on a copy of the seeded template: its dev part, graded right / wrong / refused per
kind by ``bench/tax_facts_bench.py`` (the held-out part is reported by the bench, never here)."""

import asyncio
import json

import pytest

from api.app import create_app
from api.settings import Settings
from bench.tax_facts_bench import BENCH_LIMITS, KINDS, load, report, run_facts, split_of
from tests.support.server import running_server

pytestmark = [pytest.mark.e2e]


def test_the_dev_fact_set_is_answered_right_and_refused_right(seeded_template, tmp_path):
    from tests.support.seeded import copy_data_dir

    data = copy_data_dir(seeded_template, tmp_path / "data")
    facts = [fact for fact in load() if split_of(fact["id"]) == "dev"]
    assert len(load()) >= 80 and {f["kind"] for f in facts} == set(KINDS)
    with running_server(
        create_app(Settings(data_dir=data, log_json=False, **BENCH_LIMITS))
    ) as base:
        results = asyncio.run(run_facts(base, facts))
    table = report(results)["dev"]
    print(json.dumps(table))
    # What the graph does not hold is refused, every time.
    assert table["should_refuse"]["right"] == table["should_refuse"]["total"], table
    # Deadlines: computed for the year, period or event asked (ADR 0047).
    deadlines = table["deadline"]
    assert deadlines["right"] >= 0.9 * deadlines["total"], table
    held = [k for k in KINDS if k != "should_refuse"]
    right = sum(table[k]["right"] for k in held)
    assert right >= 0.8 * sum(table[k]["total"] for k in held), table
