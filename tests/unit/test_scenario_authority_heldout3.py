"""The third held-out set of worked examples from the tax authorities
(``bench/data/scenario_examples_authority_heldout3.jsonl``, issue 28).

Five records, each a result Revenue printed on its own page (found with the ``search`` tool,
pages corpus): the age exemption with three children (Hannah and James, the 2024 and 2025
versions of the page), total income with deposit interest, rent and dividends under the
exemption limit (John and Alice, 2024 and 2025), and the spouse's tax under separate
assessment (Martin, 2024). Topics the engine already covers; committed alone, before any method
change. Its sha256 is pinned so it cannot drift with tuning; it is scored in totals only
(``bench/scenario_bench.py --examples ...``), never item by item.
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
    / "scenario_examples_authority_heldout3.jsonl"
)
SHA256 = "04ad6557b0936b809b89f052de282b1b89ca1ad3b4fecca10a5f968a70d843ab"


def test_the_held_out_set_is_frozen() -> None:
    assert hashlib.sha256(HELD_OUT.read_bytes()).hexdigest() == SHA256


def test_every_record_is_an_official_page_with_its_published_result() -> None:
    records = [json.loads(line) for line in HELD_OUT.read_text(encoding="utf-8").splitlines()]
    assert len(records) >= 5
    assert len({r["id"] for r in records}) == len(records)
    for record in records:
        assert record["split"] == "held_out"
        assert record["source_kind"] == "official"
        assert record["source_url"].startswith("https://") and "revenue.ie" in record["source_url"]
        assert record["published"] and record["expected"]
