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
    "ASPECT_WEIGHT",
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


#: How much more a follow-up's own words count than the earlier question's it is searched with.
ASPECT_WEIGHT = 3.0


def _score(
    tokens: Sequence[frozenset[str]], wanted: frozenset[str], aspect: frozenset[str] = frozenset()
) -> list[float]:
    weight = {
        w: (ASPECT_WEIGHT if w in aspect else 1.0) / (1 + sum(w in t for t in tokens))
        for w in wanted
    }
    return [sum(weight[w] for w in t & wanted) for t in tokens]


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return f"{cut} …"


def answering_text(
    text: str,
    question: str,
    limit: int = MAX_EVIDENCE_CHARS,
    aspect: frozenset[str] = frozenset(),
) -> str | None:
    """The parts of a provision's ``text`` that answer ``question``, within ``limit``
    characters, joined with " … "; ``None`` when no part shares a word with the question (the
    caller keeps what it had). ``aspect``: see :func:`with_answering_passages`."""
    return _answering(text, _asked(question), limit, aspect)


def _answering(
    text: str, wanted: frozenset[str], limit: int, aspect: frozenset[str] = frozenset()
) -> str | None:
    units, tokens = _parsed(text)
    if not units:
        return None
    scores = _score(tokens, wanted, aspect)
    if aspect and any(t & aspect for t in tokens):
        # A follow-up asks its own aspect of the earlier subject: a part that says none of its
        # words (the earlier question's paragraph again) is not what it asks, unless it leads
        # into points that do.
        says = {i for i, t in enumerate(tokens) if t & aspect}
        leads = {lead for i in says if (lead := units[i].lead) is not None}
        scores = [score if i in says or i in leads else 0.0 for i, score in enumerate(scores)]
    if max(scores) <= 0:
        return None
    points = [i for i, unit in enumerate(units) if unit.is_point]
    lists: set[int] = {lead for i in points if (lead := units[i].lead) is not None}
    chosen: set[int] = set()
    budget = limit
    best = max(scores)
    words = [t & wanted for t in tokens]
    # The lists the question is about as a whole (no point says more of its words than the
    # lead-in): every point, shortened. Several lists scoring alike are each answered — the
    # tiers of a fine ("4. … up to 10 000 000 EUR …:", "5. … up to 20 000 000 EUR …:") say
    # the same words, and the first alone is half the answer.
    whole = [
        lead
        for lead in sorted(lead for lead in lists if scores[lead] == best)
        if all(words[i] <= words[lead] for i in points if units[i].lead == lead)
    ]
    if whole:
        members = {lead: [i for i in points if units[i].lead == lead] for lead in whole}
        heads = sum(len(units[lead].text) for lead in whole)
        count = sum(len(m) for m in members.values())
        share = max(60, min(_SHORT_POINT, (limit - heads) // count))
        parts = [
            text
            for lead in whole
            for text in (units[lead].text, *(_shorten(units[i].text, share) for i in members[lead]))
        ]
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


def with_answering_passages(
    evidence: Evidence, question: str, aspect: frozenset[str] = frozenset()
) -> Evidence:
    """``evidence`` with each provision's quoted text replaced by the parts that answer
    ``question`` (its heading kept); rule nodes and provisions no part of which matches are
    left as they were. ``aspect``: a follow-up's own words (the retriever's tokens the earlier
    question it is searched with did not say), which count :data:`ASPECT_WEIGHT` times: "And
    for breaching the other obligations?" after the AI Act's fine for prohibited practices
    wants paragraph 4 of Article 99, not paragraph 3 again."""
    hits: list[EvidenceHit] = []
    wanted = _asked(question)
    for hit in evidence.hits:
        full = hit.node.properties.get("text")
        head, sep, _ = hit.text.partition(": ")
        better = _answering(str(full), wanted, MAX_EVIDENCE_CHARS, aspect) if full and sep else None
        if better is None:
            hits.append(hit)
        else:
            hits.append(EvidenceHit(node=hit.node, text=f"{head}: {better}", score=hit.score))
    return Evidence(hits=hits, verdict=evidence.verdict)
