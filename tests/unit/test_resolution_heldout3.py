"""The third resolution set (issue 24) is frozen and held out whole: the committed file is
what ``bench/make_resolution_heldout3.py`` writes, and every case is labelled."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "bench" / "data" / "resolution_heldout3.jsonl"
CATEGORIES = {"jurisdiction", "surface", "former_name", "eurovoc", "sibling", "national_law",
              "eu_act", "new_repeat", "unstated"}  # fmt: skip


def _rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in FILE.read_text(encoding="utf-8").splitlines() if line]


def test_committed_file_is_what_the_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location(
        "make_resolution_heldout3", ROOT / "bench" / "make_resolution_heldout3.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert len(module.CASES) == len(_rows()) >= 150
    for (category, source, *_rest, gold), row in zip(module.CASES, _rows(), strict=True):
        assert (row["category"], row["source"], row["gold"]) == (category, source, gold)


def test_every_case_is_labelled_with_its_source() -> None:
    rows = _rows()
    assert len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        gold = str(row["gold"])
        assert gold.startswith(("new:", "skip:")) or gold.count(":") == 2
        assert row["category"] in CATEGORIES
        assert str(row["source"]).split(":")[0] in {
            "eurlex", "eurovoc", "citizensinformation", "revenue", "govuk", "iso3166"
        }  # fmt: skip
