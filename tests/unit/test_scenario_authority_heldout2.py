"""The second held-out set of worked examples from the tax authorities
(``bench/data/scenario_examples_authority_heldout2.jsonl``, issue 28).

Written from Revenue, Citizens Information, GOV.UK and Oireachtas pages found with the
``search`` tool and committed alone, before the engine computed the rent tax credit, the single
person child carer and widowed credits, pension contribution relief, Marriage Allowance or
separate assessment. Its sha256 is pinned so it cannot drift with tuning; it is scored in totals
only (``bench/scenario_bench.py --examples ...``), never item by item.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

pytestmark = [pytest.mark.unit]

HELD_OUT = (
    Path(__file__).resolve().parents[2]
    / "bench"
    / "data"
    / "scenario_examples_authority_heldout2.jsonl"
)
SHA256 = "23b988b37c39caab05847971a71faa873b17a76a25466d668b155119d32691d4"


def test_the_held_out_set_is_frozen() -> None:
    assert hashlib.sha256(HELD_OUT.read_bytes()).hexdigest() == SHA256


def test_every_record_names_its_source_and_a_published_figure() -> None:
    records = [json.loads(line) for line in HELD_OUT.read_text(encoding="utf-8").splitlines()]
    assert len(records) >= 20
    assert len({r["id"] for r in records}) == len(records)
    for record in records:
        assert record["split"] in ("held_out", "target")
        assert record["source_url"].startswith(("https://", "http://"))
        assert record["published"] and record["expected"]
