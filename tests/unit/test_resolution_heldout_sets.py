"""The resolution sets held out whole are frozen: each committed file is what its generator in
``bench/`` writes, byte for byte as committed alone before any rule changed (the fourth, issue 24
session 6, in ``0afff69``; the fifth, session 7; the sixth, session 8; the seventh, session 9),
and every case is labelled with its source."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
FROZEN = {
    "resolution_heldout4": "f731a65a5d2dc8e30b4bfb40ceb821fba600b506348704c9b3ccda0bfd854631",
    "resolution_heldout5": "0f40f7a7b0a67446f5c11c924a24b7d9690c4825af5307cf694a18f795377dd9",
    "resolution_heldout6": "cdb0f9473fe77e7bf1ce28259c36e61eb5f142fa5ef279b5ed8d274b0134bf80",
    "resolution_heldout7": "aa20c7a59392744e9d09e3707abfca83dafc5d6465f7f03a1319fa9855f7d15c",
}
SOURCES = {
    "eurovoc", "seeds", "citizensinformation", "revenue", "govuk", "iso3166", "legislation",
    "eurlex", "constitution", "irishstatutebook",
    "policyengine",  # PolicyEngine Ireland parameter labels (seventh set)
    "informal",  # a name people use that no official page gives (sixth set): never a label source
}  # fmt: skip


def data_file(name: str) -> Path:
    return ROOT / "bench" / "data" / f"{name}.jsonl"


@pytest.mark.parametrize("name", sorted(FROZEN))
def test_the_held_out_file_is_frozen(name: str) -> None:
    assert hashlib.sha256(data_file(name).read_bytes()).hexdigest() == FROZEN[name]


@pytest.mark.parametrize("name", sorted(FROZEN))
def test_committed_file_is_what_the_generator_writes(name: str) -> None:
    generator = f"make_{name}"
    spec = importlib.util.spec_from_file_location(generator, ROOT / "bench" / f"{generator}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = data_file(name).read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    assert len(module.CASES) == len(rows) >= 60
    for (category, source, *_rest, gold), row in zip(module.CASES, rows, strict=True):
        assert (row["category"], row["source"], row["gold"]) == (category, source, gold)
        assert str(row["source"]).split(":")[0] in SOURCES
