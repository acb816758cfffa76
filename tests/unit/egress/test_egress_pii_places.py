"""Place names that are also first names (issue 25, third pass of session 6): after a place
preposition a known place ("moved to london", "in kerry") is not a person; the same word as a
person ("gave it to Clare", "my name is victoria") still is."""

from __future__ import annotations

import gzip
from importlib import resources

import pytest

from bench.pii_build_places import place_names
from egress.pii import PiiDetector
from egress.pii.findings import PERSON
from egress.pii.lexicon import load_lexicon

pytestmark = pytest.mark.unit


def _people(detector: PiiDetector, text: str) -> list[str]:
    return [text[f.start : f.end] for f in detector.detect(text) if f.entity_type == PERSON]


@pytest.mark.parametrize(
    "text",
    [
        "i moved to london last year, do i pay irish tax",
        "we moved to London in 2020",
        "my sister lives in kerry and works in cork",
        "moved from paris to dublin in march",
        "she is moving back to clare next month",
        "the office near victoria station",
        "i commute to london by train",
    ],
)
def test_a_place_after_a_place_preposition_is_not_a_person(
    detector: PiiDetector, text: str
) -> None:
    assert _people(detector, text) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("i sent the form to clare yesterday", "clare"),  # "to" without a verb of moving
        ("a letter from Mary about the tax", "Mary"),
        ("my name is victoria", "victoria"),
        ("can london claim the credit", "london"),  # a person place, no preposition
        ("the money is in Clare's account", "Clare"),  # a possessive is a person
    ],
)
def test_the_same_words_as_people_are_still_names(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert name in _people(detector, text)


def test_places_drop_qualifiers_and_keep_ascii_forms() -> None:
    assert place_names(["London, City of", "Dublin (county)", "Córdoba"]) == {
        "london",
        "dublin",
        "córdoba",
        "cordoba",
    }


def test_the_shipped_places_are_the_lexicons() -> None:
    data = resources.files("egress").joinpath("data", "places.txt.gz").read_bytes()
    lines = [line for line in gzip.decompress(data).decode("utf-8").splitlines() if line]
    places = load_lexicon().places
    assert places == frozenset(lines)
    assert {"london", "kerry", "paris", "new york"} <= places
