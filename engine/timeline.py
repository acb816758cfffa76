"""The timeline engine: dates computed from the graph's ``Timeline`` rules (ADR 0033).

Pure functions over :class:`datetime.date`, no I/O:

- tax years: Ireland's is the calendar year, the UK's runs from 6 April to 5 April
  (:func:`tax_year`, :func:`tax_year_of`);
- durations (:func:`add_duration`): days, weeks, months and years (a month added to 31 January
  is the last day of February), hours rounded up to whole days;
- windows: a lookback ending on a day (:func:`lookback_window`, contains its end), a lock-in
  from a day (:func:`lock_in_end`, never before its start), an effective window
  (:func:`effective_window`);
- deadlines (:func:`deadline`): a duration after an anchor (a compound one too: "1 month and 7
  days after the end of the VAT period", ``duration_unit`` "months and 7 days after …"), or,
  where the rule names a calendar
  date (``..._31_OCT``, ``..._19TH`` in its id), the first such date after the anchor; rolled
  forward to the next weekday only where the rule says deadlines move off non-working days
  (public holidays are not modelled: no holiday calendar ships with the project).

:class:`TimelineRule` reads a ``Timeline`` node (``window_kind``, ``duration_value``,
``duration_unit`` such as ``"months after the end of the tax year"``); :func:`compute` applies
it at a date and returns :class:`ComputedDates` the turn quotes in its prompt with the rule's id.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any, Literal

from engine.stated_dates import applies_to, stated_dates

__all__ = [
    "Asked",
    "AskedKind",
    "ComputedDates",
    "TimelineRule",
    "Unit",
    "add_duration",
    "asks_tax_year_bounds",
    "compute",
    "concerns_timeline",
    "deadline",
    "due_after",
    "due_in_tax_year",
    "effective_window",
    "lock_in_end",
    "lookback_window",
    "next_weekday",
    "tax_year",
    "tax_year_of",
    "when",
    "when_all",
]

Unit = Literal["hours", "days", "weeks", "months", "years"]
_UNITS: dict[str, Unit] = {"hour": "hours", "day": "days", "week": "weeks", "month": "months",
                           "year": "years"}  # fmt: skip
_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_FIXED_DATE = re.compile(r"_(?P<day>\d{1,2})_(?P<month>" + "|".join(_MONTHS) + r")$")
_DAY_OF_MONTH = re.compile(r"_(?P<day>\d{1,2})(?:ST|ND|RD|TH)$")
_BUSINESS = re.compile(r"\b(working|business) days?\b", re.I)
#: ``duration_unit`` "months and 7 days after the end of the VAT period": a unit, optional days
#: on top, then what the duration counts from.
#: "no later than the 23rd day of the ninth month": a day of the Nth month after the anchor.
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
             "tenth", "eleventh", "twelfth")  # fmt: skip
_LATEST = re.compile(
    r"\bno later than the (?P<day>\d{1,2})(?:st|nd|rd|th) day of the (?P<nth>"
    + "|".join(_ORDINALS)
    + r") month\b",
    re.I,
)
_TAX_YEAR_WORDS = re.compile(r"\b(?:tax year|year of assessment)\b", re.I)
_DURATION_UNIT = re.compile(r"^(?P<unit>[a-z]+?)s?(?:\s+and\s+(?P<days>\d+)\s+days?)?(?:\s+|$)")


_TIMELINE_QUESTION = re.compile(
    r"\b(when (?:must|should|do|does|did|is|are|was|were|can|could|will|would|had|to)|by when|"
    r"when(?:'s|’s|s)(?= )|"
    r"(?:from |by |on |until )?(?:what|which) (?:date|day)|(?:filing|payment|pay and file) dates?|"
    r"deadlines?|due (?:date|by)|"
    r"file by|time limits?|how long|how far back|lock[- ]in|holding period|hold (?:it|them|the)|"
    r"sell (?:\w+ ){0,3}before|before (?:i|we) can|within \d+|look ?back|claw ?back|"
    r"last day|tax year (?:start|end|begin)s?|when does the tax year)\b|"
    # shorthand that ends on the question: "Jan/Feb 2026 VAT3 due?", "balancing payment for
    # 2025/26 - when?"
    r"\b(?:due|when)\s*\?*\s*$",
    re.I,
)


def concerns_timeline(question: str) -> bool:
    """Whether a question asks about a deadline, a window or a period ("when must I file…",
    "can I sell before…", "how far back can Revenue go")."""
    return _TIMELINE_QUESTION.search(question) is not None


_TAX_YEAR_BOUNDS = re.compile(
    r"\btax year (?:start|end|begin|run)s?\b|\b(?:start|end|beginning|first day|last day) of "
    r"(?:the |a )?(?:\S+ )?tax year\b|\bwhen does (?:the |a )?(?:\S+ )?tax year\b",
    re.I,
)


def asks_tax_year_bounds(question: str) -> bool:
    """Whether a question asks when a tax year starts or ends ("When does the 2026/27 tax year
    start in the UK?"), not what falls due in it."""
    return _TAX_YEAR_BOUNDS.search(question) is not None


def tax_year(jurisdiction: str, year: int) -> tuple[date, date]:
    """First and last day of the tax year that starts in ``year``: IE (and anything else) the
    calendar year; UK 6 April ``year`` to 5 April ``year + 1``."""
    if jurisdiction in ("UK", "NI", "GB"):
        return date(year, 4, 6), date(year + 1, 4, 5)
    return date(year, 1, 1), date(year, 12, 31)


def tax_year_of(jurisdiction: str, day: date) -> int:
    """The year in which the tax year holding ``day`` starts."""
    start, _ = tax_year(jurisdiction, day.year)
    return day.year if day >= start else day.year - 1


def _add_months(day: date, months: int) -> date:
    total = day.year * 12 + (day.month - 1) + months
    year, month = divmod(total, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


def add_duration(day: date, value: int, unit: Unit) -> date:
    """``day`` moved by ``value`` units (negative goes back); months clamp to the month end."""
    if unit == "hours":
        days = -(-abs(value) // 24)  # whole days, rounded up
        return day + timedelta(days=days if value >= 0 else -days)
    if unit == "days":
        return day + timedelta(days=value)
    if unit == "weeks":
        return day + timedelta(weeks=value)
    return _add_months(day, value * (12 if unit == "years" else 1))


def lookback_window(end: date, value: int, unit: Unit) -> tuple[date, date]:
    """The window of ``value`` units that ends on ``end`` (both ends included)."""
    return min(add_duration(end, -value, unit), end), end


def lock_in_end(start: date, value: int, unit: Unit) -> date:
    """The first day after a lock-in of ``value`` units that started on ``start``."""
    return max(add_duration(start, value, unit), start)


def effective_window(start: date, value: int, unit: Unit) -> tuple[date, date]:
    """The day a rule applies from, ``value`` units after ``start`` (e.g. entry into force),
    with ``start``: (start, applies from)."""
    return start, max(add_duration(start, value, unit), start)


def next_weekday(day: date) -> date:
    """``day``, or the Monday after it when it falls on a Saturday or Sunday."""
    return day + timedelta(days=max(0, 7 - day.weekday()) if day.weekday() >= 5 else 0)


def _fixed_after(anchor: date, month: int, day: int) -> date:
    """The first ``day`` of ``month`` strictly after ``anchor`` (clamped to the month end)."""
    for year in (anchor.year, anchor.year + 1):
        candidate = date(year, month, min(day, calendar.monthrange(year, month)[1]))
        if candidate > anchor:
            return candidate
    raise AssertionError("unreachable: a year later is always after the anchor")


def _day_of_month_after(anchor: date, day: int) -> date:
    """The first ``day`` of a month strictly after ``anchor`` (clamped to the month end)."""
    month_start = date(anchor.year, anchor.month, 1)
    for step in (0, 1, 2):
        first = _add_months(month_start, step)
        last = calendar.monthrange(first.year, first.month)[1]
        candidate = date(first.year, first.month, min(day, last))
        if candidate > anchor:
            return candidate
    raise AssertionError("unreachable: the next month always has a later day")


def deadline(
    anchor: date,
    value: int,
    unit: Unit,
    *,
    fixed: tuple[int, int] | None = None,
    day_of_month: int | None = None,
    business_days: bool = False,
    extra_days: int = 0,
    period_end: bool = False,
    latest: tuple[int, int] | None = None,
) -> date:
    """When something due after ``anchor`` falls: ``fixed`` (month, day) is the first such date
    after the anchor, ``day_of_month`` the first such day of a month after it, else the anchor
    plus the duration (and ``extra_days``: "1 calendar month and 7 days"); then moved off a
    weekend where ``business_days``. ``latest`` (day, n) caps it at that day of the nth
    month after the anchor ("no later than the 23rd day of the ninth month"). Calendar
    months counted from the end of a period that ends on a month's last day (``period_end``)
    end on a month's last day: a VAT quarter ending 30 September is due one month (31
    October) and seven days later, 7 November."""
    if fixed is not None:
        due = _fixed_after(anchor, fixed[0], fixed[1])
    elif day_of_month is not None:
        due = _day_of_month_after(anchor, day_of_month)
    else:
        due = add_duration(anchor, value, unit)
        if period_end and unit in ("months", "years") and anchor == _month_end(anchor):
            due = _month_end(due)
        due = add_duration(due, extra_days, "days")
    if latest is not None:  # (day, n): no later than that day of the nth month after
        month = _add_months(date(anchor.year, anchor.month, 1), latest[1])
        last = calendar.monthrange(month.year, month.month)[1]
        due = min(due, date(month.year, month.month, min(latest[0], last)))
    return next_weekday(due) if business_days else due


@dataclass(frozen=True)
class TimelineRule:
    """A ``Timeline`` node as the engine applies it."""

    id: str
    name: str
    kind: str  # LOOKBACK, LOCK_IN, DEADLINE, DURATION, PERIOD, CLAWBACK, RETENTION, TRANSITION
    value: int
    unit: Unit
    anchor: str  # what the duration counts from, in the rule's words ("" for the asked date)
    jurisdiction: str
    fixed: tuple[int, int] | None = None  # (month, day) the id names, e.g. ``_31_OCT``
    day_of_month: int | None = None  # the day the id names, e.g. ``_19TH``
    business_days: bool = False
    about_tax_years: bool = False  # the rule's words count in tax years
    #: The rule is the jurisdiction's tax year itself: a 12-month ``PERIOD`` whose words name a
    #: tax year or year of assessment (its bounds come from :func:`tax_year`, not from the day).
    is_tax_year: bool = False
    description: str = ""  # the rule's words (which events it covers, dates it states)
    extra_days: int = 0  # days on top of the duration ("1 month and 7 days")
    latest: tuple[int, int] | None = None  # "no later than the 23rd day of the ninth month"

    @classmethod
    def from_node(cls, node_id: str, props: dict[str, Any]) -> TimelineRule | None:
        """The rule of a ``Timeline`` node, or ``None`` without a readable duration."""
        unit_words = " ".join(str(props.get("duration_unit") or "").strip().lower().split())
        value = props.get("duration_value")
        parsed = _DURATION_UNIT.match(unit_words)
        if parsed is None or not isinstance(value, int):
            return None
        unit = _UNITS.get(parsed["unit"])
        if unit is None:
            return None
        fixed = _FIXED_DATE.search(node_id)
        day = _DAY_OF_MONTH.search(node_id)
        text = f"{props.get('name', '')} {props.get('description', '')}"
        kind = str(props.get("window_kind") or "DURATION").upper()
        names_tax_year = _TAX_YEAR_WORDS.search(text) is not None
        return cls(
            id=node_id,
            name=str(props.get("name") or node_id),
            kind=kind,
            value=value,
            unit=unit,
            anchor=unit_words[parsed.end() :],
            jurisdiction=node_id.split(":", 1)[0],
            fixed=(_MONTHS.index(fixed["month"]) + 1, int(fixed["day"])) if fixed else None,
            day_of_month=int(day["day"]) if day else None,
            business_days=bool(_BUSINESS.search(text)),
            about_tax_years="tax year" in text.lower(),
            is_tax_year=kind == "PERIOD" and unit == "months" and value == 12 and names_tax_year,
            description=str(props.get("description") or ""),
            extra_days=int(parsed["days"] or 0),
            latest=(
                (int(cap["day"]), _ORDINALS.index(cap["nth"].lower()) + 1)
                if (cap := _LATEST.search(text))
                else None
            ),
        )

    @property
    def counts_from_tax_year(self) -> bool:
        return "tax year" in self.anchor


@dataclass(frozen=True)
class ComputedDates:
    """What a rule gives at one date: a one-line statement with ISO dates, for the prompt."""

    rule_id: str
    text: str
    start: date
    end: date


def compute(rule: TimelineRule, at: date) -> ComputedDates:
    """Apply ``rule`` at ``at`` (the asked date or today), as a one-line statement."""
    measure = f"{rule.value} {rule.unit}"
    if rule.extra_days:
        measure += f" and {rule.extra_days} days"
    if rule.kind == "LOOKBACK":
        start, end = lookback_window(at, rule.value, rule.unit)
        text = f"looking back {measure} from {at}: {start} to {end}"
        if rule.about_tax_years:
            # Counted from the end of a tax year: the earliest tax year that ends inside it.
            year = tax_year_of(rule.jurisdiction, start)
            if tax_year(rule.jurisdiction, year)[1] < start:
                year += 1
            first, last = tax_year(rule.jurisdiction, year)
            text += f"; the earliest tax year ending inside it is {first} to {last}"
        return ComputedDates(rule.id, text, start, end)
    if rule.kind in ("LOCK_IN", "CLAWBACK", "RETENTION"):
        end = lock_in_end(at, rule.value, rule.unit)
        what = {
            "LOCK_IN": "the holding period ends",
            "CLAWBACK": "the clawback period ends",
            "RETENTION": "records may be discarded from",
        }[rule.kind]
        text = f"starting {at.isoformat()}, {what} {end.isoformat()} ({measure})"
        return ComputedDates(rule.id, text, at, end)
    if rule.kind == "DEADLINE":
        anchor, about = _anchor(rule, at)
        due = _due(rule, anchor)
        if due < at and rule.anchor and "tax year" in rule.anchor:
            # Already passed for that tax year: the next one's is what is still to come.
            anchor, about = _anchor(rule, add_duration(at, 1, "years"))
            due = _due(rule, anchor)
        moved = ", moved off a weekend" if rule.business_days else ""
        text = f"{about}: due {due.isoformat()} ({_weekday(due)}{moved})"
        return ComputedDates(rule.id, text, anchor, due)
    if rule.is_tax_year:
        year = tax_year_of(rule.jurisdiction, at)
        start, end = tax_year(rule.jurisdiction, year)
        text = f"the tax year holding {at} runs {start} to {end}"
        return ComputedDates(rule.id, text, start, end)
    start, end = effective_window(at, rule.value, rule.unit)
    text = f"{measure} from {at.isoformat()}: until {end.isoformat()}"
    return ComputedDates(rule.id, text, start, end)


def due_after(rule: TimelineRule, anchor: date) -> date:
    """When ``rule`` falls due counted from ``anchor`` (a disposal's date: CGT due 15 December
    after it, a UK property gain's 60 days)."""
    return _due(rule, anchor)


def due_in_tax_year(rule: TimelineRule, year: int) -> date:
    """When ``rule`` falls due for tax year ``year`` (a return due 31 October after the year's
    end, preliminary tax 31 October into it)."""
    return _tax_year_due(rule, year)


def _due(rule: TimelineRule, anchor: date, period_end: bool = False) -> date:
    return deadline(
        anchor,
        rule.value,
        rule.unit,
        fixed=rule.fixed,
        day_of_month=rule.day_of_month,
        business_days=rule.business_days,
        extra_days=rule.extra_days,
        period_end=period_end,
        latest=rule.latest,
    )


def _anchor(rule: TimelineRule, at: date) -> tuple[date, str]:
    """The day a deadline counts from, at ``at``: the end of the last complete tax year for
    "after the end of the tax year", the start of the current one for "into the tax year",
    otherwise ``at`` itself (the event: an arrival, a disposal, the end of a period)."""
    if "into the tax year" in rule.anchor:
        year = tax_year_of(rule.jurisdiction, at)
        start, _ = tax_year(rule.jurisdiction, year)
        return start, f"for the tax year starting {start.isoformat()}"
    if rule.counts_from_tax_year:
        year = tax_year_of(rule.jurisdiction, at) - 1
        _, end = tax_year(rule.jurisdiction, year)
        return end, f"for the tax year ending {end.isoformat()}"
    return at, f"counting from {at.isoformat()}"


def _weekday(day: date) -> str:
    return calendar.day_name[day.weekday()]


AskedKind = Literal["today", "request", "day", "month", "year", "tax_year"]


@dataclass(frozen=True)
class Asked:
    """What the question fixes in time (ADR 0047): a day (an event: a disposal, an arrival), a
    month (a VAT period), a year or a tax year (whose obligations it asks about), or nothing
    (``today`` or the request's ``asAt``: the engine then assumes, and says what it assumed)."""

    start: date
    end: date
    kind: AskedKind
    ends_period: bool = False  # "the quarter ending 31 March 2025": the day ends a period

    @classmethod
    def of(
        cls, start: date, end: date, origin: str, described: str = "", ends_period: bool = False
    ) -> Asked:
        """From a turn's window (:class:`engine.as_at.AsAt`'s fields)."""
        if origin in ("today", "request"):
            return cls(start, start, "today" if origin == "today" else "request")
        if "tax year" in described:
            return cls(start, end, "tax_year")
        if start == end:
            return cls(start, end, "day", ends_period)
        if (start.month, start.day, end.month, end.day) == (1, 1, 12, 31):
            return cls(start, end, "year")
        return cls(start, end, "month", ends_period)

    @property
    def named(self) -> bool:
        return self.kind not in ("today", "request")


def _uk(jurisdiction: str) -> bool:
    return jurisdiction in ("UK", "NI", "GB")


def _named_tax_year(rule: TimelineRule, asked: Asked) -> int:
    """The tax year a question names, in the rule's jurisdiction: "for 2025" or "the 2025 tax
    year" is the tax year that starts in 2025 (Ireland: the calendar year 2025; the UK: 6 April
    2025 to 5 April 2026); "2024-25" starts in 2024; a day or a month names the tax year that
    holds it."""
    if asked.kind in ("year", "tax_year"):
        return asked.start.year
    return tax_year_of(rule.jurisdiction, asked.start)


def _tax_year_words(jurisdiction: str, year: int) -> str:
    first, last = tax_year(jurisdiction, year)
    name = f"{year}-{str(year + 1)[2:]}" if _uk(jurisdiction) else str(year)
    return f"the {name} tax year ({first.isoformat()} to {last.isoformat()})"


def _period_months(rule: TimelineRule, periods: Sequence[TimelineRule]) -> int | None:
    """The length in months of the period a deadline counts from ("the end of the taxable
    period"): a ``PERIOD`` rule of the same jurisdiction that names that period, or a quarter."""
    if "quarter" in rule.anchor:
        return 3
    words = rule.anchor.replace("the end of the", "").replace("(approximately)", "").split()
    wanted = " ".join(w for w in words if w not in ("days", "after", "months"))
    for period in periods:
        if period.kind == "PERIOD" and period.jurisdiction == rule.jurisdiction:
            if period.unit == "months" and wanted and wanted in period.name.lower():
                return period.value
    return None


def _period_of(day: date, months: int) -> tuple[date, date]:
    """The period of ``months`` calendar months holding ``day``, periods counted from January
    (two-month periods: January-February, March-April, ...; quarters: January-March, ...)."""
    first_month = (day.month - 1) // months * months + 1
    start = date(day.year, first_month, 1)
    after = _add_months(start, months)
    return start, after - timedelta(days=1)


def _month_end(day: date) -> date:
    return date(day.year, day.month, calendar.monthrange(day.year, day.month)[1])


def when(
    rule: TimelineRule,
    asked: Asked,
    today: date,
    periods: Sequence[TimelineRule] = (),
) -> ComputedDates | None:
    """What ``rule`` gives for what the question fixes (ADR 0047), or ``None`` where the rule
    does not apply to it (a December-disposal rule asked about a March disposal).

    - A deadline counted from the end of a tax year is computed from the end of the tax year
      the question names ("for 2025", "the 2024 tax year", "2024-25"); with none named, from
      the last tax year complete at ``today`` (or the next, once its date has passed), and the
      text says which year was assumed.
    - A deadline counted from an event (a disposal, the end of a VAT period) is computed from
      the day or month named; a rule stating which events it covers ("disposals made between 1
      January and 30 November") is left out for any other, whatever it counts from (a CAT
      return for valuation dates from 1 September counts from the end of the year, and says
      nothing of a gift on 15 March); periodic returns know their periods.
    - Dates the rule states ("from 2 February 2025") are quoted, never counted from today.
    - Only a question naming nothing depends on ``today``.
    """
    if asked.kind == "request":
        today = asked.start  # the client's asAt stands for "now"
    stated = stated_dates(rule.description)
    if rule.kind in ("TRANSITION", "DURATION") and stated and "entry into force" in rule.anchor:
        listed = "; ".join(
            f"{what} from {day.isoformat()}" if what else f"from {day.isoformat()}"
            for what, day in stated
        )
        return ComputedDates(
            rule.id, f"dates the rule states: {listed}", stated[0][1], max(d for _, d in stated)
        )
    at = asked.start if asked.named else today
    assumed = "" if asked.named else f" (no date named: assumed {today.isoformat()})"
    if rule.kind != "DEADLINE":
        if rule.kind == "PERIOD" and not rule.is_tax_year and rule.unit == "months":
            start, end = _period_of(at, rule.value)
            text = f"the {rule.value}-month period holding {at.isoformat()} runs {start} to {end}"
            return ComputedDates(rule.id, text + assumed, start, end)
        computed = compute(rule, at)
        return replace(computed, text=computed.text + assumed)
    if rule.counts_from_tax_year or "into the tax year" in rule.anchor:
        if asked.kind == "day" and not applies_to(rule.description, asked.start):
            return None  # the rule states the events it covers, and this day is not one
        return _tax_year_deadline(rule, asked, today)
    event = at
    if asked.kind in ("year", "tax_year", "month"):
        # An event somewhere in the named window: the first day of it the rule covers.
        covered = [d for d in _days(asked.start, asked.end) if applies_to(rule.description, d)]
        if not covered:
            return None
        event = covered[0]
    elif not applies_to(rule.description, event):
        return None
    months = _period_months(rule, periods)
    if months is None and ("period" in rule.anchor or "quarter" in rule.anchor):
        if asked.ends_period and asked.kind in ("day", "month"):
            # The question names the period's end ("the quarter ending 31 March 2025"): the
            # periods differ by business (UK VAT stagger), but the deadline counts from the end.
            end = asked.end
            due = _due(rule, end, period_end=True)
            text = f"for the period ending {end}: due {due.isoformat()} ({_weekday(due)})"
            return ComputedDates(rule.id, text, end, due)
        if _covers_all(rule):
            return None  # the period's length is not in the graph: no date beats a wrong one
    if months is not None:
        start, end = _period_of(event, months)
        if (
            asked.ends_period
            and asked.end == _month_end(asked.end)
            and _period_of(asked.end, months)[1] != asked.end
        ):
            return None  # "the period ending 31 January": not a period of this rule
        if "last day of the month" in rule.description:
            due = _month_end(_add_months(date(end.year, end.month, 1), 1))
            due = next_weekday(due) if rule.business_days else due
        else:
            due = _due(rule, end, period_end=True)
        about = f"for the period {start.isoformat()} to {end.isoformat()}"
        return ComputedDates(
            rule.id, f"{about}: due {due.isoformat()} ({_weekday(due)})" + assumed, end, due
        )
    due = _due(rule, event)
    what = "for an event on" if asked.kind in ("day", "today", "request") else "for events from"
    text = f"{what} {event.isoformat()}: due {due.isoformat()} ({_weekday(due)})"
    return ComputedDates(rule.id, text + assumed, event, due)


def _covers_all(rule: TimelineRule) -> bool:
    """Whether the rule states no limit on the events it covers (no range, no month)."""
    return all(applies_to(rule.description, date(2001, m, 1)) for m in range(1, 13))


def _days(start: date, end: date) -> list[date]:
    """The first day of each month in the window, and its first day (enough to test rules that
    cover months or ranges of months)."""
    days, day = [start], date(start.year, start.month, 1)
    while True:
        day = _add_months(day, 1)
        if day > end:
            return days
        days.append(day)


def _tax_year_deadline(rule: TimelineRule, asked: Asked, today: date) -> ComputedDates:
    if asked.named:
        year, note = _named_tax_year(rule, asked), ""
    else:
        year = tax_year_of(rule.jurisdiction, today) - (
            0 if "into the tax year" in rule.anchor else 1
        )
        if _tax_year_due(rule, year) < today:
            year += 1  # already passed for that year: the next one is what is still to come
        assumed = _tax_year_words(rule.jurisdiction, year)
        note = f" (no tax year named: assumed {assumed}, the next due after {today.isoformat()})"
    due = _tax_year_due(rule, year)
    moved = ", moved off a weekend" if rule.business_days else ""
    named = _tax_year_words(rule.jurisdiction, year)
    text = f"for {named}: due {due.isoformat()} ({_weekday(due)}{moved}){note}"
    first, last = tax_year(rule.jurisdiction, year)
    return ComputedDates(rule.id, text, last if rule.counts_from_tax_year else first, due)


def _tax_year_due(rule: TimelineRule, year: int) -> date:
    first, last = tax_year(rule.jurisdiction, year)
    if "into the tax year" in rule.anchor:
        return (
            _due(rule, first - timedelta(days=1))
            if rule.fixed
            else add_duration(first, rule.value, rule.unit)
        )
    return _due(rule, last)


_ON_THE_POINT = ("DEADLINE", "PERIOD", "TRANSITION")


def when_all(
    rules: Sequence[TimelineRule],
    asked: Asked,
    today: date,
    limit: int = 3,
    periods: Sequence[TimelineRule] = (),
    *,
    about_tax_year: bool = False,
) -> tuple[list[ComputedDates], list[str]]:
    """:func:`when` for each rule (the ``PERIOD`` rules among them and ``periods`` give the
    periods: a return's period is the jurisdiction's, found or not by this search), at most
    ``limit`` results; and the ids of the rules that do not apply to what was asked (a
    December-disposal rule for a March disposal), which an answer must not quote. Where a
    deadline is computed, windows of another kind (a lookback, a lock-in linked to the same
    obligation) are left out: the question asked when something is due. A question about the
    tax year itself (``about_tax_year``: when it starts or ends) gets the tax year's bounds
    alone where a tax-year rule gives them."""
    computed: list[tuple[TimelineRule, ComputedDates]] = []
    excluded: list[str] = []
    for rule in rules:
        dates = when(rule, asked, today, [*rules, *periods])
        if dates is not None:
            computed.append((rule, dates))
        elif not _covers_all(rule) and rule.kind == "DEADLINE":
            excluded.append(rule.id)
    if any(rule.kind == "DEADLINE" for rule, _ in computed):
        computed = [(rule, dates) for rule, dates in computed if rule.kind in _ON_THE_POINT]
    tax_years = [pair for pair in computed if pair[0].is_tax_year]
    if about_tax_year and tax_years:
        # "When does the 2026/27 tax year start?": the tax year's bounds, no return's deadline.
        computed = tax_years
    # The dates chosen, in date order within each jurisdiction (the rules' order decides the
    # jurisdictions' and which dates are chosen): a balancing payment on 31 January is not
    # listed after the payment on account of the July after it.
    chosen = computed[:limit]
    places = list(dict.fromkeys(rule.jurisdiction for rule, _ in chosen))
    chosen.sort(key=lambda pair: (places.index(pair[0].jurisdiction), pair[1].end))
    return [dates for _, dates in chosen], excluded
