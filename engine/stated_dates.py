"""What a rule's own words say about dates (ADR 0047): the dates it states, and the events it
covers.

- :func:`stated_dates`: "from 2 February 2025" in "… with prohibitions and AI literacy from 2
  February 2025 …" is a date the law states; the timeline engine quotes it rather than count a
  duration from the day the question is asked.
- :func:`applies_to`: "disposals made between 1 January and 30 November" or "disposals made
  in December" limit a deadline to the events in that part of the year; a rule that states no
  such limit applies to every day.

Pure functions over text and :class:`datetime.date`, no I/O.
"""

from __future__ import annotations

import re
from datetime import date

__all__ = ["applies_to", "stated_dates"]

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")  # fmt: skip
_MONTH = "(?:" + "|".join(_MONTHS) + ")"
_STATED = re.compile(r"\bfrom (?P<day>\d{1,2}) (?P<month>" + _MONTH + r") (?P<year>\d{4})\b", re.I)
_RANGE = re.compile(
    r"\bbetween (?P<d1>\d{1,2}) (?P<m1>"
    + _MONTH
    + r") and (?P<d2>\d{1,2}) (?P<m2>"
    + _MONTH
    + r")\b",
    re.I,
)
_IN_MONTH = re.compile(r"\b(?:made|arising|occurring) in (?P<month>" + _MONTH + r")\b", re.I)
_LEAD = re.compile(r"^(?:[\s,;()]|with\b|and\b|but\b)+", re.I)
_WHAT_WORDS = 8


def _month(name: str) -> int:
    return _MONTHS.index(name.lower()) + 1


def stated_dates(text: str) -> list[tuple[str, date]]:
    """``(what, day)`` for each "… from <day month year>" the text states, in order; ``what`` is
    the words before the date since the previous one (at most eight), "" when none."""
    found: list[tuple[str, date]] = []
    previous = 0
    for match in _STATED.finditer(text):
        try:
            day = date(int(match["year"]), _month(match["month"]), int(match["day"]))
        except ValueError:
            continue
        before = text[previous : match.start()]
        before = re.split(r"[.;(]", before)[-1]
        before = _LEAD.sub("", before).strip()
        if not before:  # "… entry into force (from 2 August 2026)": the clause before it
            clause = text[:previous] if previous else text[: match.start()]
            before = _LEAD.sub("", re.split(r"[.;]", clause.split("(")[0])[-1]).strip()
        words = before.split()
        found.append((" ".join(words[-_WHAT_WORDS:]).rstrip(",;:"), day))
        previous = match.end()
    return found


def applies_to(text: str, day: date) -> bool:
    """Whether a rule whose words are ``text`` covers an event on ``day``: a stated range of
    days of the year ("between 1 January and 30 November") or month ("made in December")
    must hold it; a rule stating neither covers every day."""
    ranges = list(_RANGE.finditer(text))
    months = list(_IN_MONTH.finditer(text))
    if not ranges and not months:
        return True
    key = (day.month, day.day)
    for match in ranges:
        low = (_month(match["m1"]), int(match["d1"]))
        high = (_month(match["m2"]), int(match["d2"]))
        if low <= key <= high:
            return True
    return any(_month(match["month"]) == day.month for match in months)
