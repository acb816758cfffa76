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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from corpus import shipped_acts
from engine.concepts import CapturedConcept
from engine.legal_ingest import IngestProgress, IngestReport, ingest_acts
from engine.self_population import ConceptWrite, ConceptWriter
from graph.models import EdgeWrite, NodeWrite, WriteOutcome
from graph.port import GraphReader
from graph.write_service import GraphWriteService

__all__ = [
    "DEFAULT_SEEDS",
    "SeedFileError",
    "SeedReport",
    "read_seed_files",
    "seed_graph",
]

DEFAULT_SEEDS = Path(__file__).resolve().parents[1] / "seeds" / "rules"


class SeedFileError(ValueError):
    """A seed file refers to something that does not exist (a bug in the seed data)."""


@dataclass
class SeedReport:
    nodes: Counter[str] = field(default_factory=Counter)
    edges: Counter[str] = field(default_factory=Counter)
    concepts: Counter[str] = field(default_factory=Counter)
    legal: IngestReport = field(default_factory=IngestReport)

    def summary(self) -> dict[str, object]:
        return {
            "nodes": dict(self.nodes),
            "edges": dict(self.edges),
            "concepts": dict(self.concepts),
            "legal": self.legal.summary(),
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
) -> SeedReport:
    """Seed rules and the shipped acts (``legal``: the files of ``seeds/legal`` by default)."""
    data = read_seed_files(folder)
    report = SeedReport()
    nodes = [
        NodeWrite(id=n["id"], label=n["label"], properties=n.get("properties") or {})
        for n in data["nodes"]
    ]
    labels = {node.id: node.label for node in nodes}
    for result in await writer.upsert_nodes(nodes):
        report.nodes[result.outcome.value] += 1

    report.legal = await ingest_acts(
        shipped_acts() if legal is None else legal, reader, writer, progress
    )
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
                type=edge["type"], source_id=source, source_label=labels[source],
                target_id=target, target_label=labels[target],
                properties=edge.get("properties") or {},
            )
        )  # fmt: skip
    for result in await writer.upsert_edges(edges):
        report.edges[result.outcome.value] += 1

    concepts = ConceptWriter(reader, writer)
    for raw in data["concepts"]:
        aligns = raw.get("aligns_with") or []
        if missing := [a for a in aligns if a not in labels]:
            raise SeedFileError(f"concept {raw.get('kind')}: unknown aligns_with {missing}")
        concept = CapturedConcept(
            domain=raw["domain"], kind=raw["kind"], jurisdiction=raw["jurisdiction"],
            prefLabel=raw["pref_label"], altLabels=raw.get("alt_labels") or [],
            definition=raw.get("definition"), sourceUrls=raw.get("source_urls") or [],
        )  # fmt: skip
        outcome: WriteOutcome = await concepts.write(
            ConceptWrite(
                concept=concept, status="confirmed", scheme="seed",
                aligns_with=[(a, labels[a]) for a in aligns],
            )
        )  # fmt: skip
        report.concepts[outcome.value] += 1
    return report
