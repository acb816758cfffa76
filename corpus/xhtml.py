"""EUR-Lex / CELLAR XHTML (CONVEX output) -> :class:`ParsedAct`.

One parser for both markups EUR-Lex serves:

- 2016 and earlier (``ti-art``, ``sti-art``, ``normal``...): a flat sequence of ``<p>`` and
  ``<table>`` under ``<body>``, no structural ids;
- 2024 (``oj-ti-art``...): the same blocks nested in ``<div>`` s whose ids (``art_5``,
  ``005.001``, ``rct_12``, ``anx_III``, ``cpt_II``, ``cpt_III.sct_2``) are the anchors of
  EUR-Lex deep links.

The document is flattened into blocks (a ``<p>`` or a top-level ``<table>`` with the ids of
the ``<div>`` s around it) and read by one state machine; the class names minus ``oj-`` are
the same in both markups. A numbered paragraph is a ``<p>`` whose text starts ``N.``; points
are tables whose first cell holds only a marker. Quoted amendments (``‘5. For ...``) start
with a quotation mark, so they stay text of the amending article. The final formula and the
signatures (``div.final``) and the footnotes are not provisions. An id that occurs twice in a
document (quoted paragraphs of amended acts reuse ``NNN.MMM``) is an anchor only at its first
occurrence, which is where a browser lands.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import lxml.html
from lxml.html import HtmlElement

from corpus.assembly import ActBuilder, parse_division_title
from corpus.instrument import build_instrument
from corpus.model import ParsedAct, SourceFormat
from corpus.text import MARKER, NUMBERED_PARAGRAPH, clean, prefix
from errors import InvalidInput

__all__ = ["parse_eurlex_xhtml"]

_BLOCK_TAGS = frozenset(
    {"p", "div", "table", "tbody", "thead", "tr", "ul", "ol", "li", "dl", "h1", "h2", "h3"}
)
_SKIP_TAGS = frozenset({"script", "style", "link", "meta", "img", "col", "colgroup", "hr"})
_ANNEX = re.compile(r"^ANNEX(?:\s+(?P<number>[IVXLC]+|\d+[a-z]?))?$")
_RECITAL_MARKER = re.compile(r"^\((?P<number>\d+[a-z]?)\)\s*")
# A dropped footnote call; CELLAR puts a no-break space before the call ("Council\u00a0(12)."),
# which must go with it or the text reads "Council ." where Formex has "Council.".
_CALL = "\x00"
_BEFORE_CALL = re.compile(r"[\s\u00a0]*\x00")
_ELI_LINE = re.compile(r"^ELI:\s*(?P<eli>http\S+)$")
_ANCHORS = {
    "article": re.compile(r"^art_\w+$"),
    "paragraph": re.compile(r"^\d{3}\.\d{3}$"),
    "recital": re.compile(r"^rct_\w+$"),
    "annex": re.compile(r"^anx_\w+$"),
    "division": re.compile(r"^(?:prt|tis|cpt|sct|sbs)_[\w]+(?:\.(?:prt|tis|cpt|sct|sbs)_\w+)*$"),
}


@dataclass(frozen=True)
class _Block:
    kind: str  # the element's first class without "oj-", "table", "final" or "hr:<class>"
    lines: tuple[str, ...]
    anchors: tuple[str, ...]  # ids around the block (first occurrences), innermost last

    @property
    def line(self) -> str:
        return " ".join(self.lines)

    def anchor(self, kind: str) -> str | None:
        pattern = _ANCHORS[kind]
        return next((a for a in reversed(self.anchors) if pattern.match(a)), None)


def parse_eurlex_xhtml(data: bytes) -> ParsedAct:
    """Parse one act in EUR-Lex XHTML (2016 or 2024 markup)."""
    parser = lxml.html.HTMLParser(encoding="utf-8", remove_comments=True)
    root = lxml.html.document_fromstring(data, parser=parser)
    body = root.find("body")
    if body is None:
        raise InvalidInput("XHTML without a body")
    blocks = list(_blocks(body, (), set()))
    title = [b.line for b in _title_blocks(blocks)]
    eli = next((m["eli"] for b in blocks if (m := _ELI_LINE.match(b.line))), None)
    builder = ActBuilder(build_instrument(title, eli=eli), SourceFormat.EURLEX_XHTML)
    _read(blocks, builder)
    return builder.build()


def _title_blocks(blocks: list[_Block]) -> Iterator[_Block]:
    started = False
    for block in blocks:
        if block.kind == "doc-ti":
            started = True
            yield block
        elif started:
            return


def _read(blocks: list[_Block], builder: ActBuilder) -> None:
    phase = "front"  # front -> recitals -> enacting -> final -> annex ... -> end
    article_anchor: str | None = None
    for block in blocks:
        kind, line = block.kind, block.line
        if kind.startswith("hd-") or kind in {"note", "signatory", "hr:note", "hr:doc-sep"}:
            continue
        if kind in {"hr:separator", "hr:doc-end"}:
            if phase != "front":
                builder.close()
                phase = "end"
            continue
        if kind == "final":
            builder.close()
            phase = "final"
        elif kind == "doc-ti":
            if (annex := _ANNEX.match(line)) and phase != "front":
                builder.annex(annex["number"] or "", block.anchor("annex"))
                phase = "annex"
            elif phase == "annex":
                builder.heading(line)
        elif kind == "ti-section-1" and (division := parse_division_title(line)):
            phase = "enacting"
            builder.division(*division, block.anchor("division"))
        elif kind in {"ti-section-1", "ti-section-2", "sti-art"}:
            builder.heading(line)
        elif kind == "ti-art":
            phase = "enacting"
            article_anchor = block.anchor("article")
            builder.article(line.removeprefix("Article").strip(), article_anchor)
        elif phase == "front" and line == "Whereas:":
            phase = "recitals"
        elif phase == "recitals" and kind == "table" and (m := _RECITAL_MARKER.match(line)):
            first = block.lines[0][m.end() :]
            builder.recital(m["number"], [first, *block.lines[1:]], block.anchor("recital"))
        elif phase == "enacting" and builder.in_article:
            numbered = NUMBERED_PARAGRAPH.match(block.lines[0]) if block.lines else None
            if numbered and kind != "table":
                builder.paragraph(numbered["number"], _paragraph_anchor(block, article_anchor))
            builder.lines(list(block.lines))
        elif phase == "annex":
            builder.lines(list(block.lines))


def _paragraph_anchor(block: _Block, article_anchor: str | None) -> str | None:
    """``005.001`` inside ``art_5`` only: the prefix must be the article's own number."""
    anchor = block.anchor("paragraph")
    if anchor is None or article_anchor is None or article_anchor not in block.anchors:
        return None
    article_number = article_anchor.removeprefix("art_")
    if article_number.isdigit() and int(anchor[:3]) != int(article_number):
        return None
    return anchor


# -- flattening ----------------------------------------------------------------------------


def _css(element: HtmlElement) -> str:
    classes = (element.get("class") or "").split()
    return classes[0].removeprefix("oj-") if classes else ""


def _blocks(element: HtmlElement, anchors: tuple[str, ...], seen: set[str]) -> Iterator[_Block]:
    for child in element:
        if not isinstance(child.tag, str):
            continue
        tag, css, ident = child.tag, _css(child), child.get("id")
        inner = anchors
        if ident:
            if ident not in seen:
                inner = (*anchors, ident)
            seen.add(ident)
        if tag == "hr":
            yield _Block(f"hr:{css}", (), inner)
        elif tag in _SKIP_TAGS:
            continue
        elif tag == "div":
            if css == "final":
                yield _Block("final", (), inner)
            else:
                yield from _blocks(child, inner, seen)
        elif tag == "table":
            yield _Block("table", tuple(_block_lines(child)), inner)
        elif lines := _lines(child):
            yield _Block(css or tag, tuple(lines), inner)


def _is_footnote_call(element: HtmlElement) -> bool:
    return element.tag == "a" and (element.get("id") or "").startswith("ntc")


def _inline(element: HtmlElement) -> str:
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str):
            parts.append(_inline_child(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _inline_child(element: HtmlElement) -> str:
    if _is_footnote_call(element):
        return _CALL  # removed with the space before it in _flush
    return " " if element.tag == "br" else _inline(element)


def _lines(element: HtmlElement) -> list[str]:
    """The lines of a block: inline runs become one line, nested blocks their own lines."""
    out: list[str] = []
    run = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str) and child.tag in _BLOCK_TAGS:
            out.extend(_flush(run))
            out.extend(_block_lines(child))
            run = []
        elif isinstance(child.tag, str) and child.tag not in _SKIP_TAGS:
            run.append(_inline_child(child))
        run.append(child.tail or "")
    out.extend(_flush(run))
    return out


def _flush(run: list[str]) -> list[str]:
    text = "".join(run)
    line = clean(_BEFORE_CALL.sub("", text) if _CALL in text else text)
    return [line] if line else []


def _block_lines(element: HtmlElement) -> list[str]:
    if element.tag in {"table", "tbody", "thead"}:
        return [
            line for child in element if isinstance(child.tag, str) for line in _block_lines(child)
        ]
    if element.tag == "tr":
        return _row_lines(element)
    return _lines(element)


def _row_lines(row: HtmlElement) -> list[str]:
    """A point row ``(a) | text`` becomes ``(a) text``; other rows keep every cell's lines."""
    cells = [lines for cell in row if cell.tag in {"td", "th"} if (lines := _lines(cell))]
    if len(cells) >= 2 and len(cells[0]) == 1 and MARKER.match(cells[0][0]):
        return [*prefix(cells[0][0], cells[1]), *(line for cell in cells[2:] for line in cell)]
    if len(cells) >= 2 and all(len(cell) == 1 for cell in cells):
        return [" | ".join(cell[0] for cell in cells)]
    return [line for cell in cells for line in cell]
