"""Cross-references in provision text: ``Article 6(2)`` -> ``EU:REG_2024_1689:ART_6_2``.

Two steps. :func:`cited_ids` is the grammar: it reads one text and returns the ids it cites,
as printed (``Article 6(2)`` is paragraph 2 of Article 6 whether or not that paragraph exists).
:func:`find_references` runs it over every leaf provision of an act (paragraphs, articles
without paragraphs, recitals, annexes) and resolves each id against the acts it knows: a
paragraph that does not exist falls back to its article, an article, annex, recital or division
that does not exist falls back to the instrument. Ids in acts it does not know are returned
as cited; the ingester keeps only the edges whose target exists in the graph.

The grammar (each list may use ``,``, ``and``, ``or``, ``to``; ``to`` expands a range):

- ``Article 6``, ``Article 6(2)``, ``Article 6(1) and (2)``, ``Articles 9 and 10``,
  ``Articles 8 to 15``, ``Article 5(1), first subparagraph, point (h)`` (points and
  subparagraphs are not nodes: the paragraph is cited);
- ``paragraph 3`` (of the article the text is in), ``paragraph 1 of Article 6``;
- ``Annex III``, ``Annexes VI and VII``; ``Chapter III``, ``Chapter III, Section 2``;
  ``recital (12)``;
- what follows decides the act: nothing or ``of this Regulation`` -> this act;
  ``of Regulation (EU) 2016/679`` -> that act; ``of that Directive`` -> the directive cited
  last in the same text; anything else after ``of`` / ``to`` (``of the Charter``,
  ``of the TFEU``) and ``Article 16 TFEU`` -> not an EU act we can name, dropped;
- an act cited on its own (``Regulation (EU) 2016/679``) -> the instrument.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from corpus.citations import ActMention, find_act_citations
from corpus.ids import annex_id, article_id, division_id, paragraph_id, recital_id
from corpus.model import ParsedAct, Provision, ProvisionKind

__all__ = ["CrossReference", "cited_ids", "find_references", "resolve"]

_NUM = r"\d{1,3}[a-z]?"
_ROMAN = r"[IVXLC]{1,7}[a-z]?"
_SEP = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+and/or\s+|\s+and\s+|\s+or\s+|\s+to\s+)"
_HEAD = re.compile(
    r"\b(?:(?P<art>Articles?)\s+(?=\d)|(?P<par>[Pp]aragraphs?)\s+(?=\d)"
    r"|(?P<anx>Annex(?:es)?)\s+(?=[IVXLC])|(?P<cpt>Chapters?)\s+(?=[IVXLC\d])"
    r"|(?P<rct>recitals?)\s+(?=\(\d))"
)
_UNIT = r"(?!\s*(?:days?|months?|years?|weeks?|hours?|%|per\b|EUR\b|euro))"
_ARTICLE_ITEM = re.compile(rf"(?P<num>{_NUM})\b{_UNIT}(?P<paras>(?:\({_NUM}\))*)")
_PARA_ITEM = re.compile(rf"\((?P<num>{_NUM})\)")
_BARE_NUM = re.compile(rf"(?P<num>{_NUM})\b{_UNIT}")
_ROMAN_ITEM = re.compile(rf"(?P<num>{_ROMAN}|\d{{1,2}})\b")
_RECITAL_ITEM = re.compile(rf"\((?P<num>{_NUM})\)")
_SEPARATOR = re.compile(_SEP)
# The keyword may be repeated inside a list: "Article 5 and Article 6", "Chapter 4 or Chapter 5".
_REPEATED_WORD = {
    "art": re.compile(r"Articles?\s+"),
    "par": re.compile(r"[Pp]aragraphs?\s+"),
    "anx": re.compile(r"Annex(?:es)?\s+"),
    "cpt": re.compile(r"Chapters?\s+"),
    "rct": re.compile(r"recitals?\s+"),
}
_SECTION = re.compile(r",?\s*Section\s+(?P<num>\d{1,2})\b")
# Points and subparagraphs after a citation narrow it below the paragraph: skipped.
_NARROWER = re.compile(
    r"(?:,?\s*(?:first|second|third|fourth|fifth|sixth|seventh|last)\s+subparagraph"
    r"|,?\s*points?\s+\([a-z0-9]{1,4}\)(?:\s*\([ivx]+\))?"
    r"(?:\s*(?:,|and|or|to)\s*\([a-z0-9]{1,4}\)(?:\s*\([ivx]+\))?)*)+"
)
_OWNER = re.compile(r"\s*,?\s*(?P<word>of|to|in)\s+(?:the\s+)?")
_SELF = re.compile(r"this\s+(?:Regulation|Directive|Decision)\b")
_THAT = re.compile(r"th(?:at|ose)\s+(?P<kind>Regulation|Directive|Decision)s?\b")
_ACT_LEAD = re.compile(r"(?:(?:Council|Commission|Implementing|Delegated|Framework)\s+)*")
_THIS_ARTICLE = re.compile(r"this\s+Article\b")
_OF_ARTICLE = re.compile(rf"Article\s+(?P<num>{_NUM})\b")
_FOREIGN = re.compile(r"\s*(?:TFEU|TEU|ECHR|EEA|of\s+the\s+(?:Charter|Treaty|TFEU|TEU))\b")
_MAX_RANGE = 60


class CrossReference(NamedTuple):
    """``source_id`` cites ``target_id``."""

    source_id: str
    target_id: str


def cited_ids(text: str, instrument_id: str, article: str | None = None) -> list[str]:
    """Ids cited by ``text`` of act ``instrument_id`` (``article``: the article it is in)."""
    mentions = find_act_citations(text)
    consumed: set[int] = set()  # starts of act citations that named the owner of a list
    found: list[str] = []
    cursor = 0
    for head in _HEAD.finditer(text):
        if head.start() < cursor:
            continue  # inside what the previous citation consumed ("of Article 6")
        kind = head.lastgroup or ""
        items, end = _items(kind, text, head.end())
        if not items:
            continue
        if kind == "par":
            targets, end = _paragraph_targets(
                items, text, end, instrument_id, article, mentions, consumed
            )
        else:
            owner, end = _owner(kind, text, end, instrument_id, mentions, consumed)
            targets = _targets(kind, items, owner) if owner else []
        found.extend(targets)
        cursor = end
    for mention in mentions:
        if mention.start not in consumed:
            found.extend(act.instrument_id for act in mention.acts)
    return list(dict.fromkeys(found))


def _items(kind: str, text: str, pos: int) -> tuple[list[tuple[str, list[str]]], int]:
    """The list after a keyword: ``[(number, [paragraphs])]`` and where it ends."""
    item_re = {"art": _ARTICLE_ITEM, "par": _BARE_NUM, "rct": _RECITAL_ITEM}.get(kind, _ROMAN_ITEM)
    items: list[tuple[str, list[str]]] = []
    ranged = False
    while True:
        match = item_re.match(text, pos)
        if match is None:
            break
        paras = _PARA_ITEM.findall(match.groupdict().get("paras") or "")
        number = match["num"]
        if ranged and items:
            items.extend(_expand(items[-1][0], number))
        else:
            items.append((number, paras))
        pos = match.end()
        if kind == "cpt" and (section := _SECTION.match(text, pos)):
            items[-1] = (number, [section["num"]])
            pos = section.end()
        if narrower := _NARROWER.match(text, pos):
            pos = narrower.end()
        sep = _SEPARATOR.match(text, pos)
        if sep is None:
            break
        after = sep.end()
        ranged = "to" in sep.group().split()
        if kind == "art" and (para := _PARA_ITEM.match(text, after)) and items:
            # "Article 6(1) and (2)": a paragraph of the last article, not an article.
            last, last_paras = items[-1]
            new = _expand(last_paras[-1], para["num"]) if ranged and last_paras else []
            items[-1] = (last, [*last_paras, *([n for n, _ in new] or [para["num"]])])
            pos = para.end()
            if (sep := _SEPARATOR.match(text, pos)) is None:
                break
            after, ranged = sep.end(), "to" in sep.group().split()
        if word := _REPEATED_WORD[kind].match(text, after):
            after = word.end()
        if item_re.match(text, after) is None:
            break
        pos = after
    return items, pos


def _expand(low: str, high: str) -> list[tuple[str, list[str]]]:
    if low.isdigit() and high.isdigit() and 0 < int(high) - int(low) <= _MAX_RANGE:
        return [(str(n), []) for n in range(int(low) + 1, int(high) + 1)]
    return [(high, [])]


def _owner(
    kind: str,
    text: str,
    pos: int,
    instrument_id: str,
    mentions: list[ActMention],
    consumed: set[int],
) -> tuple[str | None, int]:
    """The act a list at ``pos`` belongs to (``None``: not an EU act) and where its name ends."""
    if _FOREIGN.match(text, pos):
        return None, pos
    owner = _OWNER.match(text, pos)
    if owner is None or owner["word"] == "in" or (owner["word"] == "to" and kind != "anx"):
        # No "of ...": this act. "to" names an act only after an annex ("Annex I to
        # Regulation ..."); "Article 6 to the extent that" is this act's Article 6.
        return instrument_id, pos
    after = owner.end()
    if match := _SELF.match(text, after):
        return instrument_id, match.end()
    if match := _THAT.match(text, after):
        kind = match["kind"].lower()
        earlier = [m for m in mentions if m.end <= pos and any(a.kind == kind for a in m.acts)]
        return (earlier[-1].acts[-1].instrument_id if earlier else None), match.end()
    lead = _ACT_LEAD.match(text, after)
    start = lead.end() if lead else after
    mention = next((m for m in mentions if m.start == start), None)
    if mention is not None:
        consumed.add(mention.start)
        return mention.acts[0].instrument_id, mention.end
    return None, pos  # "of the Charter", "to the TFEU", "of Annex VII": not an act we name


def _targets(kind: str, items: list[tuple[str, list[str]]], owner: str) -> list[str]:
    out: list[str] = []
    for number, subs in items:
        if kind == "art":
            art = article_id(owner, number)
            out.extend([paragraph_id(art, p) for p in subs] or [art])
        elif kind == "anx":
            out.append(annex_id(owner, number))
        elif kind == "cpt":
            path = [("chapter", number)] + [("section", s) for s in subs]
            out.append(division_id(owner, path))
        elif kind == "rct":
            out.append(recital_id(owner, number))
    return out


def _paragraph_targets(
    items: list[tuple[str, list[str]]],
    text: str,
    end: int,
    instrument_id: str,
    article: str | None,
    mentions: list[ActMention],
    consumed: set[int],
) -> tuple[list[str], int]:
    """``paragraph 3`` is in the article the text is in; ``paragraph 1 of Article 6`` is not."""
    owner = _OWNER.match(text, end)
    if owner is not None and owner["word"] == "of":
        if of_article := _OF_ARTICLE.match(text, owner.end()):
            act, end = _owner("art", text, of_article.end(), instrument_id, mentions, consumed)
            article = article_id(act, of_article["num"]) if act else None
        elif this_article := _THIS_ARTICLE.match(text, owner.end()):
            end = this_article.end()
        else:
            return [], end  # "paragraph 3 of Annex VII", "of that Article"
    if article is None:
        return [], end
    return [paragraph_id(article, number) for number, _ in items], end


def resolve(target: str, known: set[str]) -> str:
    """``target`` or the nearest enclosing id in ``known``; unchanged for unknown acts."""
    instrument = ":".join(target.split(":")[:2])
    if instrument not in known:
        return target
    candidates = [target]
    local = target.removeprefix(instrument + ":")
    if re.fullmatch(r"ART_[^_]+_[^_]+", local):
        candidates.append(target.rsplit("_", 1)[0])
    if "_SECTION_" in local:
        candidates.append(target.split("_SECTION_")[0])
    candidates.append(instrument)
    return next(c for c in candidates if c in known or c == instrument)


def find_references(act: ParsedAct, others: Iterable[ParsedAct] = ()) -> list[CrossReference]:
    """Every ``(source, target)`` citation in ``act``, resolved against ``act`` and ``others``."""
    known = {act.instrument.id, *(p.id for p in act.provisions)}
    for other in others:
        known.add(other.instrument.id)
        known.update(p.id for p in other.provisions)
    has_paragraphs = {p.parent_id for p in act.provisions if p.kind is ProvisionKind.PARAGRAPH}
    found: list[CrossReference] = []
    for provision in act.provisions:
        if not _is_leaf(provision, has_paragraphs):
            continue
        article = provision.id if provision.kind is ProvisionKind.ARTICLE else None
        if provision.kind is ProvisionKind.PARAGRAPH:
            article = provision.parent_id
        for cited in cited_ids(provision.text, act.instrument.id, article):
            target = resolve(cited, known)
            if target not in {provision.id, act.instrument.id}:
                found.append(CrossReference(provision.id, target))
    return list(dict.fromkeys(found))


def _is_leaf(provision: Provision, has_paragraphs: set[str]) -> bool:
    if provision.kind is ProvisionKind.ARTICLE:
        return provision.id not in has_paragraphs
    return provision.kind in {ProvisionKind.PARAGRAPH, ProvisionKind.RECITAL, ProvisionKind.ANNEX}
