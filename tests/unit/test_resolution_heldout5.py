"""The fifth resolution set (issue 24, session 7) is frozen and held out whole: the committed
file is what ``bench/make_resolution_heldout5.py`` writes, byte for byte as committed alone
before any rule changed in that session, and every case is labelled with its source."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "bench" / "data" / "resolution_heldout5.jsonl"
FROZEN = "0f40f7a7b0a67446f5c11c924a24b7d9690c4825af5307cf694a18f795377dd9"


def test_the_held_out_file_is_frozen() -> None:
    assert hashlib.sha256(FILE.read_bytes()).hexdigest() == FROZEN


def test_committed_file_is_what_the_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location(
        "make_resolution_heldout5", ROOT / "bench" / "make_resolution_heldout5.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = [json.loads(line) for line in FILE.read_text(encoding="utf-8").splitlines()]
    assert len(module.CASES) == len(rows) >= 60
    for (category, source, *_rest, gold), row in zip(module.CASES, rows, strict=True):
        assert (row["category"], row["source"], row["gold"]) == (category, source, gold)
        assert str(row["source"]).split(":")[0] in {
            "eurovoc", "seeds", "citizensinformation", "revenue", "govuk", "iso3166",
            "legislation", "eurlex", "constitution",
        }  # fmt: skip
