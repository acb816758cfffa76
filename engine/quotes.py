"""Quotes that answer (issue 23): the paragraphs and points of a provision that answer the
question, with the words that lead into them.

A provision's text is paragraphs ("1. …") and points ("(a) …", "(i) …"), one per line. The
evidence quoted for a provision used to be its first 1,500 characters, or the paragraphs the
retriever matched: Article 5 of the AI Act ("The following AI practices shall be prohibited:
(a) … (h)") was cut to point (a) when the question was about emotion recognition (point (f));
GDPR Article 8's evidence left out paragraph 1 (the age of 16).

:func:`answering_text` scores every paragraph and point by the question's words (the
retriever's tokens, rarer words in the provision counting more) and keeps the best ones, in
the provision's order, each point with its lead-in ("… shall be prohibited:"), within the
prompt's bound per hit. A question that matches no point of a list (What does Article 5
prohibit?) gets every point, each shortened, never the first alone.
:func:`with_answering_passages` applies it to a turn's evidence, so the prompt of a real model
and the offline extractive provider quote the same passages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.evidence import MAX_EVIDENCE_CHARS, Evidence, EvidenceHit
from engine.retrieval.tokenise import tokenise

__all__ = [
    "AMOUNT",
    "OPERATIVE",
    "OPERATIVE_WORDS",
    "amount_tokens",
    "answering_text",
    "operative_words",
    "with_answering_passages",
]

_PARAGRAPH = re.compile(r"^\d+[a-z]?\.\s")
_POINT = re.compile(r"^\((?:[a-z]{1,2}|[ivx]+|\d+)\)\s")
_REFERENCE = re.compile(r"\b(?:article|art\.?)\s*\d+[a-z]?(?:\s*\(\d+\))*", re.I)
_SHORT_POINT = 160  # characters of each point when a whole list is summarised
#: Operative words, strongest first: what a provision does (prohibits, obliges, permits).
OPERATIVE_WORDS = ("shall be prohibited", "are prohibited", "is prohibited", "prohibited",
                   "shall not", "must not", "may not", "shall be lawful only if",
                   "shall be lawful", "shall apply from", "must", "shall")  # fmt: skip
OPERATIVE = re.compile(r"\b(" + "|".join(OPERATIVE_WORDS) + r")\b", re.I)


#: A pseudo-token: a part that states an amount or a percentage ("20 000 000 EUR", "4 %"),
#: wanted by a question that asks for one ("the maximum fine in euro", "how much").
AMOUNT = "\u2316amount"
_STATES_AMOUNT = re.compile(r"\d[\d\s,.]*\s*(?:%|per ?cent\b|eur\b|euros?\b|gbp\b)|[€£]\s*\d", re.I)
_ASKS_AMOUNT = re.compile(
    r"\b(?:how much|how many|maximum|minimum|max|min|amount|limit|threshold|rate|fine|fines|"
    r"in euros?|in eur|in pounds|in sterling|percentage|per ?cent|cap|ceiling)\b",
    re.I,
)


def amount_tokens(text: str, *, question: bool = False) -> frozenset[str]:
    """:data:`AMOUNT` when ``text`` states an amount (or, for a question, asks for one)."""
    pattern = _ASKS_AMOUNT if question else _STATES_AMOUNT
    return frozenset({AMOUNT}) if pattern.search(text) else frozenset()


@dataclass(frozen=True)
class _Unit:
    text: str
    lead: int | None  # the index of the unit that leads into this point, if any
    is_point: bool


def _units(text: str) -> list[_Unit]:
    units: list[_Unit] = []
    lead: int | None = None
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if not line:
            continue
        if _POINT.match(line):
            units.append(_Unit(line, lead, True))
            continue
        if units and not _PARAGRAPH.match(line) and units[-1].is_point:
            # A line after points that starts no paragraph closes the list ("… unless …").
            lead = None
        units.append(_Unit(line, None, False))
        lead = len(units) - 1 if line.endswith(":") else None
    return units


@lru_cache(maxsize=1024)
def _parsed(text: str) -> tuple[tuple[_Unit, ...], tuple[frozenset[str], ...]]:
    """A provision's units and each unit's tokens: the same texts come back turn after turn
    (the evidence of every question about them), so they are split and tokenised once."""
    units = tuple(_units(text))
    return units, tuple(frozenset(tokenise(unit.text)) | amount_tokens(unit.text) for unit in units)


def _asked(question: str) -> frozenset[str]:
    # "Article 5" names the provision quoted, it says nothing about which part answers; a
    # question asking for an amount wants the parts that state one.
    return frozenset(tokenise(_REFERENCE.sub(" ", question))) | amount_tokens(
        question, question=True
    )


def _score(tokens: Sequence[frozenset[str]], wanted: frozenset[str]) -> list[float]:
    weight = {w: 1.0 / (1 + sum(w in t for t in tokens)) for w in wanted}
    return [sum(weight[w] for w in t & wanted) for t in tokens]


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return f"{cut} …"


def answering_text(text: str, question: str, limit: int = MAX_EVIDENCE_CHARS) -> str | None:
    """The parts of a provision's ``text`` that answer ``question``, within ``limit``
    characters, joined with " … "; ``None`` when no part shares a word with the question (the
    caller keeps what it had)."""
    return _answering(text, _asked(question), limit)


def _answering(text: str, wanted: frozenset[str], limit: int) -> str | None:
    units, tokens = _parsed(text)
    if not units:
        return None
    scores = _score(tokens, wanted)
    if max(scores) <= 0:
        return None
    points = [i for i, unit in enumerate(units) if unit.is_point]
    lists: set[int] = {lead for i in points if (lead := units[i].lead) is not None}
    chosen: set[int] = set()
    budget = limit
    best = max(scores)
    words = [t & wanted for t in tokens]
    asked = sorted(lead for lead in lists if scores[lead] == best)
    if asked and all(words[i] <= words[asked[0]] for i in points if units[i].lead == asked[0]):
        # The question is about the list as a whole: every point, shortened.
        first = asked[0]
        members = [i for i in points if units[i].lead == first]
        share = max(60, min(_SHORT_POINT, (limit - len(units[first].text)) // len(members)))
        parts = [units[first].text] + [_shorten(units[i].text, share) for i in members]
        return _shorten(" … ".join(parts), limit)
    for index in sorted(range(len(units)), key=lambda i: (-scores[i], i)):
        if scores[index] <= best / 2:
            break  # a part sharing less than half the best part's words answers something else
        needed = [index]
        lead = units[index].lead
        if lead is not None and lead not in chosen:
            needed.insert(0, lead)
        cost = sum(len(units[i].text) + 3 for i in needed if i not in chosen)
        if cost > budget:
            if chosen:
                continue
            # The best part alone is longer than the bound: it is still the answer, shortened.
            return _shorten(" … ".join(units[i].text for i in needed), limit)
        chosen.update(needed)
        budget -= cost
    return " … ".join(units[i].text for i in sorted(chosen))


def operative_words(text: str) -> str | None:
    """The strongest operative word of a quote ("prohibited", "must", "may not"), if any."""
    found = {m.group(1).lower() for m in OPERATIVE.finditer(text)}
    return next((word for word in OPERATIVE_WORDS if word in found), None)


def with_answering_passages(evidence: Evidence, question: str) -> Evidence:
    """``evidence`` with each provision's quoted text replaced by the parts that answer
    ``question`` (its heading kept); rule nodes and provisions no part of which matches are
    left as they were."""
    hits: list[EvidenceHit] = []
    wanted = _asked(question)
    for hit in evidence.hits:
        full = hit.node.properties.get("text")
        head, sep, _ = hit.text.partition(": ")
        better = _answering(str(full), wanted, MAX_EVIDENCE_CHARS) if full and sep else None
        if better is None:
            hits.append(hit)
        else:
            hits.append(EvidenceHit(node=hit.node, text=f"{head}: {better}", score=hit.score))
    return Evidence(hits=hits, verdict=evidence.verdict)
