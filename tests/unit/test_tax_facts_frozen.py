"""The adviser fact set's eighth and ninth batches (ids 800-899 and 900-999 in
``bench/data/tax_facts.jsonl``, issue 23) are frozen: each held out whole, written from official
pages without any engine output and committed alone before it was run. Their rows, byte for byte
as committed, hash to ``FROZEN[8]`` and ``FROZEN[9]``; a change to any of them (or a row added to
a batch) fails here instead of moving the figures silently. Sources and the date they were
checked: ``bench/data/tax_facts_batch8_sources.md``, ``bench/data/tax_facts_batch9_sources.md``."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
FACTS = ROOT / "bench" / "data" / "tax_facts.jsonl"
SOURCES = ROOT / "bench" / "data" / "tax_facts_batch8_sources.md"
SOURCES_9 = ROOT / "bench" / "data" / "tax_facts_batch9_sources.md"
#: batch -> (first id number, last id number, sha256 of its lines, each ending in "\n")
FROZEN = {
    8: (800, 899, "989cd9df0cd3ba2de522601e162575c54b0fb7085b3ffa8dc04d3dd7d5194cfc"),
    9: (900, 999, "8dcd7b99af828db93d9621235c8e65004c4f21b10bb86a741a005a4e2b6b5c53"),
}
KINDS_8 = {"deadline": 18, "rate": 5, "threshold": 7, "should_refuse": 12, "follow_up": 6}
KINDS_9 = {"deadline": 20, "rate": 8, "threshold": 8, "should_refuse": 12}


def _lines(first: int, last: int) -> list[str]:
    lines = [line for line in FACTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    number = (int(re.sub(r"\D", "", json.loads(line)["id"])) for line in lines)
    return [line for line, n in zip(lines, number, strict=True) if first <= n <= last]


@pytest.mark.parametrize("batch", sorted(FROZEN))
def test_the_batch_is_frozen(batch: int) -> None:
    first, last, digest = FROZEN[batch]
    text = "".join(line + "\n" for line in _lines(first, last))
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == digest


def test_batch_8_rows_are_well_formed() -> None:
    rows = [json.loads(line) for line in _lines(800, 899)]
    assert Counter(r["kind"] for r in rows) == KINDS_8
    prefix = {"deadline": "dea", "rate": "rat", "threshold": "thr",
              "should_refuse": "sho", "follow_up": "fol"}  # fmt: skip
    for row in rows:
        assert row["id"].startswith(prefix[row["kind"]] + "-")
        assert row["source"] and row["question"]
        assert bool(row["expect"]) is (row["kind"] != "should_refuse")
        assert ("previous" in row) is (row["kind"] == "follow_up")
        assert row["id"] in SOURCES.read_text(encoding="utf-8")


def test_batch_9_rows_are_well_formed() -> None:
    rows = [json.loads(line) for line in _lines(900, 999)]
    assert Counter(r["kind"] for r in rows) == KINDS_9
    assert [r["id"] for r in rows] == [f"{r['id'][:3]}-{n}" for n, r in enumerate(rows, 900)]
    prefix = {"deadline": "dea", "rate": "rat", "threshold": "thr", "should_refuse": "sho"}
    sources = SOURCES_9.read_text(encoding="utf-8")
    for row in rows:
        assert row["id"].startswith(prefix[row["kind"]] + "-")
        assert row["source"] and row["question"]
        assert bool(row["expect"]) is (row["kind"] != "should_refuse")
        assert "previous" not in row
        assert f"| {row['id']} |" in sources
