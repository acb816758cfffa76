"""Load the seed rules graph through ``GraphWriteService``: the rule nodes of
``seeds/rules/*.yaml`` and the legal acts that ship with the project (``seeds/legal/``).

Order: rule nodes (they include the jurisdictions the acts hang off), then the acts
(:mod:`engine.legal_ingest`), then the rule edges and concepts, which may point at provisions
of the acts (a rule that cites ``EU:REG_2016_679:ART_33``). The seeds hold no summary of an
article the project ingests: the provision itself is the node (no competing duplicates).

Seeds take the same path as every other write (ingress guard, timestamps), so running the seed
twice changes nothing: every upsert comes back UNCHANGED and ``created_at`` stays put. Seeded
concepts are ``confirmed`` (they were reviewed with the seed data); captured ones start
``provisional``.

Dated facts (ADR 0031): a rule node's ``effective_from`` / ``effective_to`` are copied to
``valid_from`` / ``valid_to`` (what the as-at filter reads) where its label has them; the VAT
rate history of ``seeds/tax_rates/`` (:mod:`engine.rate_history`) is written beside the rules,
each source's claim its own node, with a ``SourceConflict`` where they disagree; and
``seeds/validity.yaml`` dates nodes written by other paths (the ingested acts), merged into them.

Material changes (ADR 0035): a rule node or claim whose stored value the seed changes is
screened first (:mod:`engine.material_changes`): a material change is written with a
``ChangeEvent``, an implausible one keeps the stored value and records a ``needs_review`` event,
and a rewording or rounding is written without one.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from corpus import shipped_acts
from engine.concepts import CapturedConcept, concept_id
from engine.legal_ingest import IngestProgress, IngestReport, ingest_acts
from engine.material_changes import screen_node_writes
from engine.rate_history import DEFAULT_TABLES, find_conflicts, history_writes, load_history
from engine.self_population import ConceptWrite, ConceptWriter
from graph.models import EdgeWrite, NodeWrite, WriteOutcome, WriteResult
from graph.port import GraphReader
from graph.schema import load_schema
from graph.write_service import GraphWriteService

__all__ = [
    "DEFAULT_SEEDS",
    "DEFAULT_VALIDITY",
    "SeedFileError",
    "SeedReport",
    "read_seed_files",
    "seed_graph",
]

DEFAULT_SEEDS = Path(__file__).resolve().parents[1] / "seeds" / "rules"
DEFAULT_VALIDITY = DEFAULT_SEEDS.parent / "validity.yaml"
# The statute's dates a node already carries, and the names the as-at filter reads.
_DATES = (("effective_from", "valid_from"), ("effective_to", "valid_to"))


class SeedFileError(ValueError):
    """A seed file refers to something that does not exist (a bug in the seed data)."""


@dataclass
class SeedReport:
    nodes: Counter[str] = field(default_factory=Counter)
    edges: Counter[str] = field(default_factory=Counter)
    concepts: Counter[str] = field(default_factory=Counter)
    legal: IngestReport = field(default_factory=IngestReport)
    # The VAT rate history (claims, conflicts and their edges) and the dates of other nodes.
    history: Counter[str] = field(default_factory=Counter)
    # Material changes of stored values (ADR 0035): ``applied`` / ``needs_review`` events.
    changes: Counter[str] = field(default_factory=Counter)
    # BROADER / RELATED edges between seeded concepts (``broader`` / ``related`` in the seed).
    concept_links: Counter[str] = field(default_factory=Counter)

    def summary(self) -> dict[str, object]:
        return {
            "nodes": dict(self.nodes),
            "edges": dict(self.edges),
            "concepts": dict(self.concepts),
            "concept_links": dict(self.concept_links),
            "legal": self.legal.summary(),
            "history": dict(self.history),
            "changes": dict(self.changes),
        }


def read_seed_files(folder: Path = DEFAULT_SEEDS) -> dict[str, list[dict[str, Any]]]:
    merged: dict[str, list[dict[str, Any]]] = {"nodes": [], "edges": [], "concepts": []}
    for file in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
        for key in merged:
            merged[key] += data.get(key) or []
    return merged


async def seed_graph(
    reader: GraphReader,
    writer: GraphWriteService,
    folder: Path = DEFAULT_SEEDS,
    legal: Sequence[Path] | None = None,
    progress: IngestProgress | None = None,
    *,
    tax_rates: Path | None = DEFAULT_TABLES,
    validity: Path | None = DEFAULT_VALIDITY,
) -> SeedReport:
    """Seed rules and the shipped acts (``legal``: the files of ``seeds/legal`` by default),
    the VAT rate history of ``tax_rates`` and the dates of ``validity`` (``None``: skip)."""
    data = read_seed_files(folder)
    report = SeedReport()
    dated = _dated_labels()
    nodes = [
        NodeWrite(
            id=n["id"],
            label=n["label"],
            properties=_with_validity(n.get("properties") or {}, n["label"] in dated),
        )
        for n in data["nodes"]
    ]
    labels = {node.id: node.label for node in nodes}
    for result in await _write_screened(reader, writer, nodes, report):
        report.nodes[result.outcome.value] += 1
    history_nodes: list[NodeWrite] = []
    history_edges: list[EdgeWrite] = []
    if tax_rates is not None:
        claims = load_history(tax_rates)
        history_nodes, history_edges = history_writes(claims, find_conflicts(claims))
        for result in await _write_screened(reader, writer, history_nodes, report):
            report.history[f"nodes_{result.outcome.value}"] += 1

    report.legal = await ingest_acts(
        shipped_acts() if legal is None else legal, reader, writer, progress
    )
    if validity is not None:
        for result in await _write_validity(reader, writer, validity):
            report.history[f"dated_{result.outcome.value}"] += 1
    referenced = {e["source"] for e in data["edges"]} | {e["target"] for e in data["edges"]}
    referenced |= {a for c in data["concepts"] for a in c.get("aligns_with") or []}
    stored = await reader.get_nodes(sorted(referenced - labels.keys()))
    labels |= {node.id: node.label for node in stored}

    edges = []
    for edge in data["edges"]:
        source, target = edge["source"], edge["target"]
        if source not in labels or target not in labels:
            raise SeedFileError(f"edge {source} -[{edge['type']}]-> {target}: unknown endpoint")
        edges.append(
            EdgeWrite(
                type=edge["type"],
                source_id=source,
                source_label=labels[source],
                target_id=target,
                target_label=labels[target],
                properties=edge.get("properties") or {},
            )
        )
    for result in await writer.upsert_edges(edges):
        report.edges[result.outcome.value] += 1
    for result in await writer.upsert_edges(history_edges):
        report.history[f"edges_{result.outcome.value}"] += 1

    concepts = ConceptWriter(reader, writer)
    for raw in data["concepts"]:
        aligns = raw.get("aligns_with") or []
        if missing := [a for a in aligns if a not in labels]:
            raise SeedFileError(f"concept {raw.get('kind')}: unknown aligns_with {missing}")
        concept = CapturedConcept(
            domain=raw["domain"],
            kind=raw["kind"],
            jurisdiction=raw["jurisdiction"],
            prefLabel=raw["pref_label"],
            # hidden labels (SKOS hiddenLabel: former names, other languages; ADR 0049) are
            # labels for matching like the alternative ones
            altLabels=[*(raw.get("alt_labels") or []), *(raw.get("hidden_labels") or [])],
            definition=raw.get("definition"),
            sourceUrls=raw.get("source_urls") or [],
        )
        outcome: WriteOutcome = await concepts.write(
            ConceptWrite(
                concept=concept,
                status="confirmed",
                scheme="seed",
                aligns_with=[(a, labels[a]) for a in aligns],
                notation=raw.get("notation"),
            )
        )
        report.concepts[outcome.value] += 1
    for result in await writer.upsert_edges(_concept_links(data["concepts"])):
        report.concept_links[result.outcome.value] += 1
    return report


#: A seeded concept's SKOS links to other seeded concepts: ``broader`` (it is a part or a kind
#: of the target: a rate, band, allowance, credit, class, charge, form or payment of it) and
#: ``related``. A narrower concept is never an alt label of its parent (ADR 0060 addendum).
_CONCEPT_LINKS = (("broader", "BROADER"), ("related", "RELATED"))


def _concept_links(raw_concepts: Sequence[dict[str, Any]]) -> list[EdgeWrite]:
    seeded = {concept_id(c["domain"], c["jurisdiction"], c["kind"]) for c in raw_concepts}
    edges = []
    for raw in raw_concepts:
        source = concept_id(raw["domain"], raw["jurisdiction"], raw["kind"])
        for field_name, edge_type in _CONCEPT_LINKS:
            for target in raw.get(field_name) or []:
                if target not in seeded or target == source:
                    raise SeedFileError(
                        f"concept {source}: {field_name} {target!r} is no other seeded concept"
                    )
                edges.append(
                    EdgeWrite(
                        type=edge_type,
                        source_id=source,
                        source_label="Concept",
                        target_id=target,
                        target_label="Concept",
                    )
                )
    return edges


async def _write_screened(
    reader: GraphReader, writer: GraphWriteService, nodes: Sequence[NodeWrite], report: SeedReport
) -> list[WriteResult]:
    """Upsert ``nodes`` after the material-change screen, then the change events it made."""
    screened = await screen_node_writes(reader, nodes, origin="seed")
    results = await writer.upsert_nodes(screened.nodes)
    if screened.events:
        status = {event.id: str(event.properties["status"]) for event in screened.events}
        for result in await writer.upsert_nodes(screened.events):
            if result.outcome is WriteOutcome.CREATED and result.node_id in status:
                report.changes[status[result.node_id]] += 1  # a change seen before is not new
        await writer.upsert_edges(screened.edges)
    return results


def _dated_labels() -> frozenset[str]:
    schema = load_schema()
    return frozenset(
        label for label in schema.labels if "valid_from" in schema.allowed_properties(label)
    )


def _with_validity(props: dict[str, Any], dated: bool) -> dict[str, Any]:
    """``valid_from`` / ``valid_to`` from the statute's dates, unless the seed gives its own."""
    if not dated:
        return props
    copied = {new: props[old] for old, new in _DATES if props.get(old) and new not in props}
    return {**props, **copied}


async def _write_validity(
    reader: GraphReader, writer: GraphWriteService, path: Path
) -> list[WriteResult]:
    """Merge the dates of ``path`` (``[{id, valid_from, ...}]``) into nodes that exist."""
    entries = yaml.safe_load(await asyncio.to_thread(path.read_text, encoding="utf-8")) or []
    stored = {node.id: node.label for node in await reader.get_nodes([e["id"] for e in entries])}
    if missing := sorted({e["id"] for e in entries} - stored.keys()):
        raise SeedFileError(f"{path.name}: unknown node ids {missing}")
    return await writer.upsert_nodes(
        [
            NodeWrite(
                id=e["id"],
                label=stored[e["id"]],
                properties={k: v for k, v in e.items() if k != "id"},
            )
            for e in entries
        ]
    )
