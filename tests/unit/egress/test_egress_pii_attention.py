"""'For the attention of' and 'FAO' name a person next (issue 25, session 9), in any case; a
body or a list word after them stays text."""

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
        ("FOR THE ATTENTION OF SØLVE TEESSINK", "SØLVE TEESSINK"),
        ("For the attention of Sølve Teessink", "Sølve Teessink"),
        ("fao: ruairí ó conaill", "ruairí ó conaill"),
    ],
)
def test_the_name_after_for_the_attention_of_is_a_name(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert name in _people(detector, text)


@pytest.mark.parametrize(
    "text",
    [
        "FOR THE ATTENTION OF THE REVENUE COMMISSIONERS",
        "brought to the attention of the Commission",
        "for the attention of the board",
    ],
)
def test_a_body_after_for_the_attention_of_stays_text(detector: PiiDetector, text: str) -> None:
    assert _people(detector, text) == []
