"""The engine's CGT reliefs against a held-out set
(``bench/data/scenario_examples_reliefs_heldout.jsonl``).

The set was written from Revenue's and GOV.UK's relief pages and committed alone, before the
engine computed any relief (issue 28); its sha256 is pinned so it cannot drift with tuning.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

pytestmark = [pytest.mark.unit]

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
HELD_OUT = DATA / "scenario_examples_reliefs_heldout.jsonl"
SHA256 = "32716f3e0f94e9e28c8fcea311bbc6c14b3d9c23a9d18b76ce153c6562ccfa8d"


def test_the_held_out_set_is_frozen() -> None:
    assert hashlib.sha256(HELD_OUT.read_bytes()).hexdigest() == SHA256
