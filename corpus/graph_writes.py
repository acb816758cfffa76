"""A parsed act as graph writes (pure: no store, no Cypher).

Labels (``schema/graph.yaml``): the instrument is ``EURegulation`` / ``EUDirective`` /
``EUDecision``; provisions are ``Article``, ``Paragraph``, ``Recital``, ``Annex`` and
``Chapter`` (which also stands for parts, titles, sections and subsections: ``category`` says
which), and ``Definition`` (a defined term, ``PART_OF`` its article). A UN ECE regulation is an
``EURegulation``. Edges:

- ``PART_OF``: paragraph -> article -> innermost division -> ... -> instrument; recitals and
  annexes -> instrument;
- ``CITES``: provision -> provision or instrument, from :func:`corpus.references.find_references`.
  Targets in acts that are not parsed here are included with the label their id implies; the
  ingester keeps only the edges whose target exists in the graph;
- ``IN_JURISDICTION``: instrument -> ``EU``, as the seeds link their EU acts.

Every node is ``verified``: the text is the act as published in the Official Journal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from corpus.model import InstrumentKind, ParsedAct, Provision, ProvisionKind
from corpus.references import find_references
from graph.models import EdgeWrite, NodeWrite, PropertyValue

__all__ = [
    "EU_JURISDICTION",
    "INSTRUMENT_LABELS",
    "PROVISION_LABELS",
    "label_for_id",
    "to_graph_writes",
]

EU_JURISDICTION = "EU"
INSTRUMENT_LABELS: dict[InstrumentKind, str] = {
    InstrumentKind.REGULATION: "EURegulation",
    InstrumentKind.DIRECTIVE: "EUDirective",
    InstrumentKind.DECISION: "EUDecision",
    InstrumentKind.UN_REGULATION: "EURegulation",
}
PROVISION_LABELS: dict[ProvisionKind, str] = {
    ProvisionKind.ARTICLE: "Article",
    ProvisionKind.PARAGRAPH: "Paragraph",
    ProvisionKind.RECITAL: "Recital",
    ProvisionKind.ANNEX: "Annex",
    ProvisionKind.DEFINITION: "Definition",
    ProvisionKind.PART: "Chapter",
    ProvisionKind.TITLE: "Chapter",
    ProvisionKind.CHAPTER: "Chapter",
    ProvisionKind.SECTION: "Chapter",
    ProvisionKind.SUBSECTION: "Chapter",
}
_INSTRUMENT_ID = re.compile(r"^EU:(?:(?P<prefix>REG|DIR|DEC)_\d{4}_\d+|UNECE_R\d+)$")
_LOCAL_LABELS = (
    (re.compile(r"^ART_[^_]+_DEF_\w+$"), "Definition"),
    (re.compile(r"^ART_[^_]+$"), "Article"),
    (re.compile(r"^ART_[^_]+_[^_]+$"), "Paragraph"),
    (re.compile(r"^REC_\w+$"), "Recital"),
    (re.compile(r"^ANNEX(?:_\w+)?$"), "Annex"),
    (re.compile(r"^(?:PART|TITLE|CHAPTER|SECTION|SUBSECTION)_\w+$"), "Chapter"),
)
_PREFIX_KINDS = {
    "REG": InstrumentKind.REGULATION,
    "DIR": InstrumentKind.DIRECTIVE,
    "DEC": InstrumentKind.DECISION,
}
_PRINTED_KIND = {
    ProvisionKind.ARTICLE: "Article",
    ProvisionKind.PARAGRAPH: "Article",
    ProvisionKind.RECITAL: "recital",
    ProvisionKind.ANNEX: "Annex",
}


def label_for_id(node_id: str) -> str | None:
    """The label an id of this scheme implies (``...:ART_5_1`` -> ``Paragraph``), else None."""
    instrument, _, local = node_id.partition(":")[2].partition(":")
    match = _INSTRUMENT_ID.match(f"EU:{instrument}")
    if not node_id.startswith("EU:") or match is None:
        return None
    if not local:
        kind = _PREFIX_KINDS[match["prefix"]] if match["prefix"] else InstrumentKind.REGULATION
        return INSTRUMENT_LABELS[kind]
    return next((label for pattern, label in _LOCAL_LABELS if pattern.match(local)), None)


def to_graph_writes(
    act: ParsedAct, others: Iterable[ParsedAct] = ()
) -> tuple[list[NodeWrite], list[EdgeWrite]]:
    """Nodes and edges for ``act``; ``others`` are acts its citations may resolve into."""
    instrument = act.instrument
    instrument_label = INSTRUMENT_LABELS[instrument.kind]
    act_name = instrument.short_name or instrument.citation
    nodes = [NodeWrite(id=instrument.id, label=instrument_label, properties=_instrument(act))]
    labels = {instrument.id: instrument_label}
    for provision in act.provisions:
        label = PROVISION_LABELS[provision.kind]
        labels[provision.id] = label
        nodes.append(
            NodeWrite(id=provision.id, label=label, properties=_provision(provision, act, act_name))
        )
    edges = [
        EdgeWrite(
            type="IN_JURISDICTION",
            source_id=instrument.id,
            source_label=instrument_label,
            target_id=EU_JURISDICTION,
            target_label="Jurisdiction",
        )
    ]
    edges.extend(
        EdgeWrite(
            type="PART_OF",
            source_id=p.id,
            source_label=labels[p.id],
            target_id=p.parent_id,
            target_label=labels[p.parent_id],
        )
        for p in act.provisions
    )
    for reference in find_references(act, others):
        target_label = labels.get(reference.target_id) or label_for_id(reference.target_id)
        if target_label is None:
            continue
        edges.append(
            EdgeWrite(
                type="CITES",
                source_id=reference.source_id,
                source_label=labels[reference.source_id],
                target_id=reference.target_id,
                target_label=target_label,
            )
        )
    return nodes, edges


def _instrument(act: ParsedAct) -> dict[str, PropertyValue]:
    instrument = act.instrument
    name = instrument.citation
    if instrument.short_name:
        name = f"{instrument.citation} ({instrument.short_name})"
    props: dict[str, PropertyValue] = {
        "name": name,
        "title": instrument.title,
        "number": f"{instrument.year}/{instrument.number}",
        "celex": instrument.celex,
        "eli": instrument.eli,
        "source_urls": list(dict.fromkeys([instrument.eli, instrument.source_url])),
        "verified": True,
    }
    if instrument.valid_from:
        props["valid_from"] = instrument.valid_from
    if instrument.applies_from:
        props["effective_from"] = instrument.applies_from
    return props


def _provision(provision: Provision, act: ParsedAct, act_name: str) -> dict[str, PropertyValue]:
    printed = _printed(provision, act)
    props: dict[str, PropertyValue] = {
        "name": f"{act_name} {printed}",
        "number": provision.number,
        "citation": f"{act_name}, {printed}",
        "celex": act.instrument.celex,
        "instrument": act.instrument.id,
        "position": provision.order,
        "source_urls": [provision.url],
        "verified": True,
    }
    if provision.heading:
        props["title"] = provision.heading
    if provision.text:
        props["text"] = provision.text
    if PROVISION_LABELS[provision.kind] == "Chapter":
        props["category"] = provision.kind.value
    elif act.instrument.valid_from:
        # A consolidated version: its text is in force from the version's date.
        props["valid_from"] = act.instrument.valid_from
    return props


def _printed(provision: Provision, act: ParsedAct) -> str:
    """How it is cited: ``Article 5(1)``, ``recital (12)``, ``Chapter III, Section 2``."""
    kind = provision.kind
    if kind is ProvisionKind.DEFINITION:
        article = act.by_id.get(provision.parent_id)
        return f"Article {article.number if article else '?'}, definition of ‘{provision.number}’"
    if kind is ProvisionKind.RECITAL:
        return f"recital ({provision.number})"
    if kind is ProvisionKind.ANNEX and not provision.number:
        return "Annex"
    if kind in _PRINTED_KIND:
        return f"{_PRINTED_KIND[kind]} {provision.number}"
    path = [provision]
    while (parent := act.by_id.get(path[-1].parent_id)) is not None:
        path.append(parent)
    return ", ".join(f"{p.kind.value.capitalize()} {p.number}" for p in reversed(path))
