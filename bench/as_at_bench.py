"""Evidence retrieval with the as-at date filter against without, on the full graph (ADR 0032).

    .venv/bin/python bench/as_at_bench.py [--rounds 5] [--json out.json]

The full graph is what ``regintel seed`` writes: the AI Act and the GDPR (parsed with
``corpus``), the rules of ``seeds/rules`` with ``valid_from``/``valid_to`` derived as the seeder
derives them, and the VAT rate history of ``seeds/tax_rates`` (claims and conflicts). Questions:
the dev set plus VAT-rate questions. Each question is searched without a window and with one
(alternating, so both see the same machine noise); the date words are removed from the query
the way the turn removes them. The filter must not cost more than 20 % at p50 or p95.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from retrieval_bench import DEV, act_graph, rules_graph  # noqa: E402

from corpus.parse import shipped_acts  # noqa: E402
from engine.as_at import find_as_at  # noqa: E402
from engine.rate_history import find_conflicts, history_writes, load_history  # noqa: E402
from engine.retrieval import Retriever  # noqa: E402
from graph.models import GraphEdge, GraphNode  # noqa: E402
from tools.retrieval_eval import load_jsonl  # noqa: E402

# Today (everything in force: the pure cost of the mask), and past days that filter out acts.
WINDOWS = [
    ("2026-11-23", "2026-11-23"),
    ("2020-12-01", "2020-12-01"),
    ("2022-12-01", "2022-12-01"),
    ("2023-01-01", "2023-12-31"),
]
VAT = [
    "What was the standard rate of VAT in Ireland on 1 December 2020?",
    "What was the standard rate of VAT in Ireland in 2022?",
    "What was the UK standard rate of VAT in December 2009?",
    "Which VAT rates applied in Ireland for the 2023 tax year?",
]


def full_graph() -> tuple[list[GraphNode], list[GraphEdge]]:
    nodes, edges = act_graph(shipped_acts())
    by_id = {node.id: node for node in nodes}
    rule_nodes, rule_edges = rules_graph()
    for node in rule_nodes:
        props = dict(node.properties)
        for old, new in (("effective_from", "valid_from"), ("effective_to", "valid_to")):
            if props.get(old) and new not in props:
                props[new] = props[old]
        stored = by_id.get(node.id)
        merged = {**props, **stored.properties} if stored is not None else props
        by_id[node.id] = GraphNode(id=node.id, label=node.label, properties=merged)
    claims = load_history()
    history_nodes, history_edges = history_writes(claims, find_conflicts(claims))
    for write in history_nodes:
        by_id[write.id] = GraphNode(id=write.id, label=write.label, properties=write.properties)
    edges += rule_edges
    edges += [GraphEdge(source=e.source_id, target=e.target_id, type=e.type) for e in history_edges]
    return list(by_id.values()), edges


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    nodes, edges = full_graph()
    started = time.perf_counter()
    retriever = Retriever(nodes, edges)
    build_ms = (time.perf_counter() - started) * 1000
    questions = [q.question for q in load_jsonl(DEV)] + VAT
    cases: list[tuple[str, tuple[str, str]]] = []
    for index, question in enumerate(questions):
        named = find_as_at(question, ["IE"])
        if named is not None:
            cases.append((named.without_date(question), named.window()))
        else:  # three in four dev questions today, the rest on a past day
            cases.append((question, WINDOWS[0] if index % 4 else WINDOWS[1 + index % 3]))
    for query, window in cases:  # warm up both paths
        retriever.search(query, 10)
        retriever.search(query, 10, as_at=window)
    plain: list[float] = []
    dated: list[float] = []
    for round_number in range(args.rounds):
        for query, window in cases:
            order = (False, True) if round_number % 2 == 0 else (True, False)
            for with_filter in order:
                start = time.perf_counter()
                retriever.search(query, 10, as_at=window if with_filter else None)
                (dated if with_filter else plain).append((time.perf_counter() - start) * 1000)
    without = {"p50_ms": statistics.median(plain), "p95_ms": percentile(plain, 0.95)}
    filtered = {"p50_ms": statistics.median(dated), "p95_ms": percentile(dated, 0.95)}
    figures: dict[str, object] = {
        "graph": {"nodes": len(nodes), "edges": len(edges), "searchable": len(retriever),
                  "build_ms": round(build_ms, 1)},
        "searches_each": len(plain),
        "without_filter": {k: round(v, 3) for k, v in without.items()},
        "with_filter": {k: round(v, 3) for k, v in filtered.items()},
        "overhead_p50": round(filtered["p50_ms"] / without["p50_ms"] - 1, 3),
        "overhead_p95": round(filtered["p95_ms"] / without["p95_ms"] - 1, 3),
    }  # fmt: skip
    print(json.dumps(figures, indent=2))
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
