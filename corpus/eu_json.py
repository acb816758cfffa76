"""Structured JSON of an EU act (the 49-act collection of ``seeds/legal/json/``) ->
:class:`ParsedAct`.

The fourth input format, into the same provision model as the Official Journal markup. One
object per act: ``celex_id``, ``full_name``, ``effective_date``, ``eur_lex_url``, ``articles``
(``number``, ``title``, ``text``, ``chapter``), ``recitals`` (``recital_number``, ``text``) and
``definitions`` (``term``, ``definition``, ``article``). It is a third party's conversion of the
EUR-Lex HTML to text (``seeds/legal/README.md``), so this parser undoes its habits:

- **paragraphs** are numbered inline ("1.   Financial entities shall ..."): a block that opens
  with the next paragraph number starts paragraph ``ART_19_2``; a number that does not follow
  the last one (a numbered list inside an amending article) stays text;
- **points** are a marker block followed by its text block (``"(a)"``, ``"the data ..."``): they
  are glued into one line, ``(a) the data ...``, as every parser writes them;
- an article without a ``title`` whose first block is a short line without a full stop (the
  conversion put the heading into the text) gets that line as its heading;
- consolidated versions carry EUR-Lex's amendment markers (``▼M2``, ``►M1``, ``◄``): dropped;
- the last recital is sometimes repeated: the first copy is kept;
- the last article carries the signature block and the act's footnotes ("Done at Strasbourg,
  ...", the signatories' names, "(1) OJ C 152 ..."), which the Official Journal parsers leave out
  as not provisions: the text ends before "Done at" (and before an "ANNEX" heading: the
  collection has no annexes, yet the EECC's Article 8 ends with its correlation tables);
- ``chapter`` (a roman numeral) becomes the article's ``CHAPTER_*`` division; the JSON has no
  chapter headings;
- each definition becomes a :attr:`ProvisionKind.DEFINITION` of the article that defines it
  (``...:ART_3_DEF_LEGACY_ICT_SYSTEM``).

Ids: a consolidated version (CELEX ``02014R0910-20241018``) is the act it consolidates
(``EU:REG_2014_910``) and keeps its version date (``valid_from`` 2024-10-18); UN ECE regulations
published in the Official Journal (CELEX ``42021X0387``, "UN Regulation No 155") are
``EU:UNECE_R155``. Deep links: EUR-Lex's HTML carries ``art_N`` / ``rct_N`` anchors in the
markup it has served since 2023 (the AI Act's has them); older acts link to the act.
"""

from __future__ import annotations

import json
import re
from typing import Any

from corpus.assembly import ActBuilder
from corpus.ids import article_id, eli_uri, eurlex_url, id_part, instrument_id
from corpus.instrument import KNOWN_SHORT_NAMES
from corpus.model import (
    Instrument,
    InstrumentKind,
    ParsedAct,
    Provision,
    ProvisionKind,
    SourceFormat,
)
from corpus.text import MARKER, NUMBERED_PARAGRAPH, clean
from errors import InvalidInput

__all__ = ["ANCHORED_FROM_YEAR", "SHORT_NAMES", "looks_like_eu_json", "parse_eu_json"]

ANCHORED_FROM_YEAR = 2023
#: Names in common use, by CELEX, for acts whose JSON ``full_name`` is not what people say.
SHORT_NAMES: dict[str, str] = {
    **KNOWN_SHORT_NAMES,
    "32022R2554": "DORA",
    "32022L2555": "NIS2",
    "32022R2065": "DSA",
    "32022R1925": "DMA",
    "32023R2854": "Data Act",
    "32022R0868": "DGA",
    "32024R2847": "CRA",
    "32023R1114": "MiCA",
    "32014L0065": "MiFID II",
    "32014R0600": "MiFIR",
    "32015L2366": "PSD2",
    "32011L0061": "AIFMD",
    "32019R2088": "SFDR",
    "32022L2464": "CSRD",
    "32024L1760": "CSDDD",
    "32023R0956": "CBAM",
    "32023R1115": "EUDR",
    "32017R0745": "MDR",
    "32017R0746": "IVDR",
    "32025R0327": "EHDS",
    "32023R0988": "GPSR",
    "32014R0910": "eIDAS",
    "32002L0058": "ePrivacy Directive",
    "32018L1972": "EECC",
    "32016L0680": "LED",
    "32022L2557": "CER Directive",
    "32024R1252": "CRMA",
}
_KINDS = {
    "R": InstrumentKind.REGULATION,
    "L": InstrumentKind.DIRECTIVE,
    "D": InstrumentKind.DECISION,
}
_CELEX = re.compile(
    r"^(?P<sector>[034])(?P<year>\d{4})(?P<letter>[RLDX])(?P<number>\d{4})"
    r"(?:-(?P<version>\d{8}))?$"
)
_UN_NUMBER = re.compile(r"\bUN(?:/ECE)?\s+Regulation\s+No\.?\s*(?P<number>\d+)", re.IGNORECASE)
_AMENDMENT_MARK = re.compile(r"[▼►◄]\s*[A-Z]?\d*")
_BLOCKS = re.compile(r"\n\s*\n")
_SIGNATURES = re.compile(r"^(?:Done at [A-Z][a-z]+,|ANNEX(?: [IVXLC]+)?$)")


def looks_like_eu_json(head: bytes) -> bool:
    """Whether the first bytes of a file are this format (an object with a ``celex_id``)."""
    return head.lstrip().startswith(b"{") and b'"celex_id"' in head


def parse_eu_json(data: bytes) -> ParsedAct:
    """Parse one act of the JSON collection (see the module docstring)."""
    try:
        raw = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"not JSON: {exc}") from exc
    if not isinstance(raw, dict) or "celex_id" not in raw or "articles" not in raw:
        raise InvalidInput("an EU act in JSON needs celex_id and articles")
    instrument = _instrument(raw)
    anchored = instrument.year >= ANCHORED_FROM_YEAR and instrument.kind is not (
        InstrumentKind.UN_REGULATION
    )
    builder = ActBuilder(instrument, SourceFormat.EU_JSON)
    seen: set[str] = set()
    for recital in raw.get("recitals") or []:
        number = str(recital.get("recital_number", "")).strip()
        if not number or number in seen:
            continue  # the conversion repeats the last recital
        seen.add(number)
        builder.recital(
            number, _lines(str(recital.get("text", ""))), f"rct_{number}" if anchored else None
        )
    articles = [a for a in raw["articles"] if str(a.get("number", "")).strip()]
    chapters = _chapters(articles)
    current: str | None = None
    for article, chapter in zip(articles, chapters, strict=True):
        if chapter is not None and chapter != current:
            current = chapter
            builder.division(ProvisionKind.CHAPTER, chapter)
        _article(builder, str(article["number"]).strip(), article, anchored)
    builder.close()
    act = builder.build()
    definitions = _definitions(act, raw.get("definitions") or [])
    # A new model, not model_copy: that would carry the cached ``by_id`` of the first one.
    return ParsedAct(
        instrument=act.instrument,
        provisions=act.provisions + definitions,
        source_format=act.source_format,
    )


def _chapters(articles: list[dict[str, Any]]) -> list[str | None]:
    """Each article's chapter. The conversion sometimes stamps one article with a stray chapter
    (NIS2 Article 17 says "IX" between two of chapter III): a chapter opens only where it is
    new and the next article agrees with it (or it is the last article)."""
    printed = [str(a.get("chapter") or "").strip() or None for a in articles]
    out: list[str | None] = []
    current: str | None = None
    opened: set[str] = set()
    for index, chapter in enumerate(printed):
        following = printed[index + 1] if index + 1 < len(printed) else chapter
        if chapter and chapter != current and chapter not in opened and following == chapter:
            current = chapter
            opened.add(chapter)
        out.append(current)
    return out


def _instrument(raw: dict[str, Any]) -> Instrument:
    celex_id = str(raw["celex_id"]).strip()
    match = _CELEX.match(celex_id)
    if match is None:
        raise InvalidInput(f"unknown CELEX number {celex_id!r}")
    full_name = clean(str(raw.get("full_name") or ""))
    year, number = int(match["year"]), int(match["number"])
    version = match["version"]
    valid_from = f"{version[:4]}-{version[4:6]}-{version[6:]}" if version else None
    if match["letter"] == "X":
        un = _UN_NUMBER.search(full_name)
        if un is None:
            raise InvalidInput(f"{celex_id}: only UN regulations are read from sector 4")
        kind, number = InstrumentKind.UN_REGULATION, int(un["number"])
        celex = celex_id
        citation = f"UN Regulation No {number}"
        eli = eurlex_url(celex)
    else:
        kind = _KINDS[match["letter"]]
        celex = f"3{year}{match['letter']}{int(match['number']):04d}"
        citation = _citation(kind, year, number)
        eli = eli_uri(kind, year, number)
    return Instrument(
        id=instrument_id(kind, year, number),
        celex=celex,
        eli=eli,
        kind=kind,
        year=year,
        number=number,
        citation=citation,
        title=f"{citation} ({full_name})" if full_name else citation,
        short_name=SHORT_NAMES.get(celex),
        source_url=str(raw.get("eur_lex_url") or eurlex_url(celex)),
        valid_from=valid_from,
        version=celex_id if version else None,
        applies_from=str(raw["effective_date"]) if raw.get("effective_date") else None,
    )


def _citation(kind: InstrumentKind, year: int, number: int) -> str:
    """As the Official Journal prints it: ``Regulation (EU) 2022/2554``, ``Regulation (EU) No
    910/2014`` (before 2015), ``Directive 2002/58/EC`` (before the Lisbon Treaty)."""
    word = kind.value.capitalize()
    if year >= 2015:
        return f"{word} (EU) {year}/{number}"
    if kind is InstrumentKind.DIRECTIVE:
        return f"{word} {year}/{number}/{'EU' if year >= 2010 else 'EC'}"
    return f"{word} ({'EU' if year >= 2010 else 'EC'}) No {number}/{year}"


def _lines(text: str) -> list[str]:
    """The text's blocks as lines, amendment markers dropped, a lone point marker glued to
    the block after it."""
    lines: list[str] = []
    pending = ""
    for block in _BLOCKS.split(text):
        line = clean(_AMENDMENT_MARK.sub(" ", block))
        if not line:
            continue
        if _SIGNATURES.match(line):
            break
        if MARKER.match(line):
            pending = f"{pending} {line}".strip()
            continue
        lines.append(f"{pending} {line}" if pending else line)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def _sort_key(number: str) -> tuple[int, str]:
    digits = re.match(r"\d+", number)
    return (int(digits.group()) if digits else 0, number[len(digits.group()) if digits else 0 :])


def _article(builder: ActBuilder, number: str, article: dict[str, Any], anchored: bool) -> None:
    builder.article(number, f"art_{number}" if anchored else None)
    lines = _lines(str(article.get("text", "")))
    title = clean(str(article.get("title") or ""))
    if not title and lines and _is_heading(lines[0]):
        title, lines = lines[0], lines[1:]
    if title:
        builder.heading(title)
    last: tuple[int, str] | None = None
    opened: set[str] = set()
    run: list[str] = []
    for line in lines:
        match = NUMBERED_PARAGRAPH.match(line)
        paragraph = match["number"] if match else None
        if paragraph is not None and paragraph not in opened and _follows(last, paragraph):
            if run:
                builder.lines(run)
                run = []
            builder.paragraph(paragraph)
            opened.add(paragraph)
            last = _sort_key(paragraph)
        run.append(line)
    if run:
        builder.lines(run)


def _follows(last: tuple[int, str] | None, number: str) -> bool:
    """Paragraph numbers run 1, 2, 2a, 3 ...: a number that does not follow is list text."""
    key = _sort_key(number)
    if last is None:
        return key[0] == 1 and not key[1]
    return key > last and key[0] - last[0] <= 2


def _is_heading(line: str) -> bool:
    return (
        len(line) <= 200
        and not line.endswith((".", ":", ";"))
        and not NUMBERED_PARAGRAPH.match(line)
        and not line.startswith("(")
    )


def _definitions(act: ParsedAct, rows: list[dict[str, Any]]) -> tuple[Provision, ...]:
    """One provision per defined term, under the article that defines it."""
    out: list[Provision] = []
    ids: set[str] = set()
    order = len(act.provisions)
    for row in rows:
        term = clean(str(row.get("term") or ""))
        text = clean(str(row.get("definition") or ""))
        number = str(row.get("article") or "").strip()
        parent = act.by_id.get(article_id(act.instrument.id, number)) if number else None
        if not term or not text or parent is None:
            continue
        base = f"{parent.id}_DEF_{id_part(term)[:48].strip('_')}"
        provision_id, suffix = base, 2
        while provision_id in ids:
            provision_id, suffix = f"{base}_{suffix}", suffix + 1
        ids.add(provision_id)
        out.append(
            Provision(
                id=provision_id,
                kind=ProvisionKind.DEFINITION,
                number=term,
                heading=term,
                text=f"‘{term}’ means {text}",
                parent_id=parent.id,
                order=order + len(out),
                url=parent.url,
                instrument_id=act.instrument.id,
            )
        )
    return tuple(out)
