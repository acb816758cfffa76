"""The grammar of EU act citations: ``Regulation (EU) 2016/679``, ``Directive 95/46/EC``...

The order of year and number depends on the citation style, and getting it wrong silently
points at another act:

- with ``No`` the number comes first: ``Regulation (EC) No 765/2008`` is 2008/765,
  ``Regulation (EEC) No 339/93`` is 1993/339, ``Decision No 768/2008/EC`` is 2008/768;
- without ``No`` the year comes first: ``Regulation (EU) 2016/679`` (the style since 2015),
  ``Directive 2014/92/EU``, ``Directive 95/46/EC`` (1995/46), ``Decision 93/465/EEC``.

Two-digit years are 19xx (the style changed to four digits in 1999). A plural
(``Regulations (EU) 2017/745 and (EU) 2017/746``) yields every act of the list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from corpus.ids import instrument_id
from corpus.model import InstrumentKind

__all__ = ["ActCitation", "ActMention", "find_act_citations", "parse_act_citation"]

_SERIES = r"\((?:EU|EC|EEC|EU,\s*Euratom|Euratom|CFSP|ECSC)\)"
_SUFFIX = r"(?:EU|EC|EEC|Euratom|CFSP|JHA|ECSC)"
# One citation body after the kind word: "(EU) 2016/679", "(EC) No 765/2008", "2014/92/EU".
_BODY = (
    rf"(?:(?P<series>{_SERIES})\s+)?(?P<no>No\.?\s+)?"
    rf"(?P<first>\d{{1,4}})/(?P<second>\d{{1,4}})(?:/(?P<suffix>{_SUFFIX}))?(?![\d/])"
)
_KIND = r"(?P<kind>Regulation|Directive|Decision)(?P<plural>s)?"
_SINGLE = re.compile(rf"\b{_KIND}\s+{_BODY}")
_SINGLE_ANY_CASE = re.compile(rf"\b{_KIND}\s+{_BODY}", re.IGNORECASE)
_MORE = re.compile(rf"(?:\s*,\s*|\s+and\s+|\s+or\s+){_BODY}")


@dataclass(frozen=True)
class ActCitation:
    """One cited act."""

    kind: InstrumentKind
    year: int
    number: int
    printed: str  # normalised print form: "Regulation (EC) No 765/2008"

    @property
    def instrument_id(self) -> str:
        return instrument_id(self.kind, self.year, self.number)


@dataclass(frozen=True)
class ActMention:
    """Where one or more acts are cited in a text (a plural cites several)."""

    start: int
    end: int
    acts: tuple[ActCitation, ...]


def _year(value: str) -> int:
    year = int(value)
    if year < 100:
        return 1900 + year if year >= 50 else 2000 + year
    return year


def _is_year(value: str) -> bool:
    return len(value) == 2 or (len(value) == 4 and 1950 <= int(value) <= 2100)


def _upper(code: str) -> str:
    # Titles print the whole designation in capitals; "Euratom" is the one mixed-case code.
    return re.sub(r"(?i)euratom", "Euratom", code.upper())


def _citation(kind_word: str, match: re.Match[str]) -> ActCitation | None:
    kind = InstrumentKind(kind_word.lower())
    first, second = match["first"], match["second"]
    number_first = bool(match["no"])
    if not number_first and not _is_year(first) and _is_year(second):
        number_first = True  # "Regulation (EEC) 1408/71" printed without "No"
    year_text, number_text = (second, first) if number_first else (first, second)
    if not _is_year(year_text) or int(number_text) == 0:
        return None
    series = f" {_upper(match['series'])}" if match["series"] else ""
    no = " No" if match["no"] else ""
    suffix = f"/{_upper(match['suffix'])}" if match["suffix"] else ""
    printed = f"{kind.value.capitalize()}{series}{no} {first}/{second}{suffix}"
    return ActCitation(kind, _year(year_text), int(number_text), printed)


def find_act_citations(text: str) -> list[ActMention]:
    """Every citation of a regulation, directive or decision in ``text``, in order."""
    mentions: list[ActMention] = []
    for match in _SINGLE.finditer(text):
        first = _citation(match["kind"], match)
        acts = [first] if first else []
        end = match.end()
        if match["plural"]:
            while more := _MORE.match(text, end):
                if cited := _citation(match["kind"], more):
                    acts.append(cited)
                end = more.end()
        if acts:
            mentions.append(ActMention(match.start(), end, tuple(acts)))
    return mentions


def parse_act_citation(line: str) -> ActCitation | None:
    """The act named at the start of a title line (any case): ``REGULATION (EU) 2024/1689 OF``."""
    match = _SINGLE_ANY_CASE.match(line.strip())
    return _citation(match["kind"], match) if match else None
