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
            "Send it to the corner of Kuusiku 7 and Alexander Flat?",
            "the corner of Kuusiku 7 and Alexander Flat",
        ),
        (
            "We are at 08428 Rue de Piétrain 371, Noorderwijk",
            "08428 Rue de Piétrain 371, Noorderwijk",
        ),
        ("Post it to 1812 Rue De La Gare please", "1812 Rue De La Gare"),
        ("my flat is at 2613 avenida praia 1 suite 463", "2613 avenida praia 1 suite 463"),
        ("psc 5420, box 2708\napo aa 33879", "psc 5420, box 2708\napo aa 33879"),
        ("USNS Møller\nFPO AA 85844", "USNS Møller\nFPO AA 85844"),
        (
            "It went to 14 Crown Street Kishiev Squares\n Suite 321\n LONDON",
            "14 Crown Street Kishiev Squares\n Suite 321\n LONDON",
        ),
        (
            "I live at 14 Main Street, Ballincollig, Co. Cork and work in Cork city.",
            "14 Main Street, Ballincollig, Co. Cork",
        ),
        ("Write to Flat 3, 12 Harcourt Road", "Flat 3, 12 Harcourt Road"),
        ("Unit 7194 Box 5854\nDPO AE 12345", "Unit 7194 Box 5854\nDPO AE 12345"),
        ("He lives at Søndergade 52, Brønderslev.", "Søndergade 52, Brønderslev"),
        (
            "Write to 6400 12 Timms Drive Suite 215 NUNGATTA Australia last night",
            "6400 12 Timms Drive Suite 215 NUNGATTA Australia",
        ),
        ("The address of Acme Ltd is 12 Harcourt Road, Dublin 2.", "12 Harcourt Road, Dublin 2"),
        (
            "> 2224 Trenerys gate 232\n> Apt. 342\n> TRONDHEIM",
            "2224 Trenerys gate 232\n> Apt. 342\n> TRONDHEIM",
        ),
    ],
)
def test_address_span(detector: PiiDetector, text: str, expected: str) -> None:
    assert _addresses(detector, text) == [expected]


@pytest.mark.unit
def test_address_does_not_swallow_the_phone_line_below(detector: PiiDetector) -> None:
    text = "3536 1659 Hoog St\n Apt. 839\n Brakpan\n South Africa 70651\n087 123 4567 (mobile)"
    found = detector.detect(text)
    assert [text[f.start : f.end] for f in found if f.entity_type == "PHONE_NUMBER"] == [
        "087 123 4567"
    ]
    assert _addresses(detector, text) == [
        "3536 1659 Hoog St\n Apt. 839\n Brakpan\n South Africa 70651"
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
