"""A name is a whole word: no name finding starts or ends inside a token of letters and digits
("Holdturn0b4bea" is an id, and "bea" in it is not a person), while names beside digits that
stand apart ("Bea 087 …", "Bea, 34") are still names."""

from __future__ import annotations

import random
import string

import pytest

from egress.pii import PiiDetector
from egress.pii.findings import PERSON

pytestmark = pytest.mark.unit


def _people(detector: PiiDetector, text: str) -> list[str]:
    return [text[f.start : f.end] for f in detector.detect(text) if f.entity_type == PERSON]


@pytest.mark.parametrize(
    "text",
    [
        "Holdturn0b4bea",
        "the stand-in held turn Holdturn0b4bea for a while",
        "token A1bea expired",
        "ref 7anna_x2 again",
        "order x9Maria7 shipped",
        "my code is 42JOHN",
        "id JOHN42 and that's all",
        "build 3f9sean2b failed",
    ],
)
def test_no_name_inside_a_token_of_letters_and_digits(detector: PiiDetector, text: str) -> None:
    assert _people(detector, text) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Bea 087 123 4567 is my number", "Bea"),
        ("i'm bea, 34, single", "bea"),
        ("Anna (2019) moved in with me", "Anna"),
        ("MY NAME IS BEA, 2 KIDS", "BEA"),
    ],
)
def test_a_name_beside_digits_that_stand_apart_is_still_a_name(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert name in _people(detector, text)


def test_random_ids_with_a_first_name_glued_after_a_digit_give_no_person(
    detector: PiiDetector,
) -> None:
    rng = random.Random(25)
    names = ["bea", "anna", "sean", "mary", "tom", "eve", "ava", "leo", "amy", "ian"]
    flagged = []
    for _ in range(300):
        head = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(2, 8)))
        mid = "".join(rng.choice(string.hexdigits) for _ in range(rng.randint(1, 4)))
        token = head + str(rng.randint(0, 9)) + mid + str(rng.randint(0, 9)) + rng.choice(names)
        text = f"the id was {token} yesterday"
        if _people(detector, text):
            flagged.append(token)
    assert flagged == []
