"""Retrieval benchmark: the AI Act + GDPR graph, the dev set and SCRA, latency and build cost.

    .venv/bin/python bench/retrieval_bench.py                  # provisions only (the dev graph)
    .venv/bin/python bench/retrieval_bench.py --rules          # plus the seeded rules graph
    .venv/bin/python bench/retrieval_bench.py --calibrate      # gate thresholds on the dev set
    .venv/bin/python bench/retrieval_bench.py --set recital_flow=0 --set phrase_weight=0  # ablate
    .venv/bin/python bench/retrieval_bench.py --json out.json

Acts are parsed with ``corpus`` and mapped with ``corpus.graph_writes`` exactly as the ingester
writes them; ``--rules`` adds ``seeds/rules/*.yaml`` (nodes, edges, and concepts with their
labels and alignments) as the seeder writes them, the acts winning where ids collide. Latency is
measured warm: every question of both sets, ``--rounds`` times, one ``search`` call each.
``--extra`` takes question files with no gold (h2o's ``question_type`` JSON or plain text, one
question a line), all answerable: only their false-refusal rate is reported.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus.graph_writes import to_graph_writes
from corpus.parse import parse_act, shipped_acts
from engine.concepts import CapturedConcept
from engine.retrieval import GateThresholds, RetrievalConfig, Retriever
from engine.retrieval_eval import EvalQuestion, evaluate, load_jsonl, load_scra
from engine.seeding import read_seed_files
from engine.self_population import ConceptWrite, ConceptWriter
from graph.models import GraphEdge, GraphNode

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "bench" / "data" / "retrieval_dev.jsonl"
SCRA = ROOT / "bench" / "data" / "scra_golden_dataset_eu-ai-act.json"
SCRA_ANSWERABLE_NEGATIVE = "eval_013"  # "GDPR right to erasure": answerable once GDPR is in


def act_graph(paths: Sequence[Path]) -> tuple[list[GraphNode], list[GraphEdge]]:
    """Nodes and edges of the acts at ``paths``, as ``corpus.graph_writes`` maps them."""
    acts = [parse_act(path) for path in paths]
    nodes: list[GraphNode] = []
    edges: list[GraphEdge] = []
    for act in acts:
        writes, links = to_graph_writes(act, [other for other in acts if other is not act])
        nodes += [GraphNode(id=w.id, label=w.label, properties=dict(w.properties)) for w in writes]
        edges += [GraphEdge(source=e.source_id, target=e.target_id, type=e.type) for e in links]
    return nodes, edges


def rules_graph() -> tuple[list[GraphNode], list[GraphEdge]]:
    """The seeded rules graph (``seeds/rules``) as the seeder writes it, concepts included."""
    data = read_seed_files()
    nodes = [GraphNode(id=n["id"], label=n["label"], properties=n.get("properties") or {})
             for n in data["nodes"]]  # fmt: skip
    edges = [GraphEdge(source=e["source"], target=e["target"], type=e["type"])
             for e in data["edges"]]  # fmt: skip
    for raw in data["concepts"]:
        concept = CapturedConcept(
            domain=raw["domain"], kind=raw["kind"], jurisdiction=raw["jurisdiction"],
            prefLabel=raw["pref_label"], altLabels=raw.get("alt_labels") or [],
            definition=raw.get("definition"), sourceUrls=raw.get("source_urls") or [],
        )  # fmt: skip
        node, labels = ConceptWriter.node_writes(
            ConceptWrite(concept=concept, status="confirmed", scheme="seed", aligns_with=[])
        )
        nodes += [GraphNode(id=w.id, label=w.label, properties=dict(w.properties))
                  for w in [node, *labels]]  # fmt: skip
        edges += [GraphEdge(source=node.id, target=label.id, type="HAS_ALT_LABEL")
                  for label in labels]  # fmt: skip
        edges += [GraphEdge(source=node.id, target=target, type="ALIGNS_WITH")
                  for target in raw.get("aligns_with") or []]  # fmt: skip
    return nodes, edges


def build_graph(rules: bool) -> tuple[list[GraphNode], list[GraphEdge]]:
    nodes, edges = act_graph(shipped_acts())
    if rules:
        rule_nodes, rule_edges = rules_graph()
        acts = {node.id for node in nodes}
        nodes = [n for n in rule_nodes if n.id not in acts] + nodes
        edges = rule_edges + edges
    return nodes, edges


def extra_questions(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        data = json.loads(text)
        return [case["prompt"].removeprefix("Question:").strip()
                for test in data["tests"] for case in test["test_cases"]]  # fmt: skip
    return [line.strip() for line in text.splitlines() if line.strip()]


def config_with(settings: Sequence[str]) -> RetrievalConfig:
    """``RetrievalConfig`` with ``NAME=VALUE`` overrides (numbers; ``min_coverage`` too)."""
    config = RetrievalConfig()
    types = {f.name: f.type for f in fields(RetrievalConfig)}
    for setting in settings:
        name, _, value = setting.partition("=")
        if name == "min_coverage":
            config = replace(config, gate=replace(config.gate, min_coverage=float(value)))
        elif name in types and types[name] in ("int", "float"):
            number = int(value) if types[name] == "int" else float(value)
            config = replace(config, **{name: number})
        else:
            raise SystemExit(f"--set: unknown or non-numeric setting {name!r}")
    return config


def run_eval(retriever: Retriever, questions: list[EvalQuestion], k: int, gate: bool = True) -> Any:
    def retrieve(question: str) -> tuple[list[str], bool]:
        result = retriever.search(question, k)
        return result.ids, gate and not result.verdict.answerable

    return evaluate(questions, retrieve)


def calibrate(retriever: Retriever, questions: list[EvalQuestion]) -> dict[str, Any]:
    """The ``min_coverage`` that maximises refusal rate minus false-refusal rate on
    ``questions`` (Youden's J; ties go to the lower bar, which refuses less), on a 0.01 grid."""
    saved = retriever.config
    rows = []
    for step in range(10, 71):
        low = step / 100
        gate = GateThresholds(low, max(low, saved.gate.strong_coverage))
        retriever.config = replace(saved, gate=gate)
        overall = run_eval(retriever, questions, 10).overall
        rows.append((low, overall.refusal_rate or 0.0, overall.false_refusal_rate or 0.0))
    retriever.config = saved
    best = max(rows, key=lambda row: (row[1] - row[2], -row[0]))
    return {"grid": rows, "best_min_coverage": best[0]}


def latency(retriever: Retriever, questions: list[str], rounds: int) -> dict[str, float]:
    for question in questions:  # warm up
        retriever.search(question, 10)
    timings = []
    for _ in range(rounds):
        for question in questions:
            start = time.perf_counter()
            retriever.search(question, 10)
            timings.append((time.perf_counter() - start) * 1000)
    timings.sort()
    return {
        "searches": len(timings),
        "p50_ms": statistics.median(timings),
        "p95_ms": timings[int(0.95 * (len(timings) - 1))],
        "max_ms": timings[-1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", action="store_true", help="add the seeded rules graph")
    parser.add_argument("--dev", type=Path, default=DEV)
    parser.add_argument("--scra", type=Path, default=SCRA)
    parser.add_argument("--extra", type=Path, action="append", default=[])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--misses", action="store_true", help="print the questions missed")
    parser.add_argument("--no-gate", action="store_true", help="rank only: never refuse")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="override a RetrievalConfig number (or min_coverage)")  # fmt: skip
    args = parser.parse_args()

    start = time.perf_counter()
    nodes, edges = build_graph(args.rules)
    parsed = time.perf_counter()
    config = config_with(args.set)
    retriever = Retriever(nodes, edges, config)
    built = time.perf_counter()
    # Memory on a second build (tracing slows the build, so it is not the one timed).
    tracemalloc.start()
    traced = Retriever(nodes, edges, config)
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del traced
    out: dict[str, Any] = {
        "graph": {"nodes": len(nodes), "edges": len(edges), "rows": len(retriever)},
        "build": {
            "parse_ms": (parsed - start) * 1000,
            "index_ms": (built - parsed) * 1000,
            "peak_traced_mib": peak / 2**20,
            "kept_traced_mib": kept / 2**20,
        },
    }
    print(f"graph: {out['graph']}\nbuild: {out['build']}")
    sets = {"dev": load_jsonl(args.dev)}
    if args.scra.exists():
        scra = load_scra(args.scra)
        sets["scra"] = scra
        sets["scra_without_eval_013"] = [q for q in scra if q.id != SCRA_ANSWERABLE_NEGATIVE]
    for name, questions in sets.items():
        report = run_eval(retriever, questions, args.k, gate=not args.no_gate)
        out[name] = report.to_dict()
        print(f"\n== {name} ==\n{report.format()}")
        if args.misses:
            by_id = {q.id: q for q in questions}
            for score in report.questions:
                if score.negative != score.refused or (
                    score.recall_at_5 is not None and score.recall_at_5 < 1.0
                ):
                    question = by_id[score.id]
                    result = retriever.search(question.question, args.k)
                    print(f"  {score.id} r@5={score.recall_at_5} refused={score.refused} "
                          f"{result.verdict} | {question.question}\n    gold={question.gold}\n"
                          f"    got={result.ids[:6]}")  # fmt: skip
    for path in args.extra:
        texts = extra_questions(path)
        refused = [t for t in texts if not retriever.search(t, args.k).verdict.answerable]
        out[f"extra:{path.name}"] = {"questions": len(texts), "refused": len(refused)}
        print(f"\n== {path.name}: {len(refused)}/{len(texts)} refused (all answerable) ==")
        for text in refused[:20] if args.misses else []:
            print(f"  {retriever.search(text, args.k).verdict} | {text}")
    every = [q.question for qs in sets.values() for q in qs]
    out["latency"] = latency(retriever, every, args.rounds)
    print(f"\nlatency: {out['latency']}")
    if args.calibrate:
        out["calibration"] = calibrate(retriever, sets["dev"])
        for low, refusal, false in out["calibration"]["grid"]:
            print(f"min_coverage={low:.2f} refusal={refusal:.3f} false_refusal={false:.3f}")
        print(f"best min_coverage (Youden's J): {out['calibration']['best_min_coverage']}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
