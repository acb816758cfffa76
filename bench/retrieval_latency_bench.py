"""Evidence retrieval latency on what a server holds: the 49 acts and the seeded rules graph,
the semantic channel on (ADR 0045, 0058).

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/retrieval_latency_bench.py [--rounds N]

Every question of the two retrieval dev sets, one ``Retriever.search`` each: *cold* (the
question encoded afresh, as a turn first sees it) and *warm* (its vector cached). Two clocks:
wall time, and the searching thread's CPU time (``time.thread_time``), which on a shared,
loaded machine estimates what an idle core would take (with one BLAS thread the whole search
runs in that thread). The load average before and after is printed: say it with the figures.
The index is kept in ``--cache`` between runs (``engine.retrieval.cache``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.retrieval_bench import BROAD, DEV, build_embedder, build_graph, vectors_for
from engine.retrieval import Retriever
from engine.retrieval.cache import IndexCache, build_retriever
from tools.retrieval_eval import load_jsonl


def _percentiles(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    return {
        "p50_ms": round(statistics.median(values), 1),
        "p95_ms": round(values[int(0.95 * (len(values) - 1))], 1),
        "max_ms": round(values[-1], 1),
    }


def timed(
    retriever: Retriever, questions: list[str], rounds: int, before: Callable[[], None] | None
) -> dict[str, object]:
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(rounds):
        for question in questions:
            if before is not None:
                before()
            start, start_cpu = time.perf_counter(), time.thread_time()
            retriever.search(question, 10)
            cpu.append((time.thread_time() - start_cpu) * 1000)
            wall.append((time.perf_counter() - start) * 1000)
    return {"searches": len(wall), "wall": _percentiles(wall), "cpu": _percentiles(cpu)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/regintel-latency-index"))
    args = parser.parse_args()
    nodes, edges = build_graph(rules=True)
    embedder = build_embedder("local")
    store, _ = vectors_for(nodes, embedder, compute=False)
    started = time.perf_counter()
    retriever = build_retriever(
        nodes, edges, embedder=embedder, vectors=store, cache=IndexCache(args.cache)
    )
    print(f"index: {len(retriever)} rows, ready in {time.perf_counter() - started:.1f} s")
    questions = [q.question for path in (DEV, BROAD) for q in load_jsonl(path)]
    for question in questions:  # warm up
        retriever.search(question, 10)
    load_before = os.getloadavg()
    cold = timed(retriever, questions, args.rounds, retriever.forget_queries)
    warm = timed(retriever, questions, max(args.rounds, 3), None)
    figures: dict[str, object] = {"cold_query_embedded": cold, "warm_cached_vector": warm}
    figures |= {"load_before": load_before, "load_after": os.getloadavg()}
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
