"""Worst-case detector cost: adversarial messages against ordinary text of the same length.

    .venv/bin/python bench/pii_worst_case.py ../shared/data/pii/presidio_synth_dataset_v2.dev.json \
        [--chars 8000] [--rounds 5]

"Ordinary" is the labelled PII set's sentences joined (names, addresses, phones: a dense but
real message). Each worst input repeats one unit up to the length; the script prints the CPU
time of each (best of ``rounds``, so other processes inflate it less), its ratio to ordinary
text (target ≤ 2) and the growth from a quarter of the length to the whole (linear: ≈ 4).
The inputs are those of ``tests/unit/egress/test_egress_linear.py``, which counts the work
deterministically.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from egress.pii import PiiDetector, build_pii_detector
from tests.unit.egress.test_egress_linear import WORST_UNITS


def cpu_ms(detector: PiiDetector, text: str, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.thread_time()
        detector.detect(text)
        best = min(best, time.thread_time() - start)
    return best * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="presidio-research JSON file (ordinary text)")
    parser.add_argument("--chars", type=int, default=8000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    detector = build_pii_detector()
    samples = json.loads(args.path.read_text(encoding="utf-8"))
    ordinary = "\n\n".join(s["full_text"] for s in samples)[: args.chars]
    detector.detect(ordinary)
    base = cpu_ms(detector, ordinary, args.rounds)
    print(f"ordinary text, {len(ordinary)} chars: {base:.1f} ms (cpu, best of {args.rounds})")
    print(f"{'worst input':<34}{'ms':>8}{'x ordinary':>12}{'growth 1/4->1':>15}")
    worst = 0.0
    for unit in WORST_UNITS:
        text = (unit * (args.chars // len(unit) + 1))[: args.chars]
        quarter = cpu_ms(detector, text[: args.chars // 4], args.rounds)
        whole = cpu_ms(detector, text, args.rounds)
        worst = max(worst, whole / base)
        print(f"{unit!r:<34}{whole:>8.1f}{whole / base:>12.2f}{whole / quarter:>15.2f}")
    print(f"worst / ordinary: {worst:.2f} (target <= 2)")
    return 0 if worst <= 2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
