"""Postcodes and lone names typed in lower case with no address word or cue (issue 25, second
pass of session 6): the shape decides for a postcode, the place for a name."""

from __future__ import annotations

import pytest

from egress.pii import PiiDetector

pytestmark = pytest.mark.unit


def _found(detector: PiiDetector, text: str) -> list[tuple[str, str]]:
    return [(f.entity_type, text[f.start : f.end]) for f in detector.detect(text)]


@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        ("is e2j 5ej inside the rent pressure zone", "e2j 5ej", "UK_POSTCODE"),
        ("sk1 - 5te - is that band d", "sk1 - 5te", "UK_POSTCODE"),
        ("is Bb37Gt inside the zone", "Bb37Gt", "UK_POSTCODE"),
        ("the site (ec6n  7jl) was rezoned", "ec6n  7jl", "UK_POSTCODE"),
        ("the site (w60 - nhe2) was rezoned", "w60 - nhe2", "EIRCODE"),
        ("whats the lpt band for F91 heae", "F91 heae", "EIRCODE"),
        ("is council tax higher in k39 wkef", "k39 wkef", "EIRCODE"),
    ],
)
def test_a_postcode_shape_typed_in_lower_case_stands_alone(
    detector: PiiDetector, text: str, value: str, entity: str
) -> None:
    assert (entity, value) in _found(detector, text)


@pytest.mark.parametrize(
    "text",
    [
        "got my p60 then filed the form 11",  # an Eircode's shape ending in an English word
        "i file form p21 each year",
        "box b12 on the 2nd page",
        "see section b12 2nd paragraph",  # a UK shape whose inward code is an ordinal
        "see table c12 2024 of the annex",  # digits only: needs an address word
        "i drove the a1 road, the m50 toll and the n7",
        "paid 2k in q3 2024",
    ],
)
def test_chat_of_a_postcode_shape_is_not_a_postcode(detector: PiiDetector, text: str) -> None:
    assert _found(detector, text) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("does jildau need to file a form 11", "jildau"),
        ("how much can maika earn before tax", "maika"),
        ("my son lives with nanaho in galway", "nanaho"),
        ("she is staying with alvir for the summer", "alvir"),
    ],
)
def test_a_lone_lower_case_name_in_a_question_or_living_with(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert ("PERSON", name) in _found(detector, text)


@pytest.mark.parametrize(
    "text",
    [
        "does mifid need a prospectus",
        "does gdpr apply to my club",
        "can revenue pay the refund early",
        "will the fund need a depositary",
        "does crypto need to be declared",
        "can SIPP pay the lump sum",  # capitals amid lower case: an acronym, not a name
        "should ucits file a kid",
    ],
)
def test_acronyms_and_words_after_a_modal_are_not_names(detector: PiiDetector, text: str) -> None:
    assert [e for e, _ in _found(detector, text) if e == "PERSON"] == []
