"""Eircodes and UK postcodes as people type them: any case, spaced, joined or hyphenated.

Both shapes are defined by their operators and are narrow enough to stand alone in capitals:

* **Eircode** (Eircode's published format): a routing key — a letter of the Eircode alphabet
  (A C D E F H K N P R T V W X Y) and two digits, or ``D6W`` — then a four-character unique
  identifier of the same alphabet and the digits;
* **UK postcode** (Royal Mail's six outward forms ``A9``, ``A99``, ``A9A``, ``AA9``, ``AA99``,
  ``AA9A`` with their letter rules, then the inward code, a digit and two letters that are
  never C I K M O V).

Between the outward and inward parts people write a space, two, a hyphen, a dot, a hyphen
between spaces (" - ") or nothing. In capitals either shape is accepted as it is. Typed any
other way ("d02 x285", "sw1a 1aa", "R34 Wkef") the shape is accepted when its second part
cannot be ordinary chat:

* an Eircode whose unique identifier mixes letters and digits, or is four letters that are
  not an English word ("r34 wkef"; "p60 then" and "p21 each" are a form and a word);
* a UK postcode whose inward code is not an ordinal ("sw1a 1aa", "e8 9lt"; "b12 2nd" is a
  box on a page) — the inward code's letters (never C I K M O V) already keep out "2pm",
  "9am" and "3kg".

Otherwise (an Eircode of digits only, "c12 2024", is a reference and a year) it is accepted
when an address word stands within a few words before it ("live", "moved to", "postcode",
"property" …).
"""

from __future__ import annotations

import re

from egress.pii.findings import EIRCODE, UK_POSTCODE, PiiFinding

__all__ = ["PostcodeRecogniser"]

_SEP = r"(?:[ \t]?[.\-][ \t]?|[ \t]{0,2})"
_EIRCODE = rf"(?:[AC-FHKNPRTV-Y]\d{{2}}|D6W){_SEP}[0-9AC-FHKNPRTV-Y]{{4}}"
_UK = (
    rf"(?:[A-PR-UWYZ](?:\d[A-HJKPSTUW]|\d{{1,2}}|[A-HK-Y]\d[ABEHMNPRVWXY]|[A-HK-Y]\d{{1,2}}))"
    rf"{_SEP}\d[ABD-HJLNP-UW-Z]{{2}}"
)
_CANDIDATE = re.compile(rf"(?<![\w.\-])(?:(?P<eir>{_EIRCODE})|(?P<uk>{_UK}))(?![\w\-])", re.I)
_ORDINAL = re.compile(r"\d(?:st|nd|rd|th)$", re.I)
_ADDRESS_CONTEXT = re.compile(
    r"\b(?:eircode|post\s?code|postal\s+code|zip|address|live[ds]?|living|moved?|moving"
    r"|house|home|property|apartment|flat|apt|street|road|avenue|located|based|deliver\w*"
    r"|send|sent|post|at)\b[^.!?\n]{0,24}$",
    re.I,
)


class PostcodeRecogniser:
    """Eircodes and UK postcodes (module docstring); ``words`` are the English words that an
    Eircode's unique identifier typed in lower case must not be."""

    def __init__(self, words: frozenset[str] = frozenset()) -> None:
        self._words = words

    def find(self, text: str) -> list[PiiFinding]:
        out: list[PiiFinding] = []
        for match in _CANDIDATE.finditer(text):
            value = match.group()
            entity = EIRCODE if match.group("eir") else UK_POSTCODE
            if value.upper() != value and not self._unlike_chat(value, entity):
                before = text[max(0, match.start() - 40) : match.start()]
                if _ADDRESS_CONTEXT.search(before) is None:
                    continue
            out.append(PiiFinding(entity, match.start(), match.end(), 0.85))
        return out

    def _unlike_chat(self, value: str, entity: str) -> bool:
        """The second part of a shape typed in lower or mixed case is no chat word."""
        if entity == UK_POSTCODE:
            return _ORDINAL.search(value) is None
        unique = value[-4:]
        if unique.isalpha():
            return unique.lower() not in self._words
        return any(c.isalpha() for c in unique)
