"""Akoma Ntoso 3.0 / AKN4EU -> :class:`ParsedAct`.

Reads the CELEX number from ``FRBRalias name="CELEX"`` (else the title), the title from
``preface``, recitals from ``preamble/recitals``, and the hierarchy ``part / title / chapter /
section / subsection / article / paragraph`` from ``body``; ``conclusions`` (the signatures)
and ``authorialNote`` (footnotes) are not provisions. Any element with a ``num`` child renders
as ``num`` glued to its first line, like points in the other formats.

Two habits of converted AKN files are handled: an article's heading may be a second ``num``
instead of ``heading``, and eIds (``chp_I__art_1``) are not EUR-Lex anchors, so deep links
point at the act. Annexes (``attachments``) are not read yet.
"""

from __future__ import annotations

from lxml import etree

from corpus.assembly import ActBuilder
from corpus.instrument import build_instrument
from corpus.model import DIVISION_KINDS, ParsedAct, ProvisionKind, SourceFormat
from corpus.text import clean, prefix
from errors import InvalidInput

__all__ = ["AKN_NAMESPACE", "parse_akoma_ntoso"]

AKN_NAMESPACE = "http://docs.oasis-open.org/legaldocml/ns/akn/3.0"
_NS = f"{{{AKN_NAMESPACE}}}"
_DIVISIONS = {kind.value for kind in DIVISION_KINDS}
# Elements whose content is a line of its own; everything else inside them is inline.
_BLOCKS = frozenset(
    {
        "p",
        "intro",
        "content",
        "alinea",
        "list",
        "point",
        "indent",
        "wrapUp",
        "subparagraph",
        "paragraph",
        "blockList",
        "item",
        "listIntroduction",
        "listWrapUp",
        "table",
        "tr",
        "block",
        "num",
        "heading",
        "subheading",
        "quotedStructure",
        "blockContainer",
    }
)


def parse_akoma_ntoso(data: bytes) -> ParsedAct:
    """Parse one act in Akoma Ntoso (AKN4EU) XML."""
    try:
        root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError as exc:
        raise InvalidInput(f"not well-formed Akoma Ntoso XML: {exc}") from exc
    etree.strip_elements(root, f"{_NS}authorialNote", etree.Comment, etree.PI, with_tail=False)
    act = next((child for child in root if isinstance(child.tag, str)), None)
    if act is None:
        raise InvalidInput("Akoma Ntoso document without an act")
    celex = next(
        (str(e.get("value")) for e in act.iter(f"{_NS}FRBRalias") if e.get("name") == "CELEX"),
        None,
    )
    preface = act.find(f"{_NS}preface")
    title = _lines(preface) if preface is not None else []
    builder = ActBuilder(build_instrument(title, celex=celex), SourceFormat.AKOMA_NTOSO)
    for recital in act.iter(f"{_NS}recital"):
        number = clean(recital.findtext(f"{_NS}num") or "").strip("()")
        builder.recital(number, [ln for c in recital if _local(c) != "num" for ln in _lines(c)])
    body = act.find(f"{_NS}body")
    if body is not None:
        _hierarchy(body, builder)
    builder.close()
    return builder.build()


def _local(element: etree._Element) -> str:
    tag = element.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _hierarchy(element: etree._Element, builder: ActBuilder) -> None:
    for child in element:
        name = _local(child)
        if name in _DIVISIONS:
            number = clean(child.findtext(f"{_NS}num") or "").partition(" ")[2]
            builder.division(ProvisionKind(name), number)
            heading = child.find(f"{_NS}heading")
            if heading is not None:
                builder.heading(" ".join(_lines(heading)))
            _hierarchy(child, builder)
        elif name == "article":
            _article(child, builder)


def _article(article: etree._Element, builder: ActBuilder) -> None:
    nums = article.findall(f"{_NS}num")
    printed = (nums[0].text or "") if nums else ""
    number = clean(printed).removeprefix("Article").strip()
    builder.article(number)
    heading = article.find(f"{_NS}heading")
    if heading is not None:
        builder.heading(" ".join(_lines(heading)))
    elif len(nums) > 1:
        builder.heading(" ".join(_lines(nums[1])))
    for child in article:
        name = _local(child)
        if name in {"num", "heading"}:
            continue
        if name == "paragraph":
            printed = clean(child.findtext(f"{_NS}num") or "").rstrip(".")
            if printed:
                builder.paragraph(printed)
        builder.lines(_lines(child))


def _lines(element: etree._Element) -> list[str]:
    """An element's lines; a ``num`` child is glued to the first line of the rest."""
    num = element.find(f"{_NS}num")
    if num is not None and _local(element) not in {"article", "recital"}:
        rest = _mixed(element, skip=num)
        return prefix(" ".join(_mixed(num)), rest)
    return _mixed(element)


def _mixed(element: etree._Element, skip: etree._Element | None = None) -> list[str]:
    out: list[str] = []
    run = [element.text or ""]
    for child in element:
        if child is skip:
            pass
        elif _local(child) in _BLOCKS:
            out.extend(_flush(run))
            out.extend(_lines(child))
            run = []
        else:
            run.append("".join(child.itertext()))
        run.append(child.tail or "")
    out.extend(_flush(run))
    return out


def _flush(run: list[str]) -> list[str]:
    line = clean("".join(run))
    return [line] if line else []
