"""Labels as data (issue 24, ADR 0060): a seeded concept's ``close_match`` EuroVoc concepts
have every English and French label among the concept's own labels, so a capture of any of
them joins it by an exact label form and never by a rule."""

from __future__ import annotations

from typing import Any

import pytest

from engine.eurovoc import load_eurovoc
from engine.matching import label_forms
from engine.seeding import read_seed_files

pytestmark = pytest.mark.unit


def _concepts() -> list[dict[str, Any]]:
    return list(read_seed_files()["concepts"])


def _forms(concept: dict[str, Any]) -> set[str]:
    """The exact forms a capture in the concept's jurisdiction joins it on."""
    where = concept["jurisdiction"]
    texts = [concept["pref_label"], *(concept.get("alt_labels") or [])]
    texts += concept.get("hidden_labels") or []
    return {
        form.form
        for text in texts
        for form in label_forms(text)
        if not form.named or form.named <= {where}
    }


def test_close_matches_name_eurovoc_concepts_the_project_ships() -> None:
    shipped = {c.entry.key for c in load_eurovoc()}
    matched = [m for c in _concepts() for m in c.get("close_match") or []]
    assert len(matched) >= 8
    assert set(matched) <= shipped


def test_every_label_of_a_close_match_joins_the_concept() -> None:
    eurovoc = {c.entry.key: c.entry for c in load_eurovoc()}
    missing = []
    for concept in _concepts():
        forms = _forms(concept)
        for key in concept.get("close_match") or []:
            for label in eurovoc[key].labels:
                if not {f.form for f in label_forms(label) if not f.named} & forms:
                    missing.append(f"{concept['kind']} ({concept['jurisdiction']}): {label!r}")
    assert not missing, missing
