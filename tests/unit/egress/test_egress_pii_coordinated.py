"""A name joined by "and" to a name found is a name too (issue 25, session 9): "halit ohlsen and
frösten are the two directors" sent "frösten" to the provider. Only a word in no English list,
no law acronym and no place joins: "and revenue", "and dublin", "AND ESMA" stay text."""

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
        ("halit ohlsen and frösten are the two directors", "frösten"),
        ("tekay paddeck and dwana are the two directors", "tekay paddeck"),
        ("my wife aoife doyle and brendan smith are here", "brendan smith"),
        ("rowena finnegan and ossian are the two owners", "ossian"),
    ],
)
def test_a_word_joined_by_and_to_a_name_is_a_name(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert name in _people(detector, text)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("aoife doyle and revenue agreed the figure", "revenue"),
        ("the ppsn and eircode of aoife doyle and dublin", "dublin"),
        ("AOIFE DOYLE AND ESMA", "ESMA"),
        ("aoife doyle and the children", "children"),
    ],
)
def test_a_word_of_a_list_joined_by_and_stays_text(
    detector: PiiDetector, text: str, word: str
) -> None:
    assert all(word not in p for p in _people(detector, text))
