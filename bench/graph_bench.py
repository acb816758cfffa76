"""Graph backend benchmark: Ladybug (embedded) against Bolt (ArcadeDB stand-in), in one run.

    .venv/bin/python bench/graph_bench.py [--nodes 1000] [--edges 1500] [--singles 500]

For each backend it measures, on a fresh store with the schema initialised:

- bulk seed: upsert ``--nodes`` synthetic nodes and then ``--edges`` edges in batches of
  ``--batch`` (as ``GraphWriteService`` would), then the same seed again (all UNCHANGED: what a
  repeated ``regintel seed`` costs);
- single-upsert latency: ``--singles`` one-node upserts, half creating a concept and half
  changing one, reported as p50 / p99 / max.

The synthetic graph conforms to ``schema/graph.yaml`` (regimes, benefits, rates, concepts and
their labels). ArcadeDB is started with the test launcher (``tests/support/arcadedb.py``); the
Bolt backend talks to it with dialect ``neo4j``. Figures from ArcadeDB say how the Bolt code
path behaves, not how fast Memgraph is.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `tests` is not an installed package
    sys.path.insert(0, str(ROOT))

from graph.factory import build_graph_store  # noqa: E402
from graph.models import EdgeWrite, NodeWrite, WriteOutcome, utc_timestamp  # noqa: E402
from graph.port import GraphStore  # noqa: E402
from graph.schema import load_schema  # noqa: E402
from tests.support.arcadedb import running_arcadedb  # noqa: E402


@dataclass
class Figures:
    seed_s: float = 0.0
    reseed_s: float = 0.0
    nodes: int = 0
    edges: int = 0
    reseed_unchanged: bool = False
    single_ms: list[float] = field(default_factory=list)


def synthetic_graph(n_nodes: int, n_edges: int) -> tuple[list[NodeWrite], list[EdgeWrite]]:
    """Nodes split 10% regimes, 30% benefits, 30% rates, 15% concepts, 15% labels; edges drawn
    round-robin from the relationship kinds those labels allow."""
    share = {"Regime": 0.10, "Benefit": 0.30, "Rate": 0.30, "Concept": 0.15}
    counts = {label: max(1, int(n_nodes * part)) for label, part in share.items()}
    counts["Label"] = max(1, n_nodes - sum(counts.values()))
    ids = {
        label: [f"BENCH:{label.upper()}:{i:05d}" for i in range(n)] for label, n in counts.items()
    }
    url = ["https://example.org/regintel/bench"]
    nodes: list[NodeWrite] = []
    for i, node_id in enumerate(ids["Regime"]):
        props = {"name": f"Regime {i}", "code": f"R{i}", "source_urls": url, "verified": True}
        nodes.append(NodeWrite(id=node_id, label="Regime", properties=props))  # type: ignore[arg-type]
    for i, node_id in enumerate(ids["Benefit"]):
        props = {"name": f"Benefit {i}", "description": "Synthetic benefit " * 4, "value": i * 1.5}
        nodes.append(NodeWrite(id=node_id, label="Benefit", properties=props))
    for i, node_id in enumerate(ids["Rate"]):
        props = {"name": f"Rate {i}", "value": (i % 40) / 100, "unit": "ratio", "basis": "gross"}
        nodes.append(NodeWrite(id=node_id, label="Rate", properties=props))
    for i, node_id in enumerate(ids["Concept"]):
        props = {
            "domain": "TAX",
            "kind": f"KIND_{i}",
            "jurisdiction": "IE",
            "pref_label": f"Concept {i}",
            "status": "confirmed",
        }
        nodes.append(NodeWrite(id=node_id, label="Concept", properties=props))
    for i, node_id in enumerate(ids["Label"]):
        props = {"text": f"Alias {i}", "normalised": f"alias {i}", "lang": "en"}
        nodes.append(NodeWrite(id=node_id, label="Label", properties=props))

    kinds: list[tuple[str, str, str]] = [
        ("UNDER_REGIME", "Benefit", "Regime"),
        ("HAS_RATE", "Regime", "Rate"),
        ("HAS_RATE", "Benefit", "Rate"),
        ("HAS_ALT_LABEL", "Concept", "Label"),
        ("ALIGNS_WITH", "Concept", "Benefit"),
        ("RELATED", "Concept", "Concept"),
    ]
    edges: dict[tuple[str, str, str], EdgeWrite] = {}
    i = 0
    while len(edges) < n_edges and i < n_edges * 20:
        rel, source, target = kinds[i % len(kinds)]
        step = i // len(kinds)
        s = ids[source][step % len(ids[source])]
        t = ids[target][(step * 7 + 3) % len(ids[target])]
        if s != t:
            edges[(s, rel, t)] = EdgeWrite(
                type=rel,
                source_id=s,
                source_label=source,
                target_id=t,
                target_label=target,
                properties={"weight": 1.0},
            )
        i += 1
    return nodes, list(edges.values())


async def seed(store: GraphStore, nodes: list[NodeWrite], edges: list[EdgeWrite], batch: int,
               now: str) -> list[WriteOutcome]:  # fmt: skip
    outcomes: list[WriteOutcome] = []
    for start in range(0, len(nodes), batch):
        outcomes += [r.outcome for r in await store.upsert_nodes(nodes[start : start + batch], now)]
    for start in range(0, len(edges), batch):
        outcomes += [r.outcome for r in await store.upsert_edges(edges[start : start + batch], now)]
    return outcomes


async def measure(store: GraphStore, args: argparse.Namespace) -> Figures:
    figures = Figures()
    nodes, edges = synthetic_graph(args.nodes, args.edges)
    figures.nodes, figures.edges = len(nodes), len(edges)
    await store.init_schema()

    started = time.perf_counter()
    await seed(store, nodes, edges, args.batch, utc_timestamp())
    figures.seed_s = time.perf_counter() - started

    started = time.perf_counter()
    again = await seed(store, nodes, edges, args.batch, utc_timestamp())
    figures.reseed_s = time.perf_counter() - started
    figures.reseed_unchanged = all(o is WriteOutcome.UNCHANGED for o in again)

    half = args.singles // 2
    for i in range(args.singles):
        n = i % max(half, 1)
        definition = "first" if i < half else "changed"
        node = NodeWrite(
            id=f"BENCH:SINGLE:{n:05d}",
            label="Concept",
            properties={"domain": "TAX", "kind": f"S{n}", "jurisdiction": "IE",
                        "pref_label": f"Single {n}", "definition": definition},
        )  # fmt: skip
        started = time.perf_counter()
        await store.upsert_nodes([node], utc_timestamp())
        figures.single_ms.append((time.perf_counter() - started) * 1000)
    return figures


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def table(results: dict[str, Figures]) -> str:
    rows: list[tuple[str, Callable[[Figures], str]]] = [
        ("nodes + edges seeded", lambda f: f"{f.nodes} + {f.edges}"),
        ("bulk seed (s)", lambda f: f"{f.seed_s:.2f}"),
        ("re-seed, all unchanged (s)", lambda f: f"{f.reseed_s:.2f}"),
        ("re-seed reported UNCHANGED", lambda f: "yes" if f.reseed_unchanged else "NO"),
        ("single upserts", lambda f: str(len(f.single_ms))),
        ("single upsert p50 (ms)", lambda f: f"{percentile(f.single_ms, 50):.2f}"),
        ("single upsert p99 (ms)", lambda f: f"{percentile(f.single_ms, 99):.2f}"),
        ("single upsert max (ms)", lambda f: f"{max(f.single_ms):.2f}"),
        ("single upsert mean (ms)", lambda f: f"{statistics.fmean(f.single_ms):.2f}"),
    ]
    names = list(results)
    width = max(len(r[0]) for r in rows)
    lines = [f"{'':{width}}  " + "  ".join(f"{n:>22}" for n in names)]
    for title, cell in rows:
        lines.append(f"{title:{width}}  " + "  ".join(f"{cell(results[n]):>22}" for n in names))
    return "\n".join(lines)


async def run_backend(store: GraphStore, args: argparse.Namespace) -> Figures:
    try:
        return await measure(store, args)
    finally:
        await store.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--edges", type=int, default=1500)
    parser.add_argument("--singles", type=int, default=500)
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    schema = load_schema()
    results: dict[str, Figures] = {}
    with tempfile.TemporaryDirectory(prefix="regintel-bench-") as tmp:
        ladybug = build_graph_store("ladybug", schema=schema, ladybug_path=Path(tmp) / "graph.lbug")
        results["ladybug (embedded)"] = asyncio.run(run_backend(ladybug, args))
    with running_arcadedb() as server:
        bolt = server.graph_store(schema)
        results["bolt (ArcadeDB, neo4j)"] = asyncio.run(run_backend(bolt, args))
    print(table(results))


if __name__ == "__main__":
    main()
