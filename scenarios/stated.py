"""Facts a user states in a chat message, and the what-if they ask (issue 28, ADR 0063).

A small rule-based parser, not a model: it reads what people type about their own tax position
("I earn €50,000 as a PAYE employee, single, in 2025", "self-employed on £42k, 2024-25",
"my salary is 55,000 euro") and nothing else. What it reads:

- **amounts**: a currency sign or word (``€``, ``£``, ``EUR``, ``euro(s)``, ``GBP``,
  ``pound(s)``, ``sterling``) or a ``k`` / ``thousand`` suffix; ``50,000``, ``50 000``,
  ``50000.50``, ``€50k``, ``£42.5k``. A bare number is never an amount (``2025`` is a year).
- **the kind of income** of each amount, from the words of its clause: PAYE, salary, employee,
  wages, employed → employment (PAYE) income; self-employed, sole trader, freelance(r),
  contractor, profits, trading, Class S → self-employed income; an amount with neither is
  ``income`` of no stated kind; in a clause about a wife, husband, spouse or partner, the
  spouse's income. An amount beside a pension, rent, a sale or a gain is no income (pension
  contributions, rent and disposals are read as below; anything else is left out: the parser
  never guesses what such a figure is).
- **civil status**: single, married, civil partner(ship), widowed, separated, divorced; and how
  a couple is assessed: "jointly assessed" / "joint assessment", "separate assessment" /
  "separately assessed", "separate treatment" / "treated as single".
- **household facts** the credits turn on (ADR 0091): the year of bereavement ("widowed in
  2022", "my husband died in 2021", "lost my wife in 2023"), the number of children ("two
  kids", "3 children", "a daughter"), caring alone ("single parent", "lone parent", "raising
  my son alone": the single person child carer credit), a tenancy registered with the RTB (or
  "not registered"), and Marriage Allowance ("my wife transfers her Marriage Allowance").
- **the tax year**: ``2025``, ``tax year 2024``, ``2025-26`` / ``2025/26`` (the UK's 2025).
- **the jurisdiction**: words (Ireland, Irish, Revenue → IE; UK, England, Wales, Britain,
  HMRC → UK; Northern Ireland, Belfast → NI), else the currency (``€`` → IE, ``£`` → UK).
- **age**: "aged 35", "I'm 67", "35 years old".
- **pension contributions** and **rent paid**: an amount in a clause about a pension or rent
  ("I put €6,000 into my pension", "I pay €1,100 a month in rent"); an amount "a month",
  "per month", "monthly" (or "a week") is made a year's (× 12, × 52), for incomes too.
- **a disposal**: a clause that sold something for an amount (the proceeds) and one that bought
  it for an amount (the cost), with each one's date as stated: "on 12 March 2025" (a day),
  "in June 2019" (a month), "in 2010" (a year); the asset is the words after sold/bought.
  Without both amounts there is no disposal (the parser never guesses a cost). The cost may be
  said as what the asset cost ("that cost €8,000 in 2019", "they cost me €8,000"). Fees,
  commission, stamp duty and legal or selling costs beside an amount are the disposal's
  allowable expenses ("paying €500 in fees"). When the only years stated are the disposal's,
  its year is the tax year.
- **capital losses brought forward**: an amount of losses brought (or carried) forward, or of
  unused, earlier or previous losses ("losses of €3,000 brought forward").
- **a sale moved in time** (a what-if of a date only): "what if I sold them in May instead",
  "what if I sell on 10 April 2026": the stated disposal's sale date changes (a month without
  a year keeps the sale's year), and the tax year with it.
- **"from X to Y"**: a range of two amounts ("my salary goes from £48k to £52k") states X and
  asks the what-if Y, of the same kind.

:func:`parse_what_if` splits a message at its what-if ("what if", "suppose", "if instead",
"what would ... if") into the facts stated before it and the change asked after it.
:func:`maybe_scenario` is the cheap check the chat turn runs first: one compiled regular
expression, so a question that states nothing and asks no what-if costs one search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

__all__ = [
    "IncomeKind",
    "StatedDisposal",
    "StatedFacts",
    "WhatIfQuestion",
    "maybe_scenario",
    "moved_date",
    "parse_facts",
    "parse_what_if",
    "tax_year_of",
]

IncomeKind = Literal["paye", "self_employed", "unspecified"]

# The cheap check: a what-if word, a currency amount or a k-amount. Anything else is a plain
# question and the turn reads and writes nothing for scenarios.
_MAYBE = re.compile(
    r"what\s+if|suppos|imagine|instead|what\s+would|[€£]|\b\d[\d,.]*\s?k\b"
    r"|\b\d[\d,. ]*\s*(?:euros?|eur|pounds?|gbp|sterling)\b",
    re.I,
)
_WHAT_IF = re.compile(
    r"\bwhat\s+(?:about\s+)?if\b|\bsuppos(?:e|ing)\b|\bimagine\b|\bif\s+(?:instead|I\s+were\s+to)\b"
    r"|\bwhat\s+(?:would|will)\b[^?.!]*\bif\b|\bhow\s+(?:much|would)\b[^?.!]*\bif\b"
    r"|\bif\s+I\b[^?.!]*\binstead\b",
    re.I,
)
_AMOUNT = re.compile(
    r"(?P<pre>[€£]|\b(?:eur|gbp)\b)?\s?"
    r"(?P<num>\d{1,3}(?:[, ]\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)"
    r"(?:\s?(?P<k>k\b|thousand\b))?"
    r"(?:\s?(?P<post>euros?\b|eur\b|pounds?\b|gbp\b|sterling\b|stg\b))?",
    re.I,
)
_CLAUSE = re.compile(
    r"[;!?\n]|\.(?=\s|$)|,\s+(?=(?:and|but|my|I|I'm|we|our|plus)\b)|\band\s+my\b"
    r"|\band\s+(?=I\b|I'm\b|we\b)",
    re.I,
)
_PAYE = re.compile(
    r"\b(?:paye|salar(?:y|ied|ies)|employee|wages?|employed|employment|employer|job|gross pay)\b",
    re.I,
)
_SELF = re.compile(
    r"\bself[- ]?employ\w*|\bsole\s+trader|\bfreelanc\w*|\bcontractor\b|\bprofits?\b"
    r"|\btrading\b|\bclass\s+s\b|\bown\s+business\b",
    re.I,
)
_NOT_INCOME = re.compile(
    r"\bpension\b|\brent\b|\bgains?\b|\bsold\b|\bsell\b|\bdisposal|\bshares?\b|\bmortgage\b"
    r"|\bcredit\b|\bworth\b|\bhouse\b|\bproperty\b|\bprice\b|\bcosts?\b|\btax(?:es)?\s+(?:of|is|was|bill)\b|\bpay\s+(?:in\s+)?tax\b",
    re.I,
)
# Words right beside an amount that make it a change or a payment, not an income.
_CHANGE = re.compile(r"#\s*(?:pay\s+)?(?:rise|raise|increase|bonus|more|extra|less)\b", re.I)
_NEAR = 30
_EARNS = re.compile(r"\b(?:earn\w*|income|make|making|made|paid|salary|wages?|profits?)\b", re.I)
_SPOUSE = re.compile(
    r"\b(?:wife|husband|spouse|partner|fianc[ée]e?|(?:s?he|they)\s+(?:earns?|makes?|is|are|gets?))\b"
    r"|\bmarr(?:y|ied|ying)\s+(?:someone|somebody|a\s+(?:man|woman|person))\b",
    re.I,
)
_SELF_FIRST = re.compile(r"\bnot\s+(?:a\s+)?(?:paye|employee|employed)\b", re.I)
# How a married couple or civil partners are assessed (Ireland): joint assessment, separate
# assessment (s.1023) or separate treatment (each as a single person).
_ASSESSMENT = (
    (re.compile(r"\bjoint(?:ly)?\s+assess\w*|\bassessed\s+jointly\b", re.I), "joint"),
    (re.compile(r"\bseparate(?:ly)?\s+assess\w*|\bassessed\s+separately\b", re.I),
     "separate_assessment"),
    (re.compile(r"\bseparate(?:ly)?\s+treat\w*|\btreated\s+(?:as\s+single|separately)\b", re.I),
     "separate_treatment"),
)  # fmt: skip
_STATUS = (
    (re.compile(r"\bcivil\s+partner(?:ship|s)?\b", re.I), "civil_partner"),
    (re.compile(r"\bmarried\b|\bmy\s+(?:wife|husband|spouse)\b", re.I), "married"),
    (re.compile(r"\bwidow(?:ed|er)?\b", re.I), "widowed"),
    (re.compile(r"\bseparated\b", re.I), "separated"),
    (re.compile(r"\bdivorced\b", re.I), "divorced"),
    (re.compile(r"\bsingle\b|\bunmarried\b|\bnot\s+married\b", re.I), "single"),
)
# The year a spouse died: "widowed in 2022", "my husband died in 2021", "lost my wife in 2023".
_BEREAVED = re.compile(
    r"\b(?:widowed|(?:wife|husband|spouse|partner)\s+(?:died|passed\s+away)|lost\s+my\s+"
    r"(?:wife|husband|spouse|partner))\s+(?:in|since|back\s+in)\s+(?:\w+\s+)?((?:19|20)\d{2})\b",
    re.I,
)
_DIED = re.compile(r"\b(?:wife|husband|spouse|partner)\s+(?:died|passed\s+away)\b"
                   r"|\blost\s+my\s+(?:wife|husband|spouse|partner)\b", re.I)  # fmt: skip
_COUNT_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_CHILDREN = re.compile(
    r"\b(?P<n>\d{1,2}|a|an|one|two|three|four|five|six)\s+(?:(?:young|dependent|small)\s+)?"
    r"(?P<what>child(?:ren)?|kids?|sons?|daughters?)\b",
    re.I,
)
_NO_CHILDREN = re.compile(r"\bno\s+(?:children|kids)\b|\bchildless\b", re.I)
_ALONE = re.compile(
    r"\b(?:single|lone|solo)\s+(?:parent|mother|mum|mom|father|dad)\b"
    r"|\b(?:raising|caring\s+for|bringing\s+up|looking\s+after)\s+(?:my|our|the)\s+"
    r"(?:\w+\s+)?(?:child(?:ren)?|kids?|sons?|daughters?)\s+(?:alone|on\s+my\s+own|by\s+myself)\b"
    r"|\bsingle\s+person\s+child\s+carer\b|\bspccc\b",
    re.I,
)
_RTB = re.compile(r"\b(?:rtb|residential\s+tenancies\s+board)\b|\bregistered\s+tenancy\b"
                  r"|\btenancy\s+is\s+registered\b", re.I)  # fmt: skip
_NOT_RTB = re.compile(r"\bnot\s+registered\b|\bunregistered\b|\bisn'?t\s+registered\b", re.I)
_MARRIAGE_ALLOWANCE = re.compile(r"\bmarriage\s+(?:tax\s+)?allowance\b", re.I)
# A what-if that moves the stated sale: "what if I sold them in May instead", "sell on 10
# April 2026"; a month with no year keeps the sale's year.
_MOVED = re.compile(
    r"\b(?:sold|sell(?:s|ing)?|dispos(?:ed|e|ing)\s+of|sale)\b[^.?!€£\d]{0,40}?\b(?:in|on)\s+"
    r"(?:(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+)?(?P<month>january|february|march|april|may|june|"
    r"july|august|september|october|november|december)(?:\s+(?P<year>(?:19|20)\d{2}))?\b",
    re.I,
)
_UK_YEAR = re.compile(r"\b(20\d{2})\s?[-/–]\s?(\d{2})\b")
_YEAR = re.compile(r"\b(20\d{2})\b")
_NI = re.compile(r"\bnorthern\s+ireland\b|\bbelfast\b|\bnewry\b|\bderry\b", re.I)
_IE = re.compile(r"\bireland\b|\birish\b|\brevenue\b|\bdublin\b|\bcork\b|\bgalway\b", re.I)
_UK = re.compile(
    r"\bUK\b|\bUnited\s+Kingdom\b|\bengland\b|\bwales\b|\bbritain\b|\bhmrc\b|\blondon\b"
    r"|\bmanchester\b"
)
_PENSION = re.compile(r"\bpensions?\b|\bprsa\b|\bavcs?\b|\bsuperannuation\b", re.I)
_RENT = re.compile(r"\brent(?:s|ing)?\b(?!al)", re.I)
_RENT_INCOME = re.compile(r"\brent(?:al)?\s+income\b|\btenants?\b|\blandlord\b|\blet\b", re.I)
_MONTHLY = re.compile(
    r"^\S*\s*(?:a|per|each|every|/)\s*month\b|^\S*\s*monthly\b|^\S*\s*pcm\b", re.I
)
_WEEKLY = re.compile(r"^\S*\s*(?:a|per|each|every|/)\s*week\b|^\S*\s*weekly\b", re.I)
_SOLD = re.compile(r"\b(?:sold|sell(?:s|ing)?|dispos(?:ed|e|ing)\s+of)\b", re.I)
# "that cost €8,000 in 2019", "they cost me €8,000": what the asset cost is a buying verb
_COST_VERB = r"\b(?:that|which|they|it|these|those)\s+(?:had\s+)?cost(?:\s+(?:me|us))?\b"
_BOUGHT = re.compile(rf"\b(?:bought|buy(?:s|ing)?|purchased?|acquired?)\b|{_COST_VERB}", re.I)
# Beside an amount: the disposal's costs of buying or selling (allowable expenses).
_FEES = re.compile(
    r"\bfees?\b|\bcommissions?\b|\bstamp\s+duty\b|\b(?:legal|selling|buying|dealing|"
    r"transaction|sale)\s+costs?\b|\bsolicitor|\bestate\s+agent|\bbrokerage\b",
    re.I,
)
# Beside an amount: capital losses of earlier years, not yet used.
_LOSSES_FORWARD = re.compile(
    r"\bloss(?:es)?\b[^.;]{0,40}\b(?:brought|carried|carry|bring)(?:ing)?\s+forward\b"
    r"|\b(?:unused|earlier|previous|prior|past)\s+(?:capital\s+)?loss(?:es)?\b"
    r"|\bloss(?:es)?\s+(?:from|of)\s+(?:last|previous|earlier|prior)\s+years?\b",
    re.I,
)
# "I sold a flat for £250,000 that I bought in 2012 for £180,000": the buying part of a clause.
_BOUGHT_PART = re.compile(
    r"\b(?:that|which|and|having)\s+(?:I|we)\s+(?:had\s+)?(?:bought|purchased|acquired)\b"
    r"|\b(?:that|which)\s+(?:had\s+)?cost\b",
    re.I,
)
_ASSET = re.compile(
    r"\b(?:sold|sell(?:s|ing)?|disposed\s+of|bought|buy(?:s|ing)?|purchased?|acquired?)\s+"
    r"(?:(?:all|some|half|part)\s+(?:of\s+)?)?(?:(?:my|our|the|a|an|these|those|this|that)\s+)?"
    r"(?P<asset>(?!for\b|in\b|on\b|at\b|them\b|it\b)[a-z][a-z-]*(?:\s+(?!for\b|in\b|on\b|at\b"
    r"|that\b|which\b)[a-z][a-z-]*)?)",
    re.I,
)
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
                "september", "october", "november", "december")  # fmt: skip
_DATE = re.compile(
    r"\b(?:(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+)?(?P<month>" + "|".join(_MONTH_NAMES) + r")"
    r"\s+(?P<year>(?:19|20)\d{2})\b|\b(?P<bare>(?:19|20)\d{2})\b(?!\s?[-/–]\s?\d{2}\b)",
    re.I,
)
_RANGE_AMOUNT = (
    r"(?:[€£]|\b(?:eur|gbp)\b)?\s?\d[\d,. ]*(?:\s?k\b)?(?:\s?(?:euros?|pounds?|gbp|eur)\b)?"
)
_RANGE = re.compile(rf"\bfrom\s+(?P<low>{_RANGE_AMOUNT})\s+to\s+(?P<high>{_RANGE_AMOUNT})", re.I)
_AGE = re.compile(
    r"\baged?\s+(\d{1,3})\b|\b(\d{1,3})\s*(?:years?|yrs?)\s*old\b|\bI(?:'m|\s+am)\s+(\d{2})\b"
    r"(?!\s*(?:[,.]\d|k\b|%|euro|pound))",
    re.I,
)


@dataclass(frozen=True)
class StatedDisposal:
    """A disposal as stated: its dates as precise as the words ("2019", "2019-06",
    "2025-03-12"), never more."""

    asset: str
    cost: Decimal
    proceeds: Decimal
    acquired: str | None = None
    disposed: str | None = None
    expenses: Decimal | None = None  # fees, commission, stamp duty: allowable expenses

    def data(self) -> dict[str, str]:
        out = {"asset": self.asset, "cost": str(self.cost), "proceeds": str(self.proceeds)}
        if self.expenses is not None:
            out["expenses"] = str(self.expenses)
        out.update({k: v for k, v in (("acquired", self.acquired), ("disposed", self.disposed))
                    if v is not None})  # fmt: skip
        return out


@dataclass(frozen=True)
class StatedFacts:
    """What one piece of text states; ``None`` where it states nothing."""

    paye_income: Decimal | None = None
    self_employed_income: Decimal | None = None
    income: Decimal | None = None  # an amount of no stated kind
    spouse_paye_income: Decimal | None = None  # a clause about "my wife/husband/partner"
    spouse_self_employed_income: Decimal | None = None
    status: str | None = None
    assessment: str | None = None  # "joint" or "separate_treatment", as stated
    tax_year: int | None = None
    jurisdiction: str | None = None
    age: int | None = None
    currency: str | None = None  # "EUR" or "GBP", from the amounts' signs or words
    pension_contributions: Decimal | None = None  # a year's
    rent_paid: Decimal | None = None  # a year's
    disposals: tuple[StatedDisposal, ...] | None = None
    capital_losses_brought_forward: Decimal | None = None
    bereaved_in: int | None = None  # the year the spouse died
    dependent_children: int | None = None
    single_person_child_carer: bool | None = None  # caring for a child alone
    tenancy_registered: bool | None = None
    marriage_allowance: bool | None = None
    # a what-if's new sale date for the stated disposals ("2026-05", "0000-05" when the month
    # came without a year: the sale's own year)
    disposed_moved: str | None = None

    def empty(self) -> bool:
        return all(getattr(self, f.name) is None for f in fields(self))

    def states_income(self) -> bool:
        incomes = (self.paye_income, self.self_employed_income, self.income)
        return any(x is not None for x in incomes)

    def over(self, earlier: StatedFacts) -> StatedFacts:
        """These facts laid over ``earlier`` ones: what is stated here wins. An amount of no
        stated kind replaces the earlier income it must mean: the only kind stated before (or
        the employment income when both were)."""
        merged = replace(
            earlier,
            **{f.name: v for f in fields(self) if (v := getattr(self, f.name)) is not None},
        )
        if self.disposed_moved and merged.disposals:
            moved = tuple(
                replace(d, disposed=moved_date(self.disposed_moved, d.disposed))
                for d in merged.disposals
            )
            jurisdiction = merged.jurisdiction or {"EUR": "IE", "GBP": "UK"}.get(
                merged.currency or ""
            )
            year = tax_year_of(moved[0].disposed or "", jurisdiction)
            merged = replace(merged, disposals=moved, disposed_moved=None,
                             tax_year=year if year is not None else merged.tax_year)  # fmt: skip
        if self.income is not None and not (self.paye_income or self.self_employed_income):
            if earlier.self_employed_income is not None and earlier.paye_income is None:
                return replace(merged, self_employed_income=self.income, income=None)
            if earlier.paye_income is not None:
                return replace(merged, paye_income=self.income, income=None)
        return merged

    def data(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            if isinstance(value, Decimal):
                value = str(value)
            elif f.name == "disposals":
                value = [d.data() for d in value]
            out[f.name] = value
        return out


@dataclass(frozen=True)
class WhatIfQuestion:
    """A message split at its what-if: the facts stated, and the change asked (if any)."""

    stated: StatedFacts
    change: StatedFacts | None  # None: the message asks no what-if


def maybe_scenario(text: str) -> bool:
    """The cheap check: could ``text`` state facts or ask a what-if? (one regex search)"""
    return _MAYBE.search(text) is not None


_INCOME_FIELDS = ("paye_income", "self_employed_income", "income", "spouse_paye_income",
                  "spouse_self_employed_income", "pension_contributions", "rent_paid")  # fmt: skip


def parse_what_if(text: str) -> WhatIfQuestion:
    """The facts ``text`` states before its what-if, and the change the what-if asks; a range
    ("from £48k to £52k") states its first amount and asks its second."""
    if ranged := _RANGE.search(text):
        # the range's own sentence decides what it is about; the rest states the other facts
        start = max(text.rfind(c, 0, ranged.start()) for c in ".;!?\n") + 1
        ends = [i for c in ".;!?\n" if (i := text.find(c, ranged.end())) >= 0]
        end = min(ends, default=len(text))
        sentence = text[start:end]
        at, until = ranged.start() - start, ranged.end() - start
        low = parse_facts(sentence[:at] + ranged["low"] + sentence[until:])
        high = parse_facts(sentence[:at] + ranged["high"] + sentence[until:])
        changed = {
            name: getattr(high, name)
            for name in _INCOME_FIELDS
            if getattr(high, name) != getattr(low, name)
        }
        if changed:
            rest = parse_facts(text[:start] + sentence[:at] + ranged["low"] + text[ranged.end() :])
            stated = replace(rest, **{name: getattr(low, name) for name in changed})
            return WhatIfQuestion(stated, StatedFacts(**changed))
    found = _WHAT_IF.search(text)
    if found is None:
        return WhatIfQuestion(parse_facts(text), None)
    before, after = text[: found.start()], text[found.start() :]
    change = parse_facts(after)
    # "what if I earned £60,000" keeps the stated jurisdiction (NI stays NI): a currency names
    # one only where nothing stated did.
    change = replace(change, jurisdiction=_jurisdiction(after, None))
    if change.disposals is None and (moved := _MOVED.search(after)):
        # the sale moved in time: its date and tax year follow from the sale it moves
        month = _MONTH_NAMES.index(moved["month"].lower()) + 1
        when = f"{moved['year'] or '0000'}-{month:02d}"
        if moved["day"]:
            when += f"-{int(moved['day']):02d}"
        change = replace(change, disposed_moved=when, tax_year=None)
    return WhatIfQuestion(parse_facts(before), change)


def parse_facts(text: str) -> StatedFacts:
    """The facts ``text`` states (see the module docstring for what is read)."""
    paye: Decimal | None = None
    self_employed: Decimal | None = None
    spouse: dict[str, Decimal] = {}
    unspecified: Decimal | None = None
    currency: str | None = None
    pension: Decimal | None = None
    rent: Decimal | None = None
    losses: Decimal | None = None
    fees = Decimal(0)
    clauses = _clauses(text)
    disposal, disposal_parts = _disposal(clauses)
    if disposal is not None:
        currency = currency or _amounts(disposal_parts[0])[0][1]
    for clause in clauses:
        for part in disposal_parts:
            clause = clause.replace(part, " ")  # the disposal's cost and proceeds: no income
        amounts = _amounts(clause)
        for index, (amount, sign, near) in enumerate(amounts):
            currency = currency or sign
            # the words between the previous amount and the next: "£200 a month into a pension"
            segment = _segment(clause, index)
            if losses is None and _losses_forward(clause, index):
                losses = amount  # "losses of €3,000 brought forward": never an income
                continue
            if disposal is not None and _FEES.search(near) and not _EARNS.search(near):
                fees += amount  # "I paid €500 in fees" on the sale
                continue
            if _PENSION.search(segment) and not _EARNS.search(near) and pension is None:
                pension = amount  # "I put €6,000 into my pension", "£400 a month into a PRSA"
                continue
            if _RENT.search(segment) and not _RENT_INCOME.search(clause) and rent is None:
                if not _EARNS.search(near) and not _SOLD.search(clause):
                    rent = amount  # "I pay €1,100 a month in rent"
                    continue
            if (_NOT_INCOME.search(near) and not _EARNS.search(near)) or _CHANGE.search(near):
                continue  # "£5,000 pension contribution", "a credit of €1,875", "a £2,500 rise"
            earned = _EARNS.search(near) or _PAYE.search(clause) or _SELF.search(clause)
            if _NOT_INCOME.search(segment) and not earned:
                continue
            if _SPOUSE.search(clause):  # the spouse's or partner's own income
                kind = "self_employed" if _SELF.search(clause) else "paye"
                spouse.setdefault(kind, amount)
            elif _SELF.search(clause) or _SELF_FIRST.search(clause):
                self_employed = amount if self_employed is None else self_employed
            elif _PAYE.search(clause):
                paye = amount if paye is None else paye
            elif unspecified is None:
                unspecified = amount
    if disposal is not None and fees:
        disposal = replace(disposal, expenses=(disposal.expenses or Decimal(0)) + fees)
    rest = text
    for part in disposal_parts:
        rest = rest.replace(part, " ")
    rest = _BEREAVED.sub(" ", rest)  # "widowed in 2022" states no tax year
    year = _tax_year(rest)
    if year is None and disposal is not None and disposal.disposed:
        # the only years stated are the disposal's: the tax year it falls in (the UK's from
        # 6 April)
        year = tax_year_of(disposal.disposed, _jurisdiction(text, currency))
    return StatedFacts(
        paye_income=paye,
        self_employed_income=self_employed,
        income=unspecified,
        spouse_paye_income=spouse.get("paye"),
        spouse_self_employed_income=spouse.get("self_employed"),
        status=_status(text),
        assessment=next((a for pattern, a in _ASSESSMENT if pattern.search(text)), None),
        tax_year=year,
        jurisdiction=_jurisdiction(text, currency),
        age=_age(text),
        currency=currency,
        pension_contributions=pension,
        rent_paid=rent,
        disposals=(disposal,) if disposal is not None else None,
        capital_losses_brought_forward=losses,
        **_household(text),
    )


def _household(text: str) -> dict[str, Any]:
    """The household facts the credits turn on, as stated (absent: not in the dict)."""
    out: dict[str, Any] = {}
    if bereaved := _BEREAVED.search(text):
        out["bereaved_in"] = int(bereaved.group(1))
    if _NO_CHILDREN.search(text):
        out["dependent_children"] = 0
    elif children := list(_CHILDREN.finditer(text)):
        out["dependent_children"] = sum(
            int(c["n"]) if c["n"].isdigit() else _COUNT_WORDS[c["n"].lower()] for c in children
        )
    if _ALONE.search(text):
        out["single_person_child_carer"] = True
    if _NOT_RTB.search(text) and _RENT.search(text):
        out["tenancy_registered"] = False
    elif _RTB.search(text):
        out["tenancy_registered"] = True
    if _MARRIAGE_ALLOWANCE.search(text):
        out["marriage_allowance"] = True
    return out


def moved_date(moved: str, current: str | None) -> str:
    """A what-if's sale date (``"0000-05"``: May of the sale's own year) as a stated date."""
    if moved.startswith("0000"):
        year = (current or "")[:4] or "0000"
        return year + moved[4:]
    return moved


def tax_year_of(stated: str, jurisdiction: str | None) -> int | None:
    """The tax year of a stated date ("2026-03", "2026-04-10", "2026"): Ireland's is the
    calendar year; the UK's starts on 6 April (a month alone is taken at its first day)."""
    parts = [int(p) for p in stated.split("-") if p]
    if not parts or parts[0] == 0:
        return None
    if jurisdiction in ("UK", "NI") and len(parts) >= 2:
        month, day = parts[1], parts[2] if len(parts) == 3 else 1
        return parts[0] if (month, day) >= (4, 6) else parts[0] - 1
    return parts[0]


def _segment(clause: str, index: int) -> str:
    """The text around the ``index``-th amount of ``clause``: from the end of the amount
    before it to the start of the amount after it."""
    spans = [m.span() for m in _AMOUNT.finditer(clause) if _is_amount(m)]
    start = spans[index - 1][1] if index > 0 else 0
    end = spans[index + 1][0] if index + 1 < len(spans) else len(clause)
    return clause[start:end]


_LOSS_BEFORE = re.compile(r"\bloss(?:es)?\b[^€£\d.;]{0,50}$", re.I)
_LOSS_AFTER = re.compile(r"^\s*(?:of|in)\s+(?:capital\s+)?loss(?:es)?\b", re.I)


def _losses_forward(clause: str, index: int) -> bool:
    """Is the ``index``-th amount of ``clause`` an amount of capital losses of earlier years:
    the losses named right before it ("losses of €3,000", "unused capital losses of €3,000") or
    right after it ("€3,000 of losses"), said to be brought forward or of earlier years?"""
    spans = [m.span() for m in _AMOUNT.finditer(clause) if _is_amount(m)]
    start, end = spans[index]
    before = clause[spans[index - 1][1] if index > 0 else 0 : start][-60:]
    after = clause[end : spans[index + 1][0] if index + 1 < len(spans) else len(clause)][:40]
    if not (_LOSS_BEFORE.search(before) or _LOSS_AFTER.search(after)):
        return False
    return bool(_LOSSES_FORWARD.search(f"{before} {after}"))


def _is_amount(match: re.Match[str]) -> bool:
    return bool(match.group("pre") or match.group("post") or match.group("k"))


def _disposal(clauses: list[str]) -> tuple[StatedDisposal | None, list[str]]:
    """One disposal from the clause that sold (proceeds) and the one that bought (cost), and
    the text they span (its years are the disposal's, not a tax year stated)."""
    sold: tuple[Decimal, str | None, str] | None = None
    bought: tuple[Decimal, str | None, str] | None = None
    asset: str | None = None
    expenses = Decimal(0)
    parts: list[str] = []
    for clause in clauses:
        pieces = [clause]
        if (split := _BOUGHT_PART.search(clause)) and _SOLD.search(clause[: split.start()]):
            pieces = [clause[: split.start()], clause[split.start() :]]
        for piece in pieces:
            verb = _SOLD.search(piece) or _BOUGHT.search(piece)
            if verb is None:
                continue
            before, piece = (
                piece,
                piece[verb.start() :],
            )  # "I earn €50,000 and sold …": from the verb
            amounts = _amounts(piece)
            if not amounts:
                continue
            kind = "sold" if _SOLD.match(piece) else "bought"
            found = _ASSET.search(piece)
            if found and asset is None:
                asset = found["asset"].lower()
            # "sold shares in May 2025", else "In May 2025 I sold …"
            when = _stated_date(piece) or _stated_date(before[: len(before) - len(piece)], True)
            entry = (amounts[0][0], when, piece)
            # "sold for €20,000, paying €500 in fees": the piece's other amounts of costs
            expenses += sum((a for a, _, near in amounts[1:] if _FEES.search(near)), Decimal(0))
            if kind == "sold" and sold is None:
                sold = entry
            elif kind == "bought" and bought is None:
                bought = entry
            parts.append(piece)
    if sold is None or bought is None:
        return None, []
    disposal = StatedDisposal(
        asset=asset or "asset", cost=bought[0], proceeds=sold[0], acquired=bought[1],
        disposed=sold[1], expenses=expenses or None,
    )  # fmt: skip
    return disposal, list(dict.fromkeys(parts))


def _stated_date(text: str, last: bool = False) -> str | None:
    """The (first, or ``last``) date ``text`` states, as precisely as it states it:
    "2025-03-12", "2019-06", "2010"."""
    dates = list(_DATE.finditer(text))
    if not dates:
        return None
    found = dates[-1] if last else dates[0]
    if found["bare"]:
        return found["bare"]
    month = _MONTH_NAMES.index(found["month"].lower()) + 1
    if found["day"]:
        return f"{found['year']}-{month:02d}-{int(found['day']):02d}"
    return f"{found['year']}-{month:02d}"


def _clauses(text: str) -> list[str]:
    """Clauses, so that "I earn €50,000 as an employee and my profits are €10,000" gives each
    amount its own kind. A comma before a number ("€50,000") never splits."""
    parts = _CLAUSE.split(text)
    return [p for p in parts if p and p.strip()]


def _amounts(clause: str) -> list[tuple[Decimal, str | None, str]]:
    """Each amount, its currency, and the words right around it (what the amount *is*)."""
    out: list[tuple[Decimal, str | None, str]] = []
    for match in _AMOUNT.finditer(clause):
        pre, post, k = match.group("pre"), match.group("post"), match.group("k")
        if not _is_amount(match):
            continue  # a bare number: a year, an age, a count — never an amount
        digits = match.group("num").replace(",", "").replace(" ", "")
        try:
            value = Decimal(digits)
        except InvalidOperation:  # pragma: no cover - the pattern admits digits only
            continue
        if k:
            value *= 1000
        following = clause[match.end() : match.end() + 16]
        if _MONTHLY.search(following):
            value *= 12  # "€1,100 a month": a year's
        elif _WEEKLY.search(following):
            value *= 52
        sign = (pre or post or "").lower()
        currency = (
            "EUR"
            if sign in ("€", "eur", "euro", "euros")
            else "GBP"
            if sign in ("£", "gbp", "pound", "pounds", "sterling", "stg")
            else None
        )
        before = clause[max(0, match.start() - _NEAR) : match.start()].split()[-3:]
        after = clause[match.end() : match.end() + _NEAR].split()[:2]
        near = " ".join([*before, "#", *after])
        out.append((value.quantize(Decimal("0.01")), currency, near))
    return out


def _status(text: str) -> str | None:
    if _DIED.search(text):
        return "widowed"  # "my husband died in 2021": not "married" for "my husband"
    for pattern, status in _STATUS:
        if pattern.search(text):
            return status
    return None


def _tax_year(text: str) -> int | None:
    if uk := _UK_YEAR.search(text):
        first, second = int(uk.group(1)), int(uk.group(2))
        if (first + 1) % 100 == second:
            return first
    if year := _YEAR.search(text):
        return int(year.group(1))
    return None


def _jurisdiction(text: str, currency: str | None) -> str | None:
    if _NI.search(text):
        return "NI"
    if _IE.search(text):
        return "IE"
    if _UK.search(text):
        return "UK"
    return {"EUR": "IE", "GBP": "UK"}.get(currency or "")


def _age(text: str) -> int | None:
    for match in _AGE.finditer(text):
        value = int(next(g for g in match.groups() if g))
        if 16 <= value <= 110:
            return value
    return None
