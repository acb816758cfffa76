"""The provision model every parser produces: one :class:`Instrument` and its provisions.

A :class:`ParsedAct` is format-neutral: the EUR-Lex XHTML, Formex and Akoma Ntoso parsers all
return it, so two manifestations of one act can be compared provision by provision. Provision
ids extend the seeds' scheme (``EU:REG_2024_1689:ART_5_1``, see :mod:`corpus.ids`).

Text conventions (the same in every format):

- one line per printed block, joined with ``\\n``; whitespace collapsed, no-break spaces are
  plain spaces, footnote calls and footnotes are dropped;
- a point keeps its printed marker at the start of its line (``(a) the placing on...``); a
  numbered paragraph keeps its number (``1. The following...``); a recital does not (its number
  is in ``number``);
- an article with numbered paragraphs holds its whole text (every paragraph) and each paragraph
  is also a provision of its own; an article without numbered paragraphs has no paragraph nodes.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cached_property

from pydantic import BaseModel, ConfigDict

__all__ = [
    "DIVISION_KINDS",
    "Instrument",
    "InstrumentKind",
    "ParsedAct",
    "Provision",
    "ProvisionKind",
    "SourceFormat",
]


class InstrumentKind(StrEnum):
    REGULATION = "regulation"
    DIRECTIVE = "directive"
    DECISION = "decision"
    UN_REGULATION = "un-regulation"  # a UN ECE regulation the EU applies (CELEX 4...X...)


class ProvisionKind(StrEnum):
    PART = "part"
    TITLE = "title"
    CHAPTER = "chapter"
    SECTION = "section"
    SUBSECTION = "subsection"
    ARTICLE = "article"
    PARAGRAPH = "paragraph"
    RECITAL = "recital"
    ANNEX = "annex"
    DEFINITION = "definition"  # a defined term, under the article that defines it (JSON input)


# Structural divisions, outermost first: a new division closes every open one of equal or
# lower rank (a new CHAPTER closes the open SECTION and CHAPTER, not the TITLE).
DIVISION_KINDS: tuple[ProvisionKind, ...] = (
    ProvisionKind.PART,
    ProvisionKind.TITLE,
    ProvisionKind.CHAPTER,
    ProvisionKind.SECTION,
    ProvisionKind.SUBSECTION,
)


class SourceFormat(StrEnum):
    EURLEX_XHTML = "eurlex-xhtml"
    FORMEX = "formex"
    AKOMA_NTOSO = "akoma-ntoso"
    EU_JSON = "eu-json"  # the structured JSON collection (corpus/eu_json.py)


class Instrument(BaseModel):
    """One EU legal act (regulation, directive or decision)."""

    model_config = ConfigDict(frozen=True)

    id: str  # EU:REG_2024_1689
    celex: str  # 32024R1689
    eli: str  # http://data.europa.eu/eli/reg/2024/1689/oj
    kind: InstrumentKind
    year: int
    number: int
    citation: str  # as printed in the title: "Regulation (EU) 2024/1689"
    title: str  # citation + subject, e.g. "Regulation (EU) 2016/679 on the protection of..."
    short_name: str | None = None  # "AI Act", "GDPR"
    source_url: str  # the act on EUR-Lex (by CELEX)
    valid_from: str | None = None  # ISO day: a consolidated version's date (02014R0910-20241018)
    version: str | None = None  # the consolidated version's CELEX, when the text is one
    applies_from: str | None = None  # ISO day the act applies from, when the source says


class Provision(BaseModel):
    """One addressable unit of an act: a division, article, paragraph, recital or annex."""

    model_config = ConfigDict(frozen=True)

    id: str
    kind: ProvisionKind
    number: str  # as printed: "5", "5(1)", "III", "12"; "" for an unnumbered annex
    heading: str | None = None  # article title, chapter or annex heading
    text: str = ""
    parent_id: str  # the enclosing provision, or the instrument id
    order: int  # position in the act, document order, from 0
    url: str  # EUR-Lex deep link when the source has the anchor, else the act
    instrument_id: str


class ParsedAct(BaseModel):
    """An instrument and its provisions in document order."""

    model_config = ConfigDict(frozen=True)

    instrument: Instrument
    provisions: tuple[Provision, ...]
    source_format: SourceFormat

    @cached_property
    def by_id(self) -> dict[str, Provision]:
        return {p.id: p for p in self.provisions}

    def of_kind(self, kind: ProvisionKind) -> list[Provision]:
        return [p for p in self.provisions if p.kind is kind]

    def children(self, parent_id: str) -> list[Provision]:
        return [p for p in self.provisions if p.parent_id == parent_id]

    def article(self, number: str) -> Provision:
        """The article printed as ``Article {number}``; ``KeyError`` when there is none."""
        for provision in self.provisions:
            if provision.kind is ProvisionKind.ARTICLE and provision.number == number:
                return provision
        raise KeyError(f"{self.instrument.id} has no Article {number}")
