"""The evidence index's build over the 49 acts and the seeded rules, before and after the disk
cache and the token memo (ADR 0045), side by side in one run:

    .venv/bin/python bench/retrieval_index_bench.py [--json out.json]

1. ``build`` — a build in a fresh process state (no cache, nothing tokenised yet): what every
   start and every refresh cost before;
2. ``build_and_save`` — the first start with a cache: the same build, keyed and saved;
3. ``start_unchanged`` — a start on the unchanged graph: the key, then the saved build loaded;
4. ``confirmation`` — a refresh after one concept is confirmed (one node and its label added):
   absorbed into a copy of the loaded index (only those nodes indexed);
5. ``confirmation_rebuild`` — the same graph built (what a change absorption refuses costs: a
   new key, so a build, which tokenises only the new node);
6. ``confirmation_before`` — the same build with the token memo emptied (how it was before).

Each search of a loaded retriever is checked to return what the built one returns.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.retrieval_bench import build_embedder, build_graph, vectors_for
from engine.retrieval import rows
from engine.retrieval.cache import IndexCache, build_retriever
from graph.models import GraphEdge, GraphNode

QUESTIONS = (
    "Can I ask a company to delete everything it holds about me?",
    "When must a bank report a major ICT incident?",
    "What is the VAT rate on restaurant meals in Ireland?",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    nodes, edges = build_graph(rules=True)
    embedder = build_embedder("local")
    store, _ = vectors_for(nodes, embedder, compute=False)
    out: dict[str, Any] = {"nodes": len(nodes), "edges": len(edges)}

    def timed(name: str, **kwargs: Any) -> Any:
        started = time.perf_counter()
        built = build_retriever(nodes_now, edges_now, embedder=embedder, vectors=store, **kwargs)
        out[f"{name}_s"] = round(time.perf_counter() - started, 2)
        print(f"{name}: {out[f'{name}_s']} s", flush=True)
        return built

    nodes_now, edges_now = nodes, edges
    with tempfile.TemporaryDirectory() as folder:
        cache = IndexCache(Path(folder))
        rows._TOKENS.clear()
        fresh = timed("build")
        rows._TOKENS.clear()
        timed("build_and_save", cache=cache)
        [saved] = list(Path(folder).glob("*.pickle"))
        out["cache_file_mib"] = round(saved.stat().st_size / 2**20, 1)
        loaded = timed("start_unchanged", cache=cache)
        for question in QUESTIONS:
            assert loaded.search(question, 10).ids == fresh.search(question, 10).ids, question
        concept = GraphNode(
            id="EU:CONCEPT:BENCH_ICT_INCIDENT", label="Concept",
            properties={"domain": "EU", "kind": "BENCH_ICT_INCIDENT", "jurisdiction": "EU",
                        "pref_label": "major ICT-related incident report", "status": "confirmed"},
        )  # fmt: skip
        label = GraphNode(
            id="LABEL:bench_ict_incident_report", label="Label",
            properties={"text": "ICT incident report", "status": "confirmed"},
        )  # fmt: skip
        nodes_now = [*nodes, concept, label]
        edges_now = [*edges, GraphEdge(source=concept.id, target=label.id, type="HAS_ALT_LABEL")]
        absorbed = timed("confirmation", cache=cache, previous=loaded)
        assert absorbed is not loaded and len(absorbed) == len(loaded) + 1
        assert concept.id in absorbed.search("ICT incident report", 10).ids
        timed("confirmation_rebuild")
        rows._TOKENS.clear()
        timed("confirmation_before")
    print(json.dumps(out, indent=2))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
