"""Detection is linear in the length of the text (issue 9: "Flat 1, " x 1,000 once cost 1.5 s).

Wall time is noise on a shared machine, and regex engine steps are not observable, so the work
is counted deterministically: every Python line the detector executes (``sys.settrace``) and
every character its regular expressions return in a match (``re.Match`` spans of the
recognisers' secondary matches show up as lines that loop over them). The worst inputs found
(repeated units, addresses, names, digit groups, obfuscation markers, confusables) are fed at
a quarter of the maximum message size and at the maximum (``REGINTEL_MAX_MESSAGE_CHARS``,
8,000); the work may grow at most 4.4x for 4x the text. ``bench/pii_worst_case.py`` times the
same inputs against ordinary text.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

import pytest

from egress.pii import PiiDetector

MAX_MESSAGE_CHARS = 8000

WORST_UNITS = [
    "Flat 1, ",
    "Apt 1 ",
    "Box 1 Box ",
    "Suite 1, Co. Cork, ",
    "12 Main Street, ",
    "lives at 1 ",
    "corner of a ",
    "1 Main Street\n",
    "Mary Smith, ",
    "a.",
    "@a",
    "1 ",
    "12 34 56 78 ",
    "1 2 3 4 5 6 7 8 9 T ",
    "PPSN 1234567 ",
    "x [at] y [dot] ",
    "\u04301 ",
    "1\u200b",
    "MARY SMITH ",
    "IE29 AIBK 9311 5212 3456 78 ",
    # issue 25: names in any case, contact details written out
    "my name is aoife ",
    "hi, i'm sean o'brien ",
    "aoife doyle ",
    "AOIFE DOYLE ",
    "regards, mary j. ",
    "oh eight seven ",
    "0 8 7 1 ",
    "double one two, ",
    "sean dot power at ",
    "a at b dot ",
    "x -at- y -dot- ",
    # issue 25, second pass: wrapped markers, word dots, signed names, roles, possessives
    "x *at* y #dot# ",
    "a (a) b [.] ",
    "a @ b point ",
    "kind regards earl emery ",
    "my flatmate leonard ",
    "gary rivera's ",
    "plus four eight one ",
    "022 / 9 ",
    "oh eighty seven ",
    "o87 1234567 ",
    # issue 25, third pass: marker words of other languages, written-out separators, markers
    # glued in capitals, words no list holds side by side, sign-offs on their own line
    "a arroba b punto ",
    "a underscore b at ",
    "aATbDOTc",
    "x at sign y full stop ",
    "hui mazur ",
    "TARAS SHEVCHENKO ",
    "ta\n",
    # issue 25, fourth pass: identifiers with any separator, read out, postcodes, lone names
    "a b 1 2 3 4 5 6 ",
    "ab.12.34.56.",
    "one two three four ",
    "double four five six ",
    "sw1a 1a",
    "live at d02 ",
    "NL26.INGB.2631.",
    "told kate ",
    "KATE wants ",
    "told vidica and ",
    # issue 25, sixth pass: glued dots in a domain, names in capitals read by the lexicon
    "a at bdotcodotcom ",
    "to LISA BOUTS and ",
    "can ZOE ",
    # issue 25, second pass of session 6: postcodes in lower case alone, names after a modal
    "sk1 - 5te ",
    "w60 - nhe2 ",
    "does jildau need ",
    "lives with nanaho ",
    # issue 25, third pass of session 6: places after a preposition, names that are words
    "moved to london ",
    "gave crystal 3k ",
    "CRYSTAL wants ",
    # issue 25, session 9: names joined by "and", sign-offs before a name
    "halit and ",
    "tekay paddeck and dwana are ",
    "thanks,\n",
    "THANK YOU ",
]


def _work(detector: PiiDetector, text: str) -> int:
    lines = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal lines
        if event == "line":
            lines += 1
        return tracer

    sys.settrace(tracer)
    try:
        detector.detect(text)
    finally:
        sys.settrace(None)
    return lines


@pytest.mark.unit
@pytest.mark.parametrize("unit", WORST_UNITS)
def test_detection_work_grows_linearly_up_to_the_maximum_message(
    detector: PiiDetector, unit: str
) -> None:
    # Whole units only: a unit cut mid-word can end the text in a different word at each
    # length ("lives at 1 liv": "liv" is a first name, "li" is not), which is not growth.
    small = _work(detector, unit * (MAX_MESSAGE_CHARS // 4 // len(unit)))
    large = _work(detector, unit * (MAX_MESSAGE_CHARS // len(unit)))
    assert large <= 4.4 * small + 2000, (unit, small, large)
