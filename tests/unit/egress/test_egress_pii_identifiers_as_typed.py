"""Identifiers and lone names as people type them (issue 25, fourth pass): any case, any
separator, read out in words; postcodes; a lone first name where chat puts a person."""

from __future__ import annotations

import pytest

from egress.pii import PiiDetector
from egress.pii.canonical import canonicalise, spoken_identifiers

pytestmark = pytest.mark.unit


def _found(detector: PiiDetector, text: str) -> list[tuple[str, str]]:
    return [(f.entity_type, text[f.start : f.end]) for f in detector.detect(text)]


@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        ("ni number ab 12 34 56 c please", "ab 12 34 56 c", "UK_NINO"),
        ("HMRC wrote to AB-12-34-56-C today", "AB-12-34-56-C", "UK_NINO"),
        ("my nino is a b 1 2 3 4 5 6 c", "a b 1 2 3 4 5 6 c", "UK_NINO"),
        ("NI: A B one two three four five six C", "A B one two three four five six C", "UK_NINO"),
        ("do i put 1234567-T on the form", "1234567-T", "PPSN"),
        ("it was 1234567.t", "1234567.t", "PPSN"),
        (
            "number one two three four five six seven t",
            "one two three four five six seven t",
            "PPSN",
        ),
        (
            "ONE TWO THREE FOUR FIVE SIX SEVEN T is mine",
            "ONE TWO THREE FOUR FIVE SIX SEVEN T",
            "PPSN",
        ),
        ("pay into IE29.AIBK.9311.5212.3456.78 please", "IE29.AIBK.9311.5212.3456.78", "IBAN_CODE"),
        ("iban ie29-aibk-9311-5212-3456-78", "ie29-aibk-9311-5212-3456-78", "IBAN_CODE"),
        ("we moved to SW1A 1AA last year", "SW1A 1AA", "UK_POSTCODE"),
        ("i live at sw1a1aa now", "sw1a1aa", "UK_POSTCODE"),
        ("Office: EC1A-1BB.", "EC1A-1BB", "UK_POSTCODE"),
        ("the house at D02  X285", "D02  X285", "EIRCODE"),
        ("my eircode is a65 fhkn", "a65 fhkn", "EIRCODE"),
    ],
)
def test_identifiers_in_any_case_with_any_separator_or_read_out(
    detector: PiiDetector, text: str, value: str, entity: str
) -> None:
    assert (entity, value) in _found(detector, text)


@pytest.mark.parametrize(
    "text",
    [
        "ni number gb 12 34 56 c",  # a prefix HMRC never issues
        "number one two three four five six seven a",  # wrong check letter, no PPSN context
        "pay into IE28.AIBK.9311.5212.3456.78 please",  # wrong IBAN check digits
        "see table c12 2024 of the annex",  # lower case, no address word: a reference, a year
        "EUR 1234567 and regulation 2016/679",
    ],
)
def test_checksums_and_context_still_decide(detector: PiiDetector, text: str) -> None:
    assert _found(detector, text) == []


def test_the_spoken_view_maps_each_character_back_to_its_words() -> None:
    text = "ppsn: One Two Three Four Five Six Seven T, thanks"
    view = spoken_identifiers(canonicalise(text))
    assert view is not None
    at = view.text.index("1234567T")
    start, end = view.original_span(at, at + 8)
    assert text[start:end] == "One Two Three Four Five Six Seven T"
    assert spoken_identifiers(canonicalise("one or two things")) is None


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("kate wants to know if the tips are taxable", "kate"),
        ("told siobhan the rate changed", "siobhan"),
        ("i pay laoise to mind the kids", "laoise"),
        ("is the gift from astrid to my son taxable", "astrid"),
        ("SIOBHAN wants to know about the credit", "SIOBHAN"),
        ("kate's employer stopped the sick pay", "kate"),
        ("does laoise need to file a return", "laoise"),
        ("CAN SIOBHAN CLAIM THE CREDIT", "SIOBHAN"),
    ],
)
def test_a_lone_first_name_where_chat_puts_a_person(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert ("PERSON", name) in _found(detector, text)


@pytest.mark.parametrize(
    "text",
    [
        "the Commission and ENISA may act as a central purchasing body",
        "No EU AIFM should be able to manage",
        "trustworthy and human-centric AI, in line with the Charter",
        "THE REVENUE GUIDE QUOTES BOX 1023 AND EUR 372,264",
        "cyber threats and non-cyber risks",
        "(OJ L, 2024/1689, 12.7.2024, ELI: http://data.europa.eu/eli/reg/2024/1689/oj).",
    ],
)
def test_acronyms_and_words_in_those_places_are_not_names(detector: PiiDetector, text: str) -> None:
    assert [e for e, _ in _found(detector, text) if e == "PERSON"] == []


def test_a_verb_after_a_name_is_not_part_of_it(detector: PiiDetector) -> None:
    text = "my landlord siobhan kearney will not give me his ppsn"
    assert ("PERSON", "siobhan kearney") in _found(detector, text)
