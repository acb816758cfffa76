"""Street-address spans: forms the recogniser covers and where a finding stops."""

from __future__ import annotations

import pytest

from egress.pii import PiiDetector


def _addresses(detector: PiiDetector, text: str) -> list[str]:
    return [
        text[f.start : f.end] for f in detector.detect(text) if f.entity_type == "STREET_ADDRESS"
    ]


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Meet me at the corner of Grafton Street and Nassau Street.",
            "the corner of Grafton Street and Nassau Street",
        ),
        (
            "Send it to the corner of Tammsaare 14 and Oldcastle Lane?",
            "the corner of Tammsaare 14 and Oldcastle Lane",
        ),
        (
            "We are at 75011 Rue de Charonne 112, Paris",
            "75011 Rue de Charonne 112, Paris",
        ),
        ("Post it to 27 Rue Du Bac please", "27 Rue Du Bac"),
        (
            "my flat is at 4410 avenida da liberdade 9 suite 12",
            "4410 avenida da liberdade 9 suite 12",
        ),
        ("psc 1234, box 5678\napo ae 09012", "psc 1234, box 5678\napo ae 09012"),
        ("USS Truxtun\nFPO AP 96601", "USS Truxtun\nFPO AP 96601"),
        (
            "It went to 9 Chapel Street Mill Yard\n Suite 4\n LEEDS",
            "9 Chapel Street Mill Yard\n Suite 4\n LEEDS",
        ),
        (
            "I live at 14 Main Street, Ballincollig, Co. Cork and work in Cork city.",
            "14 Main Street, Ballincollig, Co. Cork",
        ),
        ("Write to Flat 3, 12 Harcourt Road", "Flat 3, 12 Harcourt Road"),
        ("Unit 2050 Box 4190\nDPO AE 09498", "Unit 2050 Box 4190\nDPO AE 09498"),
        ("He lives at Vesterbrogade 31, Aarhus.", "Vesterbrogade 31, Aarhus"),
        (
            "Write to 3000 88 Collins Street Suite 7 MELBOURNE Victoria next week",
            "3000 88 Collins Street Suite 7 MELBOURNE Victoria",
        ),
        ("The address of Acme Ltd is 12 Harcourt Road, Dublin 2.", "12 Harcourt Road, Dublin 2"),
        (
            "> 0150 Thorvalds gate 8\n> Apt. 2\n> OSLO",
            "0150 Thorvalds gate 8\n> Apt. 2\n> OSLO",
        ),
    ],
)
def test_address_span(detector: PiiDetector, text: str, expected: str) -> None:
    assert _addresses(detector, text) == [expected]


@pytest.mark.unit
def test_address_does_not_swallow_the_phone_line_below(detector: PiiDetector) -> None:
    text = "2001 45 Long St\n Apt. 3\n Cape Town\n South Africa 8001\n087 123 4567 (mobile)"
    found = detector.detect(text)
    assert [text[f.start : f.end] for f in found if f.entity_type == "PHONE_NUMBER"] == [
        "087 123 4567"
    ]
    assert _addresses(detector, text) == [
        "2001 45 Long St\n Apt. 3\n Cape Town\n South Africa 8001"
    ]


@pytest.mark.unit
def test_cue_then_street_takes_the_street_not_the_sentence(detector: PiiDetector) -> None:
    assert _addresses(detector, "She moved to 12 Harcourt Road last year.") == ["12 Harcourt Road"]


@pytest.mark.unit
@pytest.mark.parametrize(
    "text",
    [
        "at the corner of tax law and practice",
        "The rules moved to section 12 last year.",
        "Taxpayers who moved to Ireland in 2024 pay USC.",
    ],
)
def test_no_address_in_prose(detector: PiiDetector, text: str) -> None:
    assert _addresses(detector, text) == []
