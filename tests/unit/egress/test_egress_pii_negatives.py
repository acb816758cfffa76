"""What is not personal stays text (issue 25, session 9): an amount written the continental way
("1.234.567,89 €") is not a phone number; phone numbers with dots still are."""

from __future__ import annotations

import pytest

from egress.pii import PiiDetector
from egress.pii.findings import PHONE_NUMBER

pytestmark = pytest.mark.unit


def _found(detector: PiiDetector, text: str) -> list[tuple[str, str]]:
    return [(f.entity_type, text[f.start : f.end]) for f in detector.detect(text)]


@pytest.mark.parametrize(
    "text",
    [
        "refund of 1.234.567,89 € came in",
        "the house sold for 2.450.300,00 euro",
        "Betrag: 12.345.678,5",
    ],
)
def test_a_continental_amount_is_not_a_phone_number(detector: PiiDetector, text: str) -> None:
    assert _found(detector, text) == []


@pytest.mark.parametrize(
    ("text", "number"),
    [("call 087.123.4567, thanks", "087.123.4567"), ("tel 01.234.5678", "01.234.5678")],
)
def test_a_phone_number_with_dots_is_still_a_phone_number(
    detector: PiiDetector, text: str, number: str
) -> None:
    assert (PHONE_NUMBER, number) in _found(detector, text)
