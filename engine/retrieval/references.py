"""Explicit references in a question: "Article 17 GDPR", "Art. 5(1)(c) of the AI Act", "Annex III".

Two steps, both pure: :func:`find_provision_refs` reads the provisions a question names, and
:class:`~engine.retrieval.acts.ActCatalogue` (``acts.py``) tells which act each one belongs to.
A reference is tied to the act named right after it ("Article 6 of the GDPR", "Art 35 gdpr"),
else right before it ("GDPR Article 17", "the AI Act's Article 9"), else to the only act the
question names (only connecting words may stand between a reference and its act); with no
act in sight it stays open (``instrument_id`` ``None``) and the retriever resolves it in every
act that has such a provision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from engine.retrieval.acts import ActMention

__all__ = [
    "ProvisionRef",
    "find_provision_refs",
    "roman",
    "tie_to_acts",
]

_ROMAN: Final = ((100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"),
                 (4, "IV"), (1, "I"))  # fmt: skip
_NUMBER: Final = r"\d{1,3}[a-z]?"
_SUBDIVISION: Final = r"(?:\s?\((?:\d{1,3}[a-z]?|[a-z]{1,4})\))*"
_LIST_SEPARATOR: Final = r"\s*(?:,|and|or|to|-|–)\s*"
_ARTICLES: Final = re.compile(
    rf"\b(?:articles?|arts?\.?)\s*(?P<list>{_NUMBER}{_SUBDIVISION}"
    rf"(?:{_LIST_SEPARATOR}{_NUMBER}{_SUBDIVISION})*)",
    re.IGNORECASE,
)
_PARAGRAPH_OF: Final = re.compile(
    rf"\b(?:paragraph|para\.?)\s*(?P<paragraph>\d{{1,3}}[a-z]?)\s+of\s+"
    rf"(?:articles?|arts?\.?)\s*(?P<article>{_NUMBER})\b",
    re.IGNORECASE,
)
_ITEM: Final = re.compile(rf"(?P<number>{_NUMBER})(?P<sub>{_SUBDIVISION})", re.IGNORECASE)
_RECITALS: Final = re.compile(
    r"\brecitals?\s*(?P<list>\(?\d{1,3}\)?(?:" + _LIST_SEPARATOR + r"\(?\d{1,3}\)?)*)",
    re.IGNORECASE,
)
_ANNEXES: Final = re.compile(
    r"\bannex(?:es)?\s+(?P<list>(?:[IVXLC]+|\d{1,2})\b(?:"
    + _LIST_SEPARATOR
    + r"(?:[IVXLC]+|\d{1,2})\b)*)",
    re.IGNORECASE,
)
_CHAPTER: Final = re.compile(r"\bchapter\s+(?P<number>[IVXLC]+|\d{1,2})\b", re.IGNORECASE)
# What may stand between a reference and the act that qualifies it: "Article 6 of the GDPR",
# "Art 35 gdpr", "Article 9, AI Act"; and before it: "GDPR Article 17", "the AI Act's Article 9".
_AFTER: Final = re.compile(r"^[\s,]*(?:(?:of|in|under|from)\s+)?(?:the\s+)?$", re.IGNORECASE)
_BEFORE: Final = re.compile(r"^(?:['’]s)?[\s,:]*$")


@dataclass(frozen=True, slots=True)
class ProvisionRef:
    """One provision named in a question; ``paragraph`` only for "Article 5(1)" style refs."""

    kind: str  # "article" | "recital" | "annex" | "chapter"
    number: str  # "5", "5a", "12", "III"
    paragraph: str | None
    start: int
    end: int
    instrument_id: str | None = None

    def with_instrument(self, instrument_id: str | None) -> ProvisionRef:
        return ProvisionRef(
            self.kind, self.number, self.paragraph, self.start, self.end, instrument_id
        )


def roman(value: str) -> str:
    """Annex and chapter numbers as the acts print them: ``3`` -> ``III``; ``iii`` -> ``III``."""
    if not value.isdigit():
        return value.upper()
    number, digits = int(value), []
    for amount, numeral in _ROMAN:
        while number >= amount:
            digits.append(numeral)
            number -= amount
    return "".join(digits)


def _article_refs(question: str) -> list[ProvisionRef]:
    refs: list[ProvisionRef] = []
    for match in _PARAGRAPH_OF.finditer(question):
        refs.append(
            ProvisionRef(
                "article",
                match["article"].lower(),
                match["paragraph"].lower(),
                match.start(),
                match.end(),
            )
        )
    covered = [(ref.start, ref.end) for ref in refs]
    for match in _ARTICLES.finditer(question):
        if any(start <= match.start() < end for start, end in covered):
            continue  # the "Article 6" of "paragraph 2 of Article 6"
        text, offset = match["list"], match.start("list")
        items = list(_ITEM.finditer(text))
        previous: int | None = None
        for position, item in enumerate(items):
            number = item["number"].lower()
            between = text[items[position - 1].end() : item.start()] if position else ""
            if previous is not None and re.search(r"to|-|–", between) and number.isdigit():
                # A range: "Articles 15 to 17" names 16 too.
                for missing in range(previous + 1, min(int(number), previous + 20)):
                    refs.append(
                        ProvisionRef(
                            "article", str(missing), None, match.start(), offset + item.end()
                        )
                    )
            paragraph = re.match(r"\s?\((\d{1,3}[a-z]?)\)", item["sub"])
            refs.append(
                ProvisionRef(
                    "article",
                    number,
                    paragraph.group(1) if paragraph else None,
                    match.start() if position == 0 else offset + item.start(),
                    offset + item.end(),
                )
            )
            previous = int(number) if number.isdigit() else None
    return refs


def find_provision_refs(question: str) -> list[ProvisionRef]:
    """Every article, recital, annex and chapter the question names, in order of appearance."""
    refs = _article_refs(question)
    for match in _RECITALS.finditer(question):
        offset = match.start("list")
        for item in re.finditer(r"\d{1,3}", match["list"]):
            refs.append(
                ProvisionRef("recital", item.group(), None, match.start(), offset + item.end())
            )
    for match in _ANNEXES.finditer(question):
        offset = match.start("list")
        for item in re.finditer(r"[IVXLC]+|\d{1,2}", match["list"], re.IGNORECASE):
            refs.append(
                ProvisionRef("annex", roman(item.group()), None, match.start(), offset + item.end())
            )
    for match in _CHAPTER.finditer(question):
        refs.append(
            ProvisionRef("chapter", roman(match["number"]), None, match.start(), match.end())
        )
    refs.sort(key=lambda ref: (ref.start, ref.end))
    unique: dict[tuple[str, str, str | None], ProvisionRef] = {}
    for ref in refs:
        unique.setdefault((ref.kind, ref.number, ref.paragraph), ref)
    return list(unique.values())


def tie_to_acts(refs: list[ProvisionRef], acts: list[ActMention], text: str) -> list[ProvisionRef]:
    """Each reference with the act it belongs to (see the module docstring), or ``None``."""
    known = [act for act in acts if act.instrument_id is not None]
    only = {act.instrument_id for act in known}
    tied = []
    for ref in refs:
        after = [a for a in known if _AFTER.match(text[ref.end : a.start]) and a.start >= ref.end]
        before = [a for a in known if _BEFORE.match(text[a.end : ref.start]) and a.end <= ref.start]
        if after:
            act: str | None = min(after, key=lambda a: a.start).instrument_id
        elif before:
            act = max(before, key=lambda a: a.end).instrument_id
        elif len(only) == 1:
            act = next(iter(only))
        else:
            act = None
        tied.append(ref.with_instrument(act))
    return tied
