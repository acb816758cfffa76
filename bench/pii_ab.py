"""The egress detector of a past revision against the working tree's, in one run: redactions on
law text and latency per 2,000 characters.

    .venv/bin/python bench/pii_ab.py --baseline ceadc89 \
        [--acts ../shared/data/eu-legislation/eu-regulations-json] \
        [--text ../shared/data/pii/presidio_synth_dataset_v2.dev.json] [--rounds 4] [--show 20] \
        [--detector egress|ingress] [--no-latency]

The baseline's ``egress/`` is taken with ``git archive`` into a temporary folder and imported
ahead of the working tree in its own worker process (the rest of the project is the working
tree's). Workers of the two sides alternate, so load from other processes falls on both.

* **Law text**: every paragraph (text split at blank lines, longer than 20 characters) of the
  articles, recitals and definitions of every act in ``--acts`` (JSON as in
  ``eu-regulations-json``). A finding there is a redaction that would damage a quoted
  provision. Printed: paragraphs with a finding, findings by type, and the findings one side
  has and the other has not (``--show`` of each).
* **Latency**: the ``--text`` samples joined into 2,000-character chunks (as
  ``bench/pii_eval.py`` does), each timed once per round after a warm-up, CPU time of the
  thread; p50 / p95 per side over every round.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ACTS = ROOT.parent / "shared" / "data" / "eu-legislation" / "eu-regulations-json"
TEXT = ROOT.parent / "shared" / "data" / "pii" / "presidio_synth_dataset_v2.dev.json"


def law_paragraphs(acts: Path) -> list[str]:
    out: list[str] = []
    for path in sorted(acts.glob("*.json")):
        act = json.loads(path.read_text(encoding="utf-8"))
        texts: list[str] = []
        for key, field in (
            ("articles", "text"),
            ("recitals", "text"),
            ("definitions", "definition"),
        ):
            for item in act.get(key) or []:
                value = item.get(field) if isinstance(item, dict) else item
                if isinstance(value, str):
                    texts.append(value)
        for text in texts:
            out.extend(p.strip() for p in text.split("\n\n") if len(p.strip()) > 20)
    return out


def chunks_of(text_path: Path) -> list[str]:
    samples = json.loads(text_path.read_text(encoding="utf-8"))
    chunks: list[str] = []
    current = ""
    for sample in samples:
        current += sample["full_text"] + "\n\n"
        if len(current) >= 2000:
            chunks.append(current[:2000])
            current = ""
    return chunks


def worker(task: str, args: argparse.Namespace) -> None:
    """Runs in a child process whose ``sys.path`` starts with the side's tree."""
    from egress.pii import build_ingress_detector, build_pii_detector

    detector = build_pii_detector() if args.detector == "egress" else build_ingress_detector()
    if task == "law":
        findings = []
        for n, para in enumerate(law_paragraphs(args.acts)):
            for f in detector.detect(para):
                findings.append([n, f.entity_type, para[f.start : f.end], f.start])
        print(json.dumps(findings))
        return
    chunks = chunks_of(args.text)
    for chunk in chunks[:5]:
        detector.detect(chunk)
    times = []
    for chunk in chunks:
        c0 = time.thread_time()
        detector.detect(chunk)
        times.append((time.thread_time() - c0) * 1000)
    print(json.dumps(times))


def run(tree: Path | None, task: str, args: argparse.Namespace) -> Any:
    command = [sys.executable, __file__, "--worker", task, "--acts", str(args.acts)]
    command += ["--text", str(args.text), "--detector", args.detector]
    if tree is not None:
        command += ["--tree", str(tree)]
    out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout)


def law_report(sides: dict[str, list[list[Any]]], paragraphs: list[str], show: int) -> None:
    print(f"law text: {len(paragraphs)} paragraphs, {sum(map(len, paragraphs)):,} characters")
    keyed = {}
    for side, findings in sides.items():
        with_finding = len({f[0] for f in findings})
        types = Counter(f[1] for f in findings)
        print(
            f"  {side:<9} paragraphs with a finding {with_finding:>4}, findings {len(findings):>4}"
            f"  {dict(sorted(types.items()))}"
        )
        keyed[side] = {(f[0], f[1], f[2]) for f in findings}
    for a, b in (("after", "baseline"), ("baseline", "after")):
        only = sorted(keyed[a] - keyed[b])
        print(f"  only {a} ({len(only)}):")
        for n, kind, value in only[:show]:
            para = paragraphs[n]
            at = para.find(value)
            context = para[max(0, at - 40) : at + len(value) + 40].replace("\n", " ")
            print(f"    {kind:<14}{value!r:<30} ...{context}...")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", help="git revision of the detector to compare against")
    parser.add_argument("--acts", type=Path, default=ACTS)
    parser.add_argument("--text", type=Path, default=TEXT)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--show", type=int, default=20)
    parser.add_argument("--detector", choices=("egress", "ingress"), default="egress")
    parser.add_argument("--no-latency", action="store_true", help="law text only")
    parser.add_argument("--worker", choices=("law", "latency"), help=argparse.SUPPRESS)
    parser.add_argument("--tree", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        sys.path.insert(0, str(ROOT))
        if args.tree is not None:
            sys.path.insert(0, str(args.tree))
        worker(args.worker, args)
        return 0
    if not args.baseline:
        parser.error("--baseline is required")
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "archive", args.baseline, "egress"], check=True, capture_output=True, cwd=ROOT
        )
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        trees: dict[str, Path | None] = {"baseline": Path(tmp), "after": None}
        print(f"baseline {args.baseline} against the working tree")
        law = {side: run(tree, "law", args) for side, tree in trees.items()}
        law_report(law, law_paragraphs(args.acts), args.show)
        times: dict[str, list[float]] = {side: [] for side in trees}
        for _ in range(0 if args.no_latency else args.rounds):
            for side, tree in trees.items():
                times[side] += run(tree, "latency", args)
        for side, values in times.items():
            if not values:
                continue
            q = statistics.quantiles(values, n=100)
            print(
                f"latency per 2,000 chars, {side:<9} ({len(values)} runs, cpu): "
                f"p50 {q[49]:.2f} ms, p95 {q[94]:.2f} ms"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
