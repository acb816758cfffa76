"""A parameter reader over the seed files (no graph store), shared by the scenario tests,
and the check that the seeds hold every parameter the engine names."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.seeding import read_seed_files
from graph.models import GraphEdge, GraphNode, GraphSnapshot
from scenarios.parameters import ANNUAL, SERIES, UK_ANNUAL, UNITED_KINGDOM, load_parameters

EXAMPLES = Path(__file__).resolve().parents[2] / "bench" / "data" / "scenario_examples.jsonl"


@functools.cache
def _seed_nodes() -> dict[str, dict[str, Any]]:
    return {n["id"]: n for n in read_seed_files()["nodes"]}


@functools.cache
def _seed_edges() -> tuple[GraphEdge, ...]:
    return tuple(GraphEdge(**e) for e in read_seed_files()["edges"])


class SeedReader:
    """``get_nodes`` over ``seeds/rules``; ``overrides`` replace properties of chosen nodes."""

    def __init__(self, overrides: dict[str, dict[str, Any] | None] | None = None) -> None:
        nodes = _seed_nodes()
        self.nodes: dict[str, GraphNode] = {}
        for node_id, raw in nodes.items():
            props = dict(raw.get("properties") or {})
            if overrides and node_id in overrides:
                change = overrides[node_id]
                if change is None:
                    continue  # the node is missing from this graph
                props.update(change)
            self.nodes[node_id] = GraphNode(id=node_id, label=raw["label"], properties=props)
        self.calls = 0

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        self.calls += 1
        return [self.nodes[i] for i in ids if i in self.nodes]

    async def snapshot(
        self, labels: Sequence[str] | None = None, limit: int = 1000
    ) -> GraphSnapshot:
        """The nodes of ``labels`` and the seed edges among them, as the graph store gives."""
        nodes = [n for n in self.nodes.values() if labels is None or n.label in labels][:limit]
        ids = {n.id for n in nodes}
        edges = [e for e in _seed_edges() if e.source in ids and e.target in ids]
        return GraphSnapshot(nodes=nodes, edges=edges)


def load_examples(split: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in EXAMPLES.read_text(encoding="utf-8").splitlines() if line]
    return [row for row in rows if row["split"] == split]


def money(value: str) -> Decimal:
    return Decimal(value)


pytestmark = [pytest.mark.unit, pytest.mark.anyio]


@pytest.mark.parametrize("year", [2024, 2025])
async def test_the_seeds_hold_every_parameter_the_engine_names(year: int) -> None:
    """Each catalogue name resolves to a node in force for the whole year, with a source."""
    params = await load_parameters(SeedReader(), year)
    assert params.problems == {}
    assert set(params.annual) == set(ANNUAL)
    assert set(params.series) == set(SERIES)
    for param in [*params.annual.values(), *(p for s in params.series.values() for p in s)]:
        assert param.source and param.source.startswith("https://")


@pytest.mark.parametrize("year", [2024, 2025])
async def test_the_seeds_hold_every_uk_parameter_for_its_tax_year(year: int) -> None:
    params = await load_parameters(SeedReader(), year, UNITED_KINGDOM)
    assert params.problems == {}
    assert set(params.annual) == set(UK_ANNUAL)
    assert (params.first, params.last) == (date(year, 4, 6), date(year + 1, 4, 5))
