"""First names that are also English words (issue 25, third pass of session 6): a name only
with a context cue, given money before an amount or opening a sentence in capitals before a
verb a person does; the same words as words stay text."""

from __future__ import annotations

import pytest

from egress.pii import PiiDetector
from egress.pii.findings import PERSON

pytestmark = pytest.mark.unit


def _people(detector: PiiDetector, text: str) -> list[str]:
    return [text[f.start : f.end] for f in detector.detect(text) if f.entity_type == PERSON]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("gave crystal 3k for the wedding is that taxable", "crystal"),
        ("i paid chad €500 for the van", "chad"),
        ("we lent grace 2,000 last year", "grace"),
        ("CRYSTAL wants to know if the tips are taxable", "CRYSTAL"),
        ("hi. CAROL says she never got a p60", "CAROL"),
    ],
)
def test_a_word_name_in_a_person_place_is_a_name(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert name in _people(detector, text)


@pytest.mark.parametrize(
    "text",
    [
        "i paid tax 3k last year",
        "paid bill 300 last week",  # a name that is a word of money
        "gave mark 5 out of 10",
        "interest paid over 2022, capped at €1,250",
        "the crystal 3 glasses were a gift",  # no verb of giving before
        "HMRC wants the form by friday",
        "is the CRYSTAL wants scheme taxable",  # capitals inside a sentence
        "we gave grace's parents 200",  # a possessive is not the one paid
    ],
)
def test_the_same_words_without_the_cue_stay_text(detector: PiiDetector, text: str) -> None:
    assert _people(detector, text) == []
