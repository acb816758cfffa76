"""The date a question is about: "on 1 December 2020", "in December 2020", "for the 2023 tax
year", "the third quarter of 2025" (a calendar quarter), "before the AI Act
applied", or the request's ``asAt``; without one, today (ADR 0032).

:func:`find_as_at` reads the question and returns an :class:`AsAt`: a window of days (one day,
a month, a year, a tax year) in which evidence must have been in force, and the words that
named it, which the turn removes from the text it searches with (a date says *when*, not
*what*: "2020" must not rank documents that mention 2020). The window is formatted from dates,
never from the user's words, so the prompt may quote it as fixed text.

Tax years follow the jurisdiction: Ireland's is the calendar year; the UK's runs from 6 April
to 5 April (``2023-24``, HMRC's "the 2023 to 2024 tax year" or "the 2023 tax year" starts on 6
April 2023). A question naming no jurisdiction, or both, gets the calendar year. A day or month
named just after "ending" ("the quarter ending 31 March 2025") is marked as the end of a period
(``ends_period``), which a return's deadline counts from. "Before <act> applied" is the day
before the act's ``valid_from``, which the caller looks up (``act_start``); an act the graph
does not date names no date.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Literal

from engine.timeline import tax_year

__all__ = [
    "AsAt",
    "AsAtOrigin",
    "find_as_at",
    "resolve_as_at",
    "same_year_as",
    "split_year_jurisdiction",
    "today_as_at",
]

AsAtOrigin = Literal["question", "request", "today"]

_TAX_YEAR_WORDS = re.compile(r"^(?!(?:for|in|of|during|from|to|by|until)\b).*\btax year\b", re.I)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")  # fmt: skip
_MONTH = r"(?P<month>" + "|".join(_MONTHS) + r"|sept|" + "|".join(m[:3] for m in _MONTHS) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("iso", re.compile(r"\b(?:on |as at |as of )?" + _YEAR + r"-(?P<m>\d\d)-(?P<d>\d\d)\b", re.I)),
    ("day", re.compile(r"\b(?:on |as at |as of )?(?:the )?" + _DAY + r"(?: of)? " + _MONTH
                       + r",? " + _YEAR + r"\b", re.I)),
    ("day", re.compile(r"\b(?:on |as at |as of )?" + _MONTH + r" " + _DAY + r",? " + _YEAR
                       + r"\b", re.I)),
    ("tax_year", re.compile(r"\b(?:for |in |during )?(?:the )?" + _YEAR
                            + r"(?:(?:[-/]| to )(?P<next>\d\d(?:\d\d)?))? "
                            r"(?:tax|income|assessment) year\b", re.I)),
    ("tax_year", re.compile(r"\b(?:for |in |during )?(?:the )?(?:tax|income) year "
                            + _YEAR + r"(?:[-/](?P<next>\d\d(?:\d\d)?))?\b", re.I)),
    ("tax_year", re.compile(r"\b(?:for |in |during )?(?:the )?" + _YEAR
                            + r"[-/](?P<next>\d\d(?:\d\d)?)\b(?![-/]\d)", re.I)),
    ("quarter", re.compile(r"\b(?:in |during |for )?(?:the )?(?P<q>first|second|third|fourth|"
                           r"1st|2nd|3rd|4th) (?:calendar )?quarter(?: of| in)? " + _YEAR
                           + r"\b", re.I)),
    ("quarter", re.compile(r"\b(?:in |during |for )?(?:q(?P<qn>[1-4])[ /-]?" + _YEAR + r"|"
                           + _YEAR.replace("year", "year2") + r"[ /-]?q(?P<qn2>[1-4]))\b",
                           re.I)),
    # Two months written as one period, as Irish VAT periods are ("Jan/Feb 2026", "the
    # March-April 2025 VAT3", "May to June 2025"): both months, not the second alone.
    ("months", re.compile(r"\b(?:in |during |for )?(?:the )?" + _MONTH + r"\s*(?:[/&–-]|to|and)\s*"
                          + _MONTH.replace("<month>", "<month2>") + r",? " + _YEAR + r"\b",
                          re.I)),
    ("month", re.compile(r"\b(?:in |during |for |as at |as of )?" + _MONTH + r",? " + _YEAR
                         + r"\b", re.I)),
    ("year", re.compile(r"\b(?:in|during|for|as at|as of|throughout) " + _YEAR
                        + r"(?![-/]\d)\b", re.I)),
    # A year written straight after the return, form or tax it is the year of, as advisers
    # shorten it: "Form 11 2025", "prelim tax 2025", "the CT1 2024", "employee PRSI 2025",
    # "USC rates 2025" (not "Finance Act 2024").
    # Only the year is the date's phrase: the name before it stays in the searched question.
    ("year", re.compile(r"(?P<lead>(?:\bform ?\d{1,3}[a-z]?|\b(?:returns?|tax|vat3|ct1|sa100|"
                        r"prelim|liability|bill|prsi|usc|nics?|rates?|thresholds?|bands?)) "
                        r"(?:for )?)" + _YEAR + r"(?![-/]\d)\b", re.I)),
)  # fmt: skip
#: Words just before a date that make it a period's end ("the quarter ending 31 March 2025",
#: "our VAT quarter runs to 30 Nov 2025", HMRC's "the period to 30 November 2025").
_QUARTERS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3,
             "4th": 4}  # fmt: skip
_ENDS = re.compile(
    r"\b(?:ending|ended|ends|end(?:ing)? on|(?:runs?|running|ran) (?:up )?(?:to|until|till)|"
    r"(?:period|quarter|month|year) (?:to|until))\s+(?:on\s+)?(?:the\s+)?$",
    re.I,
)
_BEFORE = re.compile(
    r"\bbefore (?P<act>(?:the )?[\w ()/.-]{2,60}?) (?:applied|came into force|took effect|"
    r"entered into force|started to apply|began to apply|came into effect)\b",
    re.I,
)


@dataclass(frozen=True)
class AsAt:
    """A window of days evidence must have been in force in, and where it came from."""

    start: date
    end: date
    origin: AsAtOrigin
    phrase: str = ""  # the question's words that named it ("" for request and today)
    described: str = ""  # how the question put it, formatted from dates ("the 2023 tax year")
    ends_period: bool = False  # named as a period's end: "the quarter ending 31 March 2025"

    def window(self) -> tuple[str, str]:
        return self.start.isoformat(), self.end.isoformat()

    def label(self) -> str:
        """The window in words and ISO dates (fixed text: built from dates only)."""
        days = (
            self.start.isoformat()
            if self.start == self.end
            else f"{self.start.isoformat()} to {self.end.isoformat()}"
        )
        return f"{self.described} ({days})" if self.described else days

    def without_date(self, question: str, mark: str = " ") -> str:
        """The question without the words that named the date (what retrieval searches);
        ``mark`` stands where they were: the coverage check reads names of taxes and returns
        from words said together, and "the deadline for the 2024/25 tax return" is not a
        "deadline tax" (a date is a boundary between the words either side of it)."""
        if not self.phrase:
            return question
        # "When does the 2026/27 tax year start?" asks about the tax year: the words stay, its
        # number goes (the question left with no subject was refused as not regulatory); "for
        # the 2024 tax year" only qualifies what is asked, and goes whole.
        kept = f"{mark}tax year{mark}" if _TAX_YEAR_WORDS.search(self.phrase) else mark
        return " ".join(question.replace(self.phrase, kept).split())


def today_as_at(today: date) -> AsAt:
    return AsAt(today, today, "today", described="today")


def _month_number(name: str) -> int:
    key = name.lower().rstrip(".")[:3]
    return next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(key))


def _last_day(year: int, month: int) -> date:
    first_next = date(year + month // 12, month % 12 + 1, 1)
    return first_next - timedelta(days=1)


def _tax_year_start(match: re.Match[str], jurisdictions: Sequence[str]) -> tuple[str, int]:
    """``(jurisdiction, first calendar year)`` of the tax year a match names."""
    year = int(match["year"])
    if match["next"] and int(match["next"]) % 100 != (year + 1) % 100:
        raise ValueError("not a tax year: 2024-26")  # "2020-12": a month, not a tax year
    uk = "UK" in jurisdictions and "IE" not in jurisdictions
    return ("UK" if uk or match["next"] else "IE", year)


def _dated(kind: str, match: re.Match[str], jurisdictions: Sequence[str]) -> AsAt | None:
    lead = match.groupdict().get("lead") or ""
    phrase = match.group(0)[len(lead) :].strip()
    try:
        if kind == "iso":
            day = date(int(match["year"]), int(match["m"]), int(match["d"]))
            return AsAt(day, day, "question", phrase, _long(day))
        if kind == "day":
            day = date(int(match["year"]), _month_number(match["month"]), int(match["day"]))
            return AsAt(day, day, "question", phrase, _long(day))
        if kind == "month":
            year, month = int(match["year"]), _month_number(match["month"])
            described = f"{_MONTHS[month - 1].capitalize()} {year}"
            return AsAt(date(year, month, 1), _last_day(year, month), "question", phrase, described)
        if kind == "months":
            year = int(match["year"])
            first, last = _month_number(match["month"]), _month_number(match["month2"])
            if last <= first:
                return None  # "Dec/Jan 2026", "Mar/Mar 2026": not one period of a year
            described = f"{_MONTHS[first - 1].capitalize()} to {_MONTHS[last - 1].capitalize()}"
            return AsAt(date(year, first, 1), _last_day(year, last), "question", phrase,
                        f"{described} {year}")  # fmt: skip
        if kind == "quarter":  # a calendar quarter: "the third quarter of 2025", "Q3 2025"
            got = match.groupdict()
            year = int(got.get("year") or got["year2"])
            number = _QUARTERS.get((got.get("q") or "").lower()) or int(
                got.get("qn") or got.get("qn2") or 0
            )
            first = 3 * number - 2
            described = f"Q{number} {year} ({_MONTHS[first - 1].capitalize()} to "
            described += f"{_MONTHS[first + 1].capitalize()} {year})"
            start, end = date(year, first, 1), _last_day(year, first + 2)
            return AsAt(start, end, "question", phrase, described)
        if kind == "year":
            year = int(match["year"])
            return AsAt(date(year, 1, 1), date(year, 12, 31), "question", phrase, str(year))
        jurisdiction, year = _tax_year_start(match, jurisdictions)
        start, end = tax_year(jurisdiction, year)
        name = f"{year}-{str(year + 1)[2:]}" if jurisdiction == "UK" else str(year)
        return AsAt(start, end, "question", phrase, f"the {jurisdiction} {name} tax year")
    except ValueError:  # "31 February 2020": not a date, so it names none
        return None


def _long(day: date) -> str:
    return f"{day.day} {_MONTHS[day.month - 1].capitalize()} {day.year}"


def find_as_at(
    question: str,
    jurisdictions: Sequence[str] = (),
    act_start: Callable[[str], date | None] | None = None,
) -> AsAt | None:
    """The first date the question names (see the module docstring), or ``None``.

    ``act_start(text)``: the date from which the act that ``text`` names is in force, if the
    graph holds and dates it.
    """
    found: list[tuple[int, AsAt]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(question):
            as_at = _dated(kind, match, jurisdictions)
            if as_at is not None:
                if kind in ("iso", "day", "month") and _ENDS.search(question[: match.start()]):
                    as_at = replace(as_at, ends_period=True)
                found.append((match.start(), as_at))
                break
        if found:
            break  # the patterns are in order of precision: a day beats its month
    if act_start is not None:
        for match in _BEFORE.finditer(question):
            start = act_start(match["act"])
            if start is not None:
                day = start - timedelta(days=1)
                phrase = match.group(0)
                found.append(
                    (
                        match.start(),
                        AsAt(day, day, "question", phrase, f"the day before {_long(start)}"),
                    )
                )
                break
    return min(found, key=lambda f: f[0])[1] if found else None


def split_year_jurisdiction(question: str) -> str | None:
    """``"UK"`` when the question names a tax year across two calendar years ("2025/26", "the
    2026-27 tax year"): Ireland's tax year is the calendar year, so only the UK's is written so;
    else ``None``."""
    for _, pattern in (p for p in _PATTERNS if p[0] == "tax_year"):
        for match in pattern.finditer(question):
            if match["next"] and int(match["next"]) % 100 == (int(match["year"]) + 1) % 100:
                return "UK"
    return None


#: A day and month with no year after them ("on 14 November", "November 14th").
_NO_YEAR = r"(?!,? ?(?:19|20)\d\d|\d)"
_YEARLESS = (
    re.compile(r"\b(?:on |as at |as of )?(?:the )?" + _DAY + r"(?: of)? " + _MONTH + r"\b"
               + _NO_YEAR, re.I),
    re.compile(r"\b(?:on |as at |as of )?" + _MONTH + r" " + _DAY + r"\b" + _NO_YEAR, re.I),
)  # fmt: skip


#: Months with no year after them: two written as one period ("and the Mar/Apr one?"), or one
#: after a preposition ("And in May?": "may" alone is a verb).
_YEARLESS_MONTHS = (
    re.compile(r"\b(?:in |during |for )?(?:the )?" + _MONTH + r"\s*(?:[/&–-]|to|and)\s*"
               + _MONTH.replace("<month>", "<month2>") + r"\b" + _NO_YEAR, re.I),
    re.compile(r"\b(?:in|during|for|from) " + _MONTH + r"\b" + _NO_YEAR, re.I),
)  # fmt: skip


def same_year_as(question: str, before: AsAt) -> AsAt | None:
    """A day and month the question names with no year ("What if the disposal had been on 14
    November instead?"), or a month or two months as one period ("and the Mar/Apr one?", "And
    in May?"), dated in the year of ``before``, the day or months an earlier question of the
    conversation named (within one calendar year): a follow-up that moves the event or the
    period keeps its year. ``None`` when the question names no such date (or names a year:
    :func:`find_as_at` reads it)."""
    if before.origin != "question" or before.start.year != before.end.year:
        return None
    for pattern in _YEARLESS:
        for match in pattern.finditer(question):
            try:
                day = date(before.start.year, _month_number(match["month"]), int(match["day"]))
            except ValueError:  # "31 February": no date
                continue
            ends = _ENDS.search(question[: match.start()]) is not None
            phrase = match.group(0).strip()
            return AsAt(day, day, "question", phrase, _long(day), ends_period=ends)
    return _yearless_months(question, before.start.year)


def _yearless_months(question: str, year: int) -> AsAt | None:
    for n, pattern in enumerate(_YEARLESS_MONTHS):
        for match in pattern.finditer(question):
            first = _month_number(match["month"])
            last = _month_number(match["month2"]) if n == 0 else first
            if last < first:
                continue
            phrase = match.group(0).strip()
            names = [_MONTHS[m - 1].capitalize() for m in dict.fromkeys((first, last))]
            return AsAt(date(year, first, 1), _last_day(year, last), "question", phrase,
                        f"{' to '.join(names)} {year}")  # fmt: skip
    return None


def resolve_as_at(
    question: str,
    requested: date | None,
    today: date,
    jurisdictions: Sequence[str] = (),
    act_start: Callable[[str], date | None] | None = None,
) -> AsAt:
    """The turn's window: a date the question names, else the request's ``asAt``, else today.

    The question wins over the request: its words are about this question, while ``asAt`` is
    the client's setting for the conversation (a date picker).
    """
    named = find_as_at(question, jurisdictions, act_start)
    if named is not None:
        return named
    if requested is not None:
        return AsAt(requested, requested, "request", described=_long(requested))
    return today_as_at(today)
