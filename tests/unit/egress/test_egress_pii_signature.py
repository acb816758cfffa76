"""The name a message ends with after a sign-off (issue 25, session 9): "Thanks,\\nBasia",
"THANK YOU ALVRUN", "thx, eskame beggerow" reached the provider when no list held the name.
Words of the lists, law acronyms and places after a sign-off stay text."""

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
        ("can i claim the medical expenses?\nThanks,\nBasia", "Basia"),
        ("THANK YOU ALVRUN", "ALVRUN"),
        ("ok got it thx, eskame beggerow", "eskame beggerow"),
        ("Kind regards\nSindulfo Azzolino.", "Sindulfo Azzolino"),
        ("Yours sincerely,\nCtibora", "Ctibora"),
    ],
)
def test_the_name_after_a_sign_off_at_the_end_is_a_name(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert name in _people(detector, text)


@pytest.mark.parametrize(
    "text",
    [
        "cheers mate",
        "thank you so much",
        "Thanks,\nRevenue",
        "THANK YOU ESMA",
        "THANK YOU PAYE",
        "Thanks.\nDublin",
        "Thanks,\nThe Accounts Team",
        "thanks in advance",
        "Hi, thanks for the help earlier.",
    ],
)
def test_words_after_a_sign_off_stay_text(detector: PiiDetector, text: str) -> None:
    assert _people(detector, text) == []
