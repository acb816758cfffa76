"""A name in title case set off by commas after a relation ("Our nanny, Õnneli, is paid through
payroll") is a name even when no list holds it (issue 25, session 9); a word of the lists or a
company in the same place stays text."""

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
        ("Our nanny, Õnneli, is paid through payroll.", "Õnneli"),
        ("My son, Finulf, is 18.", "Finulf"),
        ("my tenant, Øgoti, pays cash", "Øgoti"),
    ],
)
def test_a_name_after_a_relation_and_a_comma_is_a_name(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert name in _people(detector, text)


@pytest.mark.parametrize(
    "text",
    ["My accountant, Revenue, said no.", "Our client, Acme Ltd, paid in full."],
)
def test_a_list_word_or_a_company_after_a_relation_stays_text(
    detector: PiiDetector, text: str
) -> None:
    assert _people(detector, text) == []
