"""Format-neutral assembly of a :class:`ParsedAct` from parse events.

Each parser walks its own format and calls :class:`ActBuilder` in document order: ``division``,
``article``, ``paragraph``, ``heading``, ``lines``, ``recital``, ``annex``, ``close``. The
builder owns everything the formats share: ids, parents, document order, deep links and the
text conventions, so the parsers cannot drift apart on them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from corpus.ids import (
    annex_id,
    article_id,
    division_id,
    eurlex_url,
    paragraph_id,
    recital_id,
)
from corpus.model import (
    DIVISION_KINDS,
    Instrument,
    ParsedAct,
    Provision,
    ProvisionKind,
    SourceFormat,
)
from corpus.text import clean, join_lines
from errors import InvalidInput

__all__ = ["ActBuilder", "parse_division_title"]

_DIVISION_TITLE = re.compile(
    r"^(?P<kind>part|title|chapter|section|sub-?section)\s+(?P<number>\S+)$", re.IGNORECASE
)


def parse_division_title(printed: str) -> tuple[ProvisionKind, str] | None:
    """``CHAPTER III`` -> ``(CHAPTER, "III")``, ``Section 2`` -> ``(SECTION, "2")``; else None."""
    match = _DIVISION_TITLE.match(clean(printed))
    if match is None:
        return None
    return ProvisionKind(match["kind"].lower().replace("-", "")), match["number"]


@dataclass
class _Draft:
    id: str
    kind: ProvisionKind
    number: str
    parent_id: str
    order: int
    anchor: str | None
    heading: str | None = None
    lines: list[str] = field(default_factory=list)


class ActBuilder:
    """Collects provisions of one act; :meth:`build` returns the immutable result."""

    def __init__(self, instrument: Instrument, source_format: SourceFormat) -> None:
        self._instrument = instrument
        self._format = source_format
        self._drafts: list[_Draft] = []
        self._ids: set[str] = set()
        self._divisions: list[tuple[_Draft, str]] = []  # open divisions with their printed number
        self._article: _Draft | None = None
        self._paragraph: _Draft | None = None
        self._annex: _Draft | None = None
        self._titled: _Draft | None = None  # the provision a following heading belongs to

    # -- structure -------------------------------------------------------------------------

    def division(self, kind: ProvisionKind, number: str, anchor: str | None = None) -> None:
        """Open a part / title / chapter / section, closing those of equal or lower rank."""
        rank = DIVISION_KINDS.index(kind)
        self._close_article()
        while self._divisions and DIVISION_KINDS.index(self._divisions[-1][0].kind) >= rank:
            self._divisions.pop()
        path = [(d.kind.value, printed) for d, printed in self._divisions] + [(kind.value, number)]
        draft = self._new(
            division_id(self._instrument.id, path), kind, number, self._container_id(), anchor
        )
        self._divisions.append((draft, number))

    def article(self, number: str, anchor: str | None = None) -> None:
        self._close_article()
        self._annex = None
        self._article = self._new(
            article_id(self._instrument.id, number),
            ProvisionKind.ARTICLE,
            number,
            self._container_id(),
            anchor,
        )

    def paragraph(self, number: str, anchor: str | None = None) -> None:
        """Open numbered paragraph ``number`` of the current article."""
        if self._article is None:
            raise InvalidInput(f"paragraph {number} outside an article")
        article = self._article
        self._paragraph = self._new(
            paragraph_id(article.id, number),
            ProvisionKind.PARAGRAPH,
            f"{article.number}({number})",
            article.id,
            anchor,
            titled=False,
        )

    def annex(self, number: str, anchor: str | None = None) -> None:
        self.close()
        self._divisions.clear()
        self._annex = self._new(
            annex_id(self._instrument.id, number),
            ProvisionKind.ANNEX,
            number,
            self._instrument.id,
            anchor,
        )

    def recital(self, number: str, lines: list[str], anchor: str | None = None) -> None:
        draft = self._new(
            recital_id(self._instrument.id, number),
            ProvisionKind.RECITAL,
            number,
            self._instrument.id,
            anchor,
            titled=False,
        )
        draft.lines.extend(lines)

    def close(self) -> None:
        """End of the enacting terms or of an annex: later text belongs to no provision."""
        self._close_article()
        self._annex = None
        self._titled = None

    # -- content ---------------------------------------------------------------------------

    def heading(self, text: str) -> None:
        """The heading of the last opened article, division or annex (multi-line: joined)."""
        text = clean(text)
        if self._titled is None or not text:
            return
        draft = self._titled
        draft.heading = f"{draft.heading} {text}" if draft.heading else text

    def lines(self, lines: list[str]) -> None:
        """Body text of the open paragraph and article, or of the open annex."""
        self._titled = None
        if self._paragraph is not None:
            self._paragraph.lines.extend(lines)
        if self._article is not None:
            self._article.lines.extend(lines)
        elif self._annex is not None:
            self._annex.lines.extend(lines)

    @property
    def in_article(self) -> bool:
        return self._article is not None

    # -- result ----------------------------------------------------------------------------

    def build(self) -> ParsedAct:
        celex = self._instrument.celex
        provisions = tuple(
            Provision(
                id=d.id,
                kind=d.kind,
                number=d.number,
                heading=d.heading,
                text=join_lines(d.lines),
                parent_id=d.parent_id,
                order=d.order,
                url=eurlex_url(celex, d.anchor),
                instrument_id=self._instrument.id,
            )
            for d in self._drafts
        )
        return ParsedAct(
            instrument=self._instrument, provisions=provisions, source_format=self._format
        )

    # -- internals -------------------------------------------------------------------------

    def _new(
        self,
        provision_id: str,
        kind: ProvisionKind,
        number: str,
        parent_id: str,
        anchor: str | None,
        *,
        titled: bool = True,
    ) -> _Draft:
        if provision_id in self._ids:
            # Two provisions with one id means the parser misread the structure: fail loudly
            # rather than merge two texts.
            raise InvalidInput(f"duplicate provision {provision_id} in {self._instrument.celex}")
        self._ids.add(provision_id)
        draft = _Draft(provision_id, kind, number, parent_id, len(self._drafts), anchor)
        self._drafts.append(draft)
        self._titled = draft if titled else None
        return draft

    def _container_id(self) -> str:
        return self._divisions[-1][0].id if self._divisions else self._instrument.id

    def _close_article(self) -> None:
        self._article = None
        self._paragraph = None
