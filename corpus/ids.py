"""Identifiers and addresses of EU acts and their provisions.

Ids extend the seeds' scheme (docs/architecture.md, "Contracts"): the instrument is
``EU:REG_2024_1689`` (``DIR`` for a directive, ``DEC`` for a decision, ``EU:UNECE_R155`` for a
UN ECE regulation the EU applies); provisions hang off it
with a colon: ``:ART_5``, ``:ART_5_1`` (paragraph 1), ``:REC_12``, ``:ANNEX_III`` (``:ANNEX``
when the act has one unnumbered annex), ``:CHAPTER_II``, ``:CHAPTER_III_SECTION_2``; a defined
term is ``:ART_3_DEF_<TERM>``.

CELEX numbers (``32024R1689``), ELI URIs and EUR-Lex links are derived from kind, year and
number; a deep link carries a fragment only when the source markup has that anchor (callers
pass it), never a made-up one.
"""

from __future__ import annotations

import re

from corpus.model import InstrumentKind

__all__ = [
    "EURLEX_HTML",
    "annex_id",
    "article_id",
    "celex_number",
    "division_id",
    "eli_uri",
    "eurlex_url",
    "id_part",
    "instrument_id",
    "paragraph_id",
    "parse_celex",
    "recital_id",
]

_PREFIX = {
    InstrumentKind.REGULATION: "REG",
    InstrumentKind.DIRECTIVE: "DIR",
    InstrumentKind.DECISION: "DEC",
    InstrumentKind.UN_REGULATION: "UNECE",
}
_CELEX_LETTER = {
    InstrumentKind.REGULATION: "R",
    InstrumentKind.DIRECTIVE: "L",
    InstrumentKind.DECISION: "D",
    InstrumentKind.UN_REGULATION: "X",
}
_ELI_TYPE = {
    InstrumentKind.REGULATION: "reg",
    InstrumentKind.DIRECTIVE: "dir",
    InstrumentKind.DECISION: "dec",
    InstrumentKind.UN_REGULATION: "reg",
}
_CELEX = re.compile(r"^3(?P<year>\d{4})(?P<letter>[RLD])(?P<number>\d{4,})$")
_NOT_ID = re.compile(r"[^A-Z0-9]+")
EURLEX_HTML = "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:"


def instrument_id(kind: InstrumentKind, year: int, number: int) -> str:
    """``EU:REG_2024_1689``, ``EU:DIR_2014_92``, ``EU:DEC_2008_768``; ``EU:UNECE_R155``."""
    if kind is InstrumentKind.UN_REGULATION:
        return f"EU:UNECE_R{number}"
    return f"EU:{_PREFIX[kind]}_{year}_{number}"


def celex_number(kind: InstrumentKind, year: int, number: int) -> str:
    """Sector 3 (legislation) CELEX number: ``32024R1689``, ``32014L0092``."""
    return f"3{year}{_CELEX_LETTER[kind]}{number:04d}"


def parse_celex(celex: str) -> tuple[InstrumentKind, int, int]:
    """``32014L0092`` -> ``(DIRECTIVE, 2014, 92)``; ``ValueError`` for other sectors/types."""
    match = _CELEX.match(celex.strip())
    if match is None:
        raise ValueError(f"not a CELEX number of a regulation, directive or decision: {celex!r}")
    kind = next(k for k, letter in _CELEX_LETTER.items() if letter == match["letter"])
    return kind, int(match["year"]), int(match["number"])


def eli_uri(kind: InstrumentKind, year: int, number: int) -> str:
    """The act's ELI as printed in the Official Journal (``.../eli/reg/2024/1689/oj``)."""
    return f"http://data.europa.eu/eli/{_ELI_TYPE[kind]}/{year}/{number}/oj"


def eurlex_url(celex: str, anchor: str | None = None) -> str:
    """The act on EUR-Lex, with ``#anchor`` only when the source markup has that anchor."""
    return f"{EURLEX_HTML}{celex}" + (f"#{anchor}" if anchor else "")


def id_part(printed: str) -> str:
    """A printed number as an id part: ``5a`` -> ``5A``, ``III`` -> ``III``, ``ONE`` -> ``ONE``."""
    return _NOT_ID.sub("_", printed.upper()).strip("_")


def article_id(instrument: str, number: str) -> str:
    return f"{instrument}:ART_{id_part(number)}"


def paragraph_id(article: str, number: str) -> str:
    return f"{article}_{id_part(number)}"


def recital_id(instrument: str, number: str) -> str:
    return f"{instrument}:REC_{id_part(number)}"


def annex_id(instrument: str, number: str) -> str:
    return f"{instrument}:ANNEX_{id_part(number)}" if number else f"{instrument}:ANNEX"


def division_id(instrument: str, path: list[tuple[str, str]]) -> str:
    """``[("chapter", "III"), ("section", "2")]`` -> ``...:CHAPTER_III_SECTION_2``."""
    return f"{instrument}:" + "_".join(f"{kind.upper()}_{id_part(num)}" for kind, num in path)
