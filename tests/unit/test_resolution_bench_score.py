"""The resolution bench's candidate recall counts a hit on any node of the mention's gold group
(issue 24, session 9): merging a duplicate into any node of its group resolves it, so a
candidate naming the group's second node is a hit, not only one naming its first."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location(
        "resolution_bench", ROOT / "bench" / "resolution_bench.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _case(n: int, gold: str, got: str, candidates: list[str]) -> dict[str, Any]:
    return {"id": f"c{n}", "category": "x", "gold": gold, "got": got, "created": True,
            "matched_by": "new", "ms": 1.0, "candidates": candidates}  # fmt: skip


def test_a_candidate_on_a_later_node_of_the_group_is_a_hit() -> None:
    bench = _bench()
    results = [
        _case(1, "new:ie_disability_pension", "WELFARE:IE:DISABILITY_PENSION", []),
        # a second name of the same concept: a duplicate with no candidate (a miss)
        _case(2, "new:ie_disability_pension", "WELFARE:IE:PENSION_D_INVALIDITE", []),
        # a third: its candidate is the second node, not the first (a hit: merge resolves it)
        _case(
            3,
            "new:ie_disability_pension",
            "WELFARE:IE:INVALIDITY_PENSION",
            ["WELFARE:IE:PENSION_D_INVALIDITE"],
        ),
        # a duplicate of a seeded concept whose candidate is that concept (a hit either way)
        _case(4, "TAX:IE:VAT", "TAX:IE:VALUE_ADDED", ["TAX:IE:VAT"]),
        # a candidate of another group is no hit
        _case(5, "TAX:IE:USC", "TAX:IE:UNIVERSAL_CHARGE", ["TAX:IE:VAT"]),
    ]
    report = bench.score(results, {"TAX:IE:VAT", "TAX:IE:USC"})
    assert report["duplicates_of_known"] == 4
    assert report["candidate_recall"] == 2 / 4
    assert report["candidate_recall_first_node"] == 1 / 4
    assert report["false_merges"] == 0
