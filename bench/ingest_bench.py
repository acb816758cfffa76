"""Legal ingestion benchmark: the shipped AI Act and GDPR into Ladybug and into a Bolt server
(ArcadeDB stand-in), in one run, through the real write path (ingress guard included).

    .venv/bin/python bench/ingest_bench.py

For each backend, on a fresh store: parse + write both acts (first run: everything CREATED),
then the same again (everything UNCHANGED: what a repeated ``regintel seed`` costs), and the
graph's size afterwards. Also the time the parse and the ingress guard take on their own, so
the store's share can be read off. ArcadeDB figures say how the Bolt path behaves, not how
fast Memgraph is.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `tests` is not an installed package
    sys.path.insert(0, str(ROOT))

from corpus import parse_act, shipped_acts, to_graph_writes  # noqa: E402
from egress.pii import build_ingress_detector  # noqa: E402
from engine.legal_ingest import ingest_acts  # noqa: E402
from graph.factory import build_graph_store  # noqa: E402
from graph.ingress_guard import IngressGuard  # noqa: E402
from graph.port import GraphStore  # noqa: E402
from graph.schema import load_schema  # noqa: E402
from graph.write_service import GraphWriteService  # noqa: E402
from tests.support.arcadedb import running_arcadedb  # noqa: E402


async def run_backend(store: GraphStore) -> dict[str, object]:
    schema = load_schema()
    await store.init_schema()
    writer = GraphWriteService(store, IngressGuard(schema, build_ingress_detector()))
    try:
        start = time.perf_counter()
        first = await ingest_acts(shipped_acts(), store, writer)
        first_s = time.perf_counter() - start
        start = time.perf_counter()
        second = await ingest_acts(shipped_acts(), store, writer)
        second_s = time.perf_counter() - start
        counts = await store.counts()
    finally:
        await writer.aclose()
        await store.aclose()
    return {
        "ingest_s": round(first_s, 2),
        "reingest_s": round(second_s, 2),
        "all_unchanged": set(second.nodes) == {"unchanged"} and set(second.edges) == {"unchanged"},
        "nodes": counts.nodes,
        "edges": counts.edges,
        "created": dict(first.nodes),
        "skipped_edges": first.skipped_edges,
    }


def parse_and_guard() -> dict[str, float]:
    start = time.perf_counter()
    writes = [to_graph_writes(parse_act(path)) for path in shipped_acts()]
    parse_s = time.perf_counter() - start
    guard = IngressGuard(load_schema(), build_ingress_detector())
    start = time.perf_counter()
    for nodes, edges in writes:
        for i in range(0, len(nodes), 500):
            guard.check_nodes(nodes[i : i + 500])
        for i in range(0, len(edges), 500):
            guard.check_edges(edges[i : i + 500])
    return {"parse_s": round(parse_s, 2), "guard_s": round(time.perf_counter() - start, 2)}


def main() -> None:
    schema = load_schema()
    results: dict[str, dict[str, object]] = {}
    print("parse + to_graph_writes, ingress guard alone:", parse_and_guard())
    with tempfile.TemporaryDirectory(prefix="regintel-bench-") as tmp:
        ladybug = build_graph_store("ladybug", schema=schema, ladybug_path=Path(tmp) / "g.lbug")
        results["ladybug (embedded)"] = asyncio.run(run_backend(ladybug))
    with running_arcadedb() as server:
        bolt = server.graph_store(schema)
        results["bolt (ArcadeDB, neo4j)"] = asyncio.run(run_backend(bolt))
    keys = ["ingest_s", "reingest_s", "all_unchanged", "nodes", "edges", "skipped_edges"]
    print(f"{'':26}" + "".join(f"{k:>15}" for k in keys))
    for name, figures in results.items():
        print(f"{name:26}" + "".join(f"{figures[k]!s:>15}" for k in keys))


if __name__ == "__main__":
    main()
