"""Abbreviations spelled out from seeds/abbreviations.yaml (issue 23)."""

import pytest

from engine.abbreviations import Abbreviation, load_abbreviations, spelled_out

pytestmark = pytest.mark.unit


def test_every_entry_has_forms_an_official_meaning_and_a_source():
    entries = load_abbreviations()
    assert entries
    for entry in entries:
        assert entry.forms and entry.meaning and entry.source.startswith("https://")
        assert set(entry.meaning) <= {"IE", "UK", "EU"}


@pytest.mark.parametrize(
    ("question", "jurisdictions", "expected"),
    [
        ("PA for 2025/26?", [], "personal allowance for 2025/26?"),
        ("1st POA for 2026-27", ["UK"], "1st payment on account for 2026-27"),
        ("What's the 20% band for 2025?", ["IE"], "What's the standard rate band for 2025?"),
        ("What's the 20% band for 2025?", ["UK"], "What's the basic rate band for 2025?"),
        # No jurisdiction named: every official term, so that either jurisdiction's rule is found.
        ("the 20% band", [], "the standard rate band or basic rate band"),
        ("Employee NICs main rate", ["UK"], "Employee National Insurance contributions main rate"),
        # Adviser shorthand for a tax's name (a tax no rule names "prelim tax" was refused).
        ("when is prelim tax for 2026 due?", [], "when is preliminary tax for 2026 due?"),
        ("prelim for 2025?", ["IE"], "preliminary tax for 2025?"),
        ("corp tax rate", [], "corporation tax rate"),
    ],
)
def test_an_abbreviation_is_replaced_by_its_official_term(question, jurisdictions, expected):
    assert spelled_out(question, jurisdictions) == expected


@pytest.mark.parametrize(
    "text",
    ["£40k pa", "a PAYE employee", "the 120% band", "WHAT IS MY PA", "PAs and POAS"],
)
def test_ordinary_words_and_longer_acronyms_are_left_alone(text):
    assert spelled_out(text, ["UK"]) == text


def test_the_entries_are_data_not_code():
    custom = [Abbreviation(("KDB",), {"IE": "Knowledge Development Box"}, True, "https://x")]
    assert spelled_out("KDB rate?", ["IE"], custom) == "Knowledge Development Box rate?"
    assert spelled_out("KDB rate?", ["IE"]) == "KDB rate?"  # not in the data file
