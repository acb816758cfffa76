"""The kind of value a question asks for, and the rules that state it first (issue 23).

A rate question ("At what rate is CAT charged on a gift above the group threshold?") was
answered with the group thresholds: the search ranks by shared words, and the thresholds say
"gift" and "group threshold" as often as the rate does. A question about one band of a scale
("what rate applies to the part of the price above €1.5m?", "USC on income between €27,382 and
€70,044") was answered with the neighbouring band: every band of the scale shares the words.
So the evidence is ordered by what was asked:

- **the kind asked**: a question asking *at what rate* wants a rule whose value is a rate (in
  percent: a ``Rate``, or a relief such as the R&D tax credit's 30%); one asking *from what
  income, how much, up to what, what threshold/limit/band/allowance* wants a rule whose value is
  a sum of money (a ``Threshold``, or a relief such as the Employment Allowance's £10,500); a
  threshold question often says "rate" ("when does the 45% rate kick in?"), and "what share
  of the group threshold" asks neither. The rules of that kind come first, in the search's
  order; when the search found none among the rules it returned, the first of that kind a
  wider search finds (at most two) join in front — the rate rule is found, just ranked below
  the cut.
- **the amounts the question names**: among the rules of the kind asked, those that state the
  question's amounts ("€1.5m" is "€1.5 million", "€27,382" is "€27,382.01") first, a rule
  saying "above X" when the question says "above X" before one that says X as its ceiling.

A question that asks for neither kind is left in the search's order.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from engine.evidence import Evidence, EvidenceHit, node_title

__all__ = ["Kind", "amounts", "asked_kind", "kind_first", "party_first", "value_kind"]

Kind = Literal["Rate", "Threshold"]

#: The nouns that name a threshold ("rate" before one of them is part of its name: "the higher
#: rate threshold"), and the phrases that ask where a band starts or how much is free.
_THRESHOLD_NOUN = (
    r"thresholds?|limits?|ceilings?|bands?|cut[- ]?off(?: point)?|allowance|amount|exemption"
)
#: A question asking where something starts: "at what income", "from what profit", "how much",
#: "when does the 45% rate kick in?".
_STARTS = re.compile(
    r"\b(?:at|from|above|over|below|under|up to) (?:what|which|how much) (?:taxable )?"
    r"(?:income|profits?|earnings|salary|pay|turnover|level|point|price|sum|value|amount)\b|"
    r"\bhow much\b|\bup to (?:what|which|how)\b|\bkicks? in\b|"
    r"\b(?:start|starts|begin|begins)\b",
    re.I,
)
_THRESHOLD = re.compile(rf"\b(?:{_THRESHOLD_NOUN})\b|\btax[- ]free\b", re.I)
_RATE = re.compile(r"\b(?:rates?|percent(?:age)?)\b|%", re.I)
#: "what", "which", "at what", "what's": the question's own word, after which the first kind
#: noun says what is asked ("At what rate is CAT charged on a gift above the group threshold?"
#: asks a rate; "What is the higher rate threshold?" a threshold).
_ASKS = re.compile(r"\b(?:what|which)\b", re.I)
_KIND_NOUN = re.compile(
    rf"\b(?P<rate>rates?|percent(?:age)?)\b(?!\s+(?:{_THRESHOLD_NOUN})\b)|(?P<sign>%)(?!\s*(?:rate\s+)?(?:{_THRESHOLD_NOUN})\b)|"
    rf"\b(?P<threshold>{_THRESHOLD_NOUN})\b",
    re.I,
)


#: A sum of money as a question or a rule writes it: "€1.5m", "€1.5 million", "£125,140",
#: "27,382.01", "€2m", "€40k"; a bare year ("2025") or a percentage is none.
_AMOUNT = re.compile(
    r"(?P<cur>[€£]\s?)?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<scale>million|m|bn|billion|k|thousand)\b)?"
    r"(?:\s?(?P<code>eur|gbp|euro|euros)\b)?(?!\s?%|\s?per ?cent)",
    re.I,
)
_SCALE = {"m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9, "k": 1e3, "thousand": 1e3}
_ABOVE = re.compile(r"\b(?:above|over|more than|exceeding|in excess of|beyond)\s*$", re.I)


def asked_kind(question: str) -> Kind | None:
    """``Rate`` or ``Threshold``: what the question asks for, else ``None``. The first kind noun
    after the question's own word ("what", "which") decides ("At what rate ... above the group
    threshold?": a rate); without one, a threshold's words or a band's start ("when does the
    45% rate kick in?") ask a threshold, and a rate's words a rate."""
    if _STARTS.search(question):
        return "Threshold"
    if (ask := _ASKS.search(question)) is not None:
        noun = _KIND_NOUN.search(question, ask.end())
        if noun is not None:
            return "Threshold" if noun["threshold"] else "Rate"
    if _THRESHOLD.search(question):
        return "Threshold"
    if _RATE.search(question):
        return "Rate"
    return None


def amounts(text: str) -> list[tuple[float, bool]]:
    """The sums of money ``text`` names, each with whether it follows "above/over/more than"
    ("the part above €1.5m": ``(1500000.0, True)``); a number is a sum when it has a currency
    sign or code, a scale ("m", "million", "k") or thousands separators."""
    found = []
    for match in _AMOUNT.finditer(text):
        cur, num, scale, code = match["cur"], match["num"], match["scale"], match["code"]
        if not (cur or scale or code or "," in num):
            continue
        value = float(num.replace(",", "")) * _SCALE.get((scale or "").lower(), 1.0)
        found.append((value, _ABOVE.search(text[: match.start()]) is not None))
    return found


def _same(a: float, b: float) -> bool:
    # "€27,382" and "€27,382.01" are one band edge; "€1.5m" and "€1,500,000" one sum.
    return abs(a - b) <= max(1.0, 1e-9 * max(a, b))


def _amount_score(asked: list[tuple[float, bool]], text: str) -> int:
    stated = amounts(text)
    score = 0
    for value, above in asked:
        said = [s_above for s_value, s_above in stated if _same(value, s_value)]
        if said:
            score += 2 if above and any(said) else 1
    return score


_CURRENCIES = frozenset({"EUR", "GBP"})
#: "Above what share of the group threshold …": a proportion, which a rule may state in its
#: text (an obligation's 80%) rather than as a rate's value: left in the search's order.
_SHARE = re.compile(r"\b(?:what|which) (?:share|proportion|fraction|percentage|part)\b", re.I)


def value_kind(hit: EvidenceHit) -> Kind | None:
    """What a rule states as its value: a ``Rate`` (in percent) or a ``Threshold`` (a sum of
    money) whatever its label ("Research and development tax credit" is a relief of 30 percent,
    the "Employment Allowance" a relief of 10,500 GBP); by its label when it has no unit."""
    unit = str(hit.node.properties.get("unit") or "")
    if unit == "percent":
        return "Rate"
    if unit.upper() in _CURRENCIES:
        return "Threshold"
    if hit.node.label in ("Rate", "Threshold") and not unit:
        return "Rate" if hit.node.label == "Rate" else "Threshold"
    return None


def kind_first(
    evidence: Evidence,
    question: str,
    context: str = "",
    wider: Callable[[], Evidence] | None = None,
    *,
    added: int = 2,
) -> Evidence:
    """``evidence`` with the rules of the kind ``question`` asks for first (those stating its
    amounts before the others), see the module docstring. ``context`` is what the search ran
    on (a follow-up with the question before it): "same for 2024/25?" asks the kind and the
    amounts the question before asked. ``wider()`` is a search with more hits, asked only when
    the evidence holds no rule of that kind."""
    if _SHARE.search(question):
        return evidence
    kind = asked_kind(question) or asked_kind(context)
    if kind is None or not evidence.hits:
        return evidence
    hits = list(evidence.hits)
    if not any(value_kind(hit) == kind for hit in hits) and wider is not None:
        known = {hit.node.id for hit in hits}
        extra = [h for h in wider().hits if value_kind(h) == kind and h.node.id not in known]
        hits += extra[:added]
    ofkind = [hit for hit in hits if value_kind(hit) == kind]
    if not ofkind:
        return evidence
    asked = amounts(question) or amounts(context)

    def score(hit: EvidenceHit) -> int:
        return _amount_score(asked, hit.text) if asked else 0

    order = {id(hit): i for i, hit in enumerate(ofkind)}
    ofkind.sort(key=lambda hit: (-score(hit), order[id(hit)]))
    rest = [hit for hit in hits if value_kind(hit) != kind]
    return Evidence(hits=[*ofkind, *rest], verdict=evidence.verdict)


#: Who pays a contribution: "the employee PRSI rate" asks the employee's share, not the
#: employer's (which shares every other word of the question).
_PARTIES = {
    "employee": re.compile(r"\bemployees?(?:'s?|’s?)?\b", re.I),
    "employer": re.compile(r"\bemployers?(?:'s?|’s?)?\b", re.I),
}


def _parties(text: str) -> set[str]:
    return {party for party, said in _PARTIES.items() if said.search(text)}


def party_first(evidence: Evidence, question: str) -> Evidence:
    """``evidence`` with the rules titled with the party ``question`` names (employee or
    employer, one of them) first, the rest after in the search's order; a rate or threshold
    titled with the other party only is left out when one of the party asked is found (the
    employer's rate is no answer to "the employee rate"). A question naming both or neither is
    left as found."""
    asked = _parties(question)
    if len(asked) != 1 or not evidence.hits:
        return evidence
    (party,) = asked

    def group(hit: EvidenceHit) -> int:
        said = _parties(f"{node_title(hit.node)} {hit.node.id.replace('_', ' ')}")
        if party in said:
            return 0
        return 2 if said else 1

    hits = sorted(evidence.hits, key=group)  # stable: the search's order within a group
    if any(group(hit) == 0 for hit in hits):
        hits = [h for h in hits if not (group(h) == 2 and value_kind(h) is not None)]
    return Evidence(hits=hits, verdict=evidence.verdict)
