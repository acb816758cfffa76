"""The second resolution dev set (issue 24) is frozen: the committed files are what
``bench/make_resolution_dev2.py`` writes, split by the held-out rule."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "bench" / "data"


def _rows(name: str) -> list[dict[str, object]]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


def test_held_out_part_is_split_by_the_frozen_rule() -> None:
    dev, held = _rows("resolution_dev2.jsonl"), _rows("resolution_dev2_heldout.jsonl")
    assert len(dev) + len(held) >= 150
    for row in held:
        assert int(hashlib.sha256(str(row["id"]).encode()).hexdigest()[:8], 16) % 5 == 0
    for row in dev:
        assert int(hashlib.sha256(str(row["id"]).encode()).hexdigest()[:8], 16) % 5 != 0
    ids = [r["id"] for r in dev + held]
    assert len(ids) == len(set(ids))


def test_every_case_is_labelled() -> None:
    for row in _rows("resolution_dev2.jsonl") + _rows("resolution_dev2_heldout.jsonl"):
        gold = str(row["gold"])
        assert gold.startswith(("new:", "skip:")) or gold.count(":") == 2
        assert row["category"] in {"jurisdiction", "surface", "former_name", "eurovoc",
                                   "sibling", "national_law", "new_repeat", "unstated"}  # fmt: skip
