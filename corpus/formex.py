"""Formex 4 (the Publications Office's XML) -> :class:`ParsedAct`.

A Formex act is a bundle: the main file (root ``ACT``), one file per annex (root ``ANNEX``),
and a ``*.doc.fmx.xml`` that lists them and carries the ELI. :func:`parse_formex` takes the
bundle's folder or any file in it.

Rendering follows what CONVEX prints in the XHTML of the same act, so both parse to equal
text: ``QUOT.START`` / ``QUOT.END`` are the quotation marks of their ``CODE``; ``HT
TYPE="UC"`` is upper case; a ``NO.P`` / ``NO.PARAG`` marker is glued to its first line; a dash
list item gets ``—``; footnotes (``NOTE``) and page marks (``<?PAGE?>``) are dropped. Formex
has no EUR-Lex anchors, so deep links point at the act.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from corpus.assembly import ActBuilder, parse_division_title
from corpus.instrument import build_instrument
from corpus.model import ParsedAct, SourceFormat
from corpus.text import clean, prefix
from errors import InvalidInput

__all__ = ["parse_formex"]

_BLOCKS = frozenset(
    {
        "P",
        "ALINEA",
        "LIST",
        "ITEM",
        "NP",
        "TXT",
        "PARAG",
        "TBL",
        "CORPUS",
        "ROW",
        "CELL",
        "GR.SEQ",
        "TITLE",
        "TI",
        "STI",
        "CONTENTS",
        "QUOT.S",
        "GR.TBL",
        "BLK",
        "ARTICLE",
        "DIVISION",
        "TI.ART",
        "STI.ART",
        "NO.P",
        "NO.PARAG",
        "FORMULA",
        "CONSID",
    }
)
_LIST_MARKERS = {"DASH": "—", "NDASH": "–", "BULLET": "•"}


def parse_formex(path: Path) -> ParsedAct:
    """Parse the Formex bundle that holds ``path`` (its folder or one of its files)."""
    folder = path if path.is_dir() else path.parent
    roots = {p: _load(p) for p in sorted(folder.glob("*.xml"))}
    acts = [root for root in roots.values() if root.tag == "ACT"]
    if len(acts) != 1:
        raise InvalidInput(f"{folder}: expected one Formex ACT file, found {len(acts)}")
    act = acts[0]
    docs = [root for root in roots.values() if root.tag == "DOC"]
    eli = next((str(e.get("ID")) for doc in docs for e in doc.iter("NO.ELI") if e.get("ID")), None)
    title = act.find("TITLE")
    title_lines = _lines(title) if title is not None else []
    builder = ActBuilder(build_instrument(title_lines, eli=eli), SourceFormat.FORMEX)
    for consid in act.iter("CONSID"):
        _recital(consid, builder)
    enacting = act.find("ENACTING.TERMS")
    if enacting is not None:
        _enacting(enacting, builder)
    builder.close()
    for annex in _annexes(roots, docs):
        _annex(annex, builder)
    return builder.build()


def _load(path: Path) -> etree._Element:
    try:
        tree = etree.parse(str(path), etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError as exc:
        raise InvalidInput(f"{path.name}: not well-formed Formex XML: {exc}") from exc
    root = tree.getroot()
    # Footnotes and page marks are not text of the provision they sit in; tails are kept.
    etree.strip_elements(root, "NOTE", etree.PI, etree.Comment, with_tail=False)
    return root


def _annexes(
    roots: dict[Path, etree._Element], docs: list[etree._Element]
) -> Iterator[etree._Element]:
    """Annexes in the order the doc file lists them (else by file name)."""
    by_name = {p.name: root for p, root in roots.items()}
    listed = [str(ref.get("FILE")) for doc in docs for ref in doc.iter("REF.PHYS")]
    ordered = [by_name[name] for name in listed if name in by_name]
    rest = [root for root in roots.values() if root.tag == "ANNEX" and root not in ordered]
    yield from (root for root in [*ordered, *rest] if root.tag == "ANNEX")


def _recital(consid: etree._Element, builder: ActBuilder) -> None:
    np = consid.find("NP")
    if np is None:
        return
    number = clean(np.findtext("NO.P") or "").strip("()")
    body = [line for child in np if child.tag != "NO.P" for line in _lines(child)]
    builder.recital(number, body)


def _enacting(element: etree._Element, builder: ActBuilder) -> None:
    for child in element:
        if child.tag == "DIVISION":
            ti, sti = child.find("TITLE/TI"), child.find("TITLE/STI")
            printed = " ".join(_lines(ti)) if ti is not None else ""
            division = parse_division_title(printed)
            if division is None:
                raise InvalidInput(f"Formex DIVISION with an unknown title: {printed!r}")
            builder.division(*division)
            if sti is not None:
                builder.heading(" ".join(_lines(sti)))
            _enacting(child, builder)
        elif child.tag == "ARTICLE":
            _article(child, builder)


def _article(article: etree._Element, builder: ActBuilder) -> None:
    number = clean(article.findtext("TI.ART") or "").removeprefix("Article").strip()
    builder.article(number)
    for child in article:
        if child.tag == "TI.ART":
            continue
        if child.tag == "STI.ART":
            builder.heading(" ".join(_lines(child)))
        elif child.tag == "PARAG":
            builder.paragraph(clean(child.findtext("NO.PARAG") or "").rstrip("."))
            builder.lines(_lines(child))
        else:
            builder.lines(_lines(child))


def _annex(annex: etree._Element, builder: ActBuilder) -> None:
    ti, sti = annex.find("TITLE/TI"), annex.find("TITLE/STI")
    printed = clean(" ".join(_lines(ti))) if ti is not None else "ANNEX"
    builder.annex(printed.removeprefix("ANNEX").strip())
    if sti is not None:
        builder.heading(" ".join(_lines(sti)))
    contents = annex.find("CONTENTS")
    if contents is not None:
        builder.lines(_lines(contents))


# -- rendering -----------------------------------------------------------------------------


def _lines(element: etree._Element) -> list[str]:
    tag = element.tag
    if tag in {"NP", "PARAG"}:
        marker_tag = "NO.P" if tag == "NP" else "NO.PARAG"
        body = [line for c in element if c.tag != marker_tag for line in _lines(c)]
        return prefix(element.findtext(marker_tag) or "", body)
    if tag == "ITEM" and element.find("NP") is None:
        parent = element.getparent()
        marker = _LIST_MARKERS.get(str(parent.get("TYPE")), "") if parent is not None else ""
        return prefix(marker, _mixed(element))
    if tag == "ROW":
        cells = [" ".join(_lines(cell)) for cell in element if cell.tag == "CELL"]
        return [" | ".join(cell for cell in cells if cell)]
    return _mixed(element)


def _mixed(element: etree._Element) -> list[str]:
    """Mixed content: inline runs become one line each, block children their own lines."""
    out: list[str] = []
    run = [element.text or ""]
    for child in element:
        if child.tag in _BLOCKS:
            out.extend(_flush(run))
            out.extend(_lines(child))
            run = []
        else:
            run.append(_inline(child))
        run.append(child.tail or "")
    out.extend(_flush(run))
    return out


def _inline(element: etree._Element) -> str:
    if element.tag in {"QUOT.START", "QUOT.END"}:
        code = element.get("CODE")
        return chr(int(code, 16)) if code else ("‘" if element.tag == "QUOT.START" else "’")
    text = (element.text or "") + "".join(_inline(c) + (c.tail or "") for c in element)
    return text.upper() if element.tag == "HT" and element.get("TYPE") == "UC" else text


def _flush(run: list[str]) -> list[str]:
    line = clean("".join(run))
    return [line] if line else []
