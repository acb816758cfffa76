"""Evaluate the egress PII detector on a labelled set (presidio-research JSON format).

    .venv/bin/python bench/pii_eval.py ../shared/data/pii/presidio_synth_dataset_v2.dev.json \
        [--fixtures tests/fixtures/pii/ie_uk.json] [--rounds 3] [--errors PERSON]

Scoring is per word token (``\\w+``), like presidio-research's token-level evaluation:

* per redacted type T: precision = tokens predicted T that are gold T / tokens predicted T;
  recall = gold-T tokens predicted T / gold-T tokens; F2 weights recall four times precision;
* overall ("binary PII", as in the published baselines): a gold token of a redacted type counts
  as found if any detector type covers it; every other covered token is a false positive —
  including tokens of the kept types;
* kept types (places, organisations, dates, ages, titles, ...) are listed with the share of their
  tokens the detector covered anyway (over-redaction), since a tax question needs them;
* latency: texts of ~2,000 characters made by joining consecutive samples, timed after a warm-up,
  p50/p95 in milliseconds — wall clock, and this thread's CPU time, which other processes on a
  busy machine do not inflate.

The fixture set adds pass/fail checks: every valid identifier found with its type, and no
checksum-invalid PPSN or IBAN flagged.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from egress.pii import PiiDetector, PiiFinding, build_pii_detector

REDACTED = (
    "PERSON",
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "CREDIT_CARD",
    "IBAN_CODE",
    "US_SSN",
    "IP_ADDRESS",
    "STREET_ADDRESS",
)
KEPT = (
    "GPE",
    "ORGANIZATION",
    "DATE_TIME",
    "AGE",
    "NRP",
    "TITLE",
    "ZIP_CODE",
    "DOMAIN_NAME",
    "US_DRIVER_LICENSE",
)
WORD = re.compile(r"\w+")


def f_beta(p: float, r: float, beta: float = 2.0) -> float:
    return 0.0 if p + r == 0 else (1 + beta**2) * p * r / (beta**2 * p + r)


def label_at(spans: list[tuple[int, int, str]], start: int, end: int) -> str | None:
    for s, e, t in spans:
        if s < end and start < e:
            return t
    return None


def score(samples: list[dict[str, Any]], detector: PiiDetector, errors: str | None) -> None:
    tp: Counter[str] = Counter()
    pred: Counter[str] = Counter()
    gold: Counter[str] = Counter()
    kept_total: Counter[str] = Counter()
    kept_hit: Counter[str] = Counter()
    bin_tp = bin_fp = bin_fn = 0
    for sample in samples:
        text = sample["full_text"]
        gold_spans = [
            (s["start_position"], s["end_position"], s["entity_type"]) for s in sample["spans"]
        ]
        found = detector.detect(text)
        pred_spans = [(f.start, f.end, f.entity_type) for f in found]
        for m in WORD.finditer(text):
            g = label_at(gold_spans, *m.span())
            p = label_at(pred_spans, *m.span())
            if g is not None and g not in REDACTED:
                kept_total[g] += 1
                kept_hit[g] += p is not None
                g = None
            if g is not None:
                gold[g] += 1
                bin_tp += p is not None
                bin_fn += p is None
            elif p is not None:
                bin_fp += 1
            if p is not None:
                pred[p] += 1
                tp[p] += p == g
        if errors:
            shown = [(text[s:e], t) for s, e, t in gold_spans if t == errors]
            mine = [(text[f.start : f.end], f.entity_type) for f in found]
            if any(x not in mine for x in shown) or any(
                t == errors and (v, t) not in shown for v, t in mine
            ):
                print(f"--- {text!r}\n    gold {shown}\n    mine {mine}")
    print(f"{'type':<16}{'gold':>7}{'pred':>7}{'P':>7}{'R':>7}{'F2':>7}")
    for t in sorted(set(gold) | set(pred)):
        p = tp[t] / pred[t] if pred[t] else 0.0
        r = tp[t] / gold[t] if gold[t] else 0.0
        print(f"{t:<16}{gold[t]:>7}{pred[t]:>7}{p:>7.3f}{r:>7.3f}{f_beta(p, r):>7.3f}")
    p = bin_tp / (bin_tp + bin_fp) if bin_tp + bin_fp else 0.0
    r = bin_tp / (bin_tp + bin_fn) if bin_tp + bin_fn else 0.0
    print(
        f"{'OVERALL (binary)':<16}{bin_tp + bin_fn:>7}{bin_tp + bin_fp:>7}"
        f"{p:>7.3f}{r:>7.3f}{f_beta(p, r):>7.3f}"
    )
    if kept_total:
        print("kept types (not redacted on purpose): share of tokens covered anyway")
        for t in sorted(kept_total):
            print(f"  {t:<18}{kept_total[t]:>6} tokens  {kept_hit[t] / kept_total[t]:>6.1%}")


def latency(samples: list[dict[str, Any]], detector: PiiDetector, rounds: int) -> None:
    chunks: list[str] = []
    current = ""
    for sample in samples:
        current += sample["full_text"] + "\n\n"
        if len(current) >= 2000:
            chunks.append(current[:2000])
            current = ""
    for chunk in chunks[:5]:
        detector.detect(chunk)
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(rounds):
        for chunk in chunks:
            t0, c0 = time.perf_counter(), time.thread_time()
            detector.detect(chunk)
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
    for name, times in (("wall", wall), ("cpu", cpu)):
        q = statistics.quantiles(times, n=100)
        print(
            f"latency per 2,000 chars ({name}, {len(times)} runs): "
            f"p50 {q[49]:.2f} ms, p95 {q[94]:.2f} ms"
        )


def check_fixtures(samples: list[dict[str, Any]], detector: PiiDetector) -> bool:
    missed: list[str] = []
    false_flags: list[str] = []
    for sample in samples:
        found: list[PiiFinding] = detector.detect(sample["full_text"])
        meta = sample["metadata"]
        if meta["expect"] == "found":
            span = sample["spans"][0]
            if not any(
                f.entity_type == span["entity_type"]
                and f.start <= span["start_position"]
                and f.end >= span["end_position"]
                for f in found
            ):
                missed.append(f"{span['entity_type']}: {sample['full_text']!r} -> {found}")
        elif any(f.entity_type == meta["entity_type"] for f in found):
            false_flags.append(f"{meta['entity_type']}: {sample['full_text']!r}")
    valid = sum(s["metadata"]["expect"] == "found" for s in samples)
    print(
        f"IE/UK fixtures: {valid - len(missed)}/{valid} valid identifiers caught; "
        f"{len(false_flags)} of {len(samples) - valid} checksum-invalid flagged"
    )
    for line in missed + false_flags:
        print("  ", line)
    return not missed and not false_flags


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="presidio-research JSON file")
    parser.add_argument("--fixtures", type=Path, action="append", default=[])
    parser.add_argument("--rounds", type=int, default=3, help="latency rounds")
    parser.add_argument("--errors", help="print the samples where this gold type disagrees")
    args = parser.parse_args()
    t0 = time.perf_counter()
    detector = build_pii_detector()
    print(f"detector built in {(time.perf_counter() - t0) * 1000:.0f} ms")
    samples = json.loads(args.path.read_text(encoding="utf-8"))
    print(f"{args.path.name}: {len(samples)} samples")
    score(samples, detector, args.errors)
    latency(samples, detector, args.rounds)
    ok = True
    for path in args.fixtures:
        ok = check_fixtures(json.loads(path.read_text(encoding="utf-8")), detector) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
