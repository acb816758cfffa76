"""What the retriever knows about a graph node: one :class:`RetrievalDoc` per node.

:func:`document_of` is the single place that reads graph property names, so adapting to the
provision nodes written by ``corpus`` (or to a renamed property) is a change here only. The shape
of a provision node is the one ``corpus.graph_writes`` writes: label ``Article`` /
``Paragraph`` / ``Recital`` / ``Annex`` / ``Chapter``, properties ``title`` (the heading),
``number`` (as printed: ``5``, ``5(1)``, ``III``), ``text``, ``instrument`` (the act's id);
the parent is a ``PART_OF`` edge (or a ``parent`` property). The kind is read from the id
first (``...:ART_5_1`` is a paragraph whatever its label: the seeds label a few articles
``Section``). An act is a node labelled ``EURegulation`` / ``EUDirective`` / ``EUDecision``.
Any other label is a rule node of the seeded graph (``name`` / ``title`` / ``description`` /
``value`` ...), and ``Concept`` is a SKOS concept (``pref_label``, ``definition``, alt labels
through ``HAS_ALT_LABEL``). Every kind carries the node's ``valid_from`` / ``valid_to`` (ISO
dates, ADR 0031) for the as-at filter; a provision without its own inherits its act's (rows.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final

from engine.retrieval.amounts import amount
from graph.models import GraphNode
from graph.quarantine import is_quarantined

__all__ = [
    "DocKind",
    "RetrievalDoc",
    "document_of",
    "jurisdiction_of_id",
]


class DocKind(StrEnum):
    """Kinds of retrievable unit; the retriever ranks each kind in its own channel."""

    INSTRUMENT = "instrument"
    DIVISION = "division"
    ARTICLE = "article"
    PARAGRAPH = "paragraph"
    RECITAL = "recital"
    ANNEX = "annex"
    RULE = "rule"
    CONCEPT = "concept"


_PROVISION_LABELS: Final = {
    "Article": DocKind.ARTICLE,
    "Paragraph": DocKind.PARAGRAPH,
    "Recital": DocKind.RECITAL,
    "Annex": DocKind.ANNEX,
    "Part": DocKind.DIVISION,
    "Title": DocKind.DIVISION,
    "Chapter": DocKind.DIVISION,
    "Subsection": DocKind.DIVISION,
    "Division": DocKind.DIVISION,
}
_INSTRUMENT_LABELS: Final = frozenset({"Instrument", "EURegulation", "EUDirective", "EUDecision"})
# Never evidence: alias nodes are folded into their concept's document instead; a change
# record (ADR 0035) is news about a node, not a source of its value.
_NOT_EVIDENCE: Final = frozenset({"Label", "ChangeEvent"})
# A provision id: instrument id, then one part naming the provision (``:ART_5_1``, ``:REC_3``).
# The id scheme is a contract (docs/architecture.md), so the kind is read from it before the
# label: the seeds label a few articles ``Section``.
_PROVISION_ID: Final = re.compile(
    r"^(?P<instrument>EU:(?:REG|DIR|DEC)_\d{4}_\d+):(?:(?P<article>ART_[0-9A-Z]+)(?P<sub>_[0-9A-Z_]+)?"
    r"|(?P<recital>REC_)|(?P<annex>ANNEX)|(?P<division>(?:PART|TITLE|CHAPTER|SECTION|SUBSECTION)_))"
)
_JURISDICTION_PREFIX: Final = re.compile(r"^(IE|UK|NI|EU|GB):")


@dataclass(frozen=True, slots=True)
class RetrievalDoc:
    """One node as the retriever sees it. ``text`` is what is indexed (headings included)."""

    id: str
    kind: DocKind
    label: str
    heading: str
    number: str
    body: str
    instrument_id: str | None
    parent_id: str | None
    jurisdiction: str | None
    node: GraphNode = field(compare=False, repr=False)
    provisional: bool = False
    valid_from: str | None = None  # first day in force (ISO); None: not stated
    valid_to: str | None = None  # last day in force; None: still in force

    @property
    def text(self) -> str:
        return f"{self.heading}\n{self.body}" if self.heading else self.body


def jurisdiction_of_id(node_id: str) -> str | None:
    """``IE``/``UK``/``NI``/``EU``/``GB`` from an id prefix, else ``None``."""
    match = _JURISDICTION_PREFIX.match(node_id)
    return match.group(1) if match else None


def _first(props: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = props.get(key)
        if value:
            return str(value)
    return ""


def _rule_body(props: dict[str, Any], heading: str) -> str:
    """Value, description, citation of a rule node: what the old evidence index described."""
    parts = []
    if props.get("title") and props["title"] != heading:
        parts.append(str(props["title"]))
    if isinstance(props.get("value"), int | float):
        # As people write it ("1,000,000 EUR"), never ":g"'s "1e+06"; the tokeniser reads
        # "1,000,000" as the same token as "1000000".
        parts.append(f"{amount(props['value'], grouped=True)} {props.get('unit', '')}".strip())
    body = _first(props, "description", "definition", "text")
    if body and body != heading:
        parts.append(body)
    for key in ("citation", "code", "number"):
        if props.get(key):
            parts.append(str(props[key]))
    return "\n".join(parts)


def _provision_kind(match: re.Match[str]) -> DocKind:
    if match["article"]:
        return DocKind.PARAGRAPH if match["sub"] else DocKind.ARTICLE
    if match["recital"]:
        return DocKind.RECITAL
    if match["annex"]:
        return DocKind.ANNEX
    return DocKind.DIVISION


def document_of(node: GraphNode) -> RetrievalDoc | None:
    """The retriever's view of ``node``, or ``None`` when the node is never evidence."""
    doc = _document(node)
    props = node.properties
    if doc is None or not (props.get("valid_from") or props.get("valid_to")):
        return doc
    return replace(
        doc,
        valid_from=_first(props, "valid_from") or None,
        valid_to=_first(props, "valid_to") or None,
    )


def _document(node: GraphNode) -> RetrievalDoc | None:
    props = node.properties
    label = node.label
    if label in _NOT_EVIDENCE:
        return None
    provisional = is_quarantined(node)
    match = _PROVISION_ID.match(node.id)
    if match or label in _PROVISION_LABELS:
        kind = _provision_kind(match) if match else _PROVISION_LABELS[label]
        instrument = _first(props, "instrument", "instrument_id") or (
            match["instrument"] if match else ""
        )
        return RetrievalDoc(
            id=node.id,
            kind=kind,
            label=label,
            # Not ``name``: for provisions it is "AI Act Article 5(1)", a citation, not a heading.
            heading=_first(props, "title", "heading"),
            number=_first(props, "number"),
            body=_first(props, "text", "description"),
            instrument_id=instrument or None,
            parent_id=_first(props, "parent", "parent_id") or None,
            jurisdiction=jurisdiction_of_id(node.id) or "EU",
            node=node,
        )
    if label == "Concept":
        return RetrievalDoc(
            id=node.id,
            kind=DocKind.CONCEPT,
            label=label,
            heading=_first(props, "pref_label", "name"),
            number="",
            body=_first(props, "definition", "description"),
            instrument_id=None,
            parent_id=None,
            jurisdiction=_first(props, "jurisdiction") or None,
            node=node,
            provisional=provisional,
        )
    heading = _first(props, "name", "title", "pref_label", "text") or node.id
    is_instrument = label in _INSTRUMENT_LABELS
    return RetrievalDoc(
        id=node.id,
        kind=DocKind.INSTRUMENT if is_instrument else DocKind.RULE,
        label=label,
        heading=heading,
        number=_first(props, "number"),
        body=_rule_body(props, heading),
        instrument_id=node.id if is_instrument else None,
        parent_id=None,
        jurisdiction=jurisdiction_of_id(node.id) or (node.id if label == "Jurisdiction" else None),
        node=node,
        provisional=provisional,
    )
