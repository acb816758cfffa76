"""seeds/second_names.yaml (ADR 0078): each group names one thing in one jurisdiction, with a
source; no name is in two groups of a jurisdiction, and none is a seeded concept's label (a
seeded concept's second names are its alt or hidden labels)."""

from __future__ import annotations

import pytest

from engine.matching import label_forms
from engine.second_names import load_second_names, second_names
from engine.seeding import read_seed_files

pytestmark = pytest.mark.unit


def test_every_group_has_a_jurisdiction_names_and_a_source() -> None:
    groups = load_second_names()
    assert groups
    for group in groups:
        assert group.jurisdictions and set(group.jurisdictions) <= {"IE", "UK", "NI", "EU"}
        assert len(group.names) >= 2 and group.source.startswith("http")


def test_no_name_is_in_two_groups_or_a_seeded_concepts_label() -> None:
    seen: dict[tuple[str, str], int] = {}
    for i, group in enumerate(load_second_names()):
        for name in group.names:
            for where in group.jurisdictions:
                key = (where, label_forms(name)[0].form)
                assert seen.setdefault(key, i) == i, name
    seeds = read_seed_files()
    seeded = {
        (str(c.get("jurisdiction")), label_forms(str(text))[0].form)
        for c in seeds["concepts"]
        for text in (
            c.get("pref_label"),
            *(c.get("alt_labels") or ()),
            *(c.get("hidden_labels") or ()),
        )
        if text
    }
    assert not set(seen) & seeded


def test_second_names_are_read_by_exact_form_and_jurisdiction() -> None:
    assert "Working Family Payment" in second_names(label_forms("Family-Income Supplement")
                                                    [0].form.split(), "IE")  # fmt: skip
    assert second_names(["familyincomesupplement"], "UK") == ()
    assert "Digital Markets Act" in second_names(["dma"], "IE")  # an EU act, any member state


def test_a_seeded_not_label_names_its_concept_as_related_only() -> None:
    from engine.second_names import related_concepts

    assert related_concepts([label_forms("chargeable person")[0].form]) == (
        "TAX:IE:SELF_ASSESSMENT",
    )
    assert related_concepts([label_forms("self assessment")[0].form]) == ()
