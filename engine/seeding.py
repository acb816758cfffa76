"""Load the seed rules graph (``seeds/rules/*.yaml``) through ``GraphWriteService``.

Seeds take the same path as every other write (ingress guard, timestamps), so running the seed
twice changes nothing: every upsert comes back UNCHANGED and ``created_at`` stays put. Seeded
concepts are ``confirmed`` (they were reviewed with the seed data); captured ones start
``provisional``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine.concepts import CapturedConcept
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

    def summary(self) -> dict[str, dict[str, int]]:
        return {
            "nodes": dict(self.nodes),
            "edges": dict(self.edges),
            "concepts": dict(self.concepts),
        }


def read_seed_files(folder: Path = DEFAULT_SEEDS) -> dict[str, list[dict[str, Any]]]:
    merged: dict[str, list[dict[str, Any]]] = {"nodes": [], "edges": [], "concepts": []}
    for file in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
        for key in merged:
            merged[key] += data.get(key) or []
    return merged


async def seed_graph(
    reader: GraphReader, writer: GraphWriteService, folder: Path = DEFAULT_SEEDS
) -> SeedReport:
    data = read_seed_files(folder)
    report = SeedReport()
    nodes = [
        NodeWrite(id=n["id"], label=n["label"], properties=n.get("properties") or {})
        for n in data["nodes"]
    ]
    labels = {node.id: node.label for node in nodes}
    for result in await writer.upsert_nodes(nodes):
        report.nodes[result.outcome.value] += 1

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
