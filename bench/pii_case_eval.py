"""Score the egress detector on the "as people type" sets (``bench/pii_make_case_sets.py``).

    .venv/bin/python bench/pii_case_eval.py tests/fixtures/pii/case_sets/dev.json \
        [--errors name_lower] [--detector ingress]

Per class:

* ``caught``: values whose every word token (``\\w+``) a finding covers;
* ``leaked``: values that still pass after sanitising by the attack tests' rule
  (:func:`tests.support.attacks.passed_values`: canonicalised, letters and digits only,
  case-folded, a substring of the sanitised text);
* ``wide``: findings that cover a word token outside every gold span of their sample (a name
  span that swallowed "Can" counts here);
* token-level binary P / R / F2 (like ``bench/pii_eval.py``);
* decoys: samples with any finding, and the number of findings; the same for the negatives
  (``neg_*`` classes: ids, hashes, codes, amounts, dates with no span), summed on one line.

``--errors`` prints the failing samples of one class; it refuses a held-out file, whose errors
must not be read while tuning. ``--profile`` prints, per class, only counts of *kinds* of missed
values (how many words, whether the lexicon knows them, case, markers used, partly caught), never
a value or a sample: it is allowed on a held-out file, to see why misses happen without reading
them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from egress.pii import PiiDetector, build_ingress_detector, build_pii_detector
from egress.pii.lexicon import load_lexicon
from tests.support.attacks import passed_values

WORD = re.compile(r"\w+")


def f_beta(p: float, r: float, beta: float = 2.0) -> float:
    return 0.0 if p + r == 0 else (1 + beta**2) * p * r / (beta**2 * p + r)


def _covered(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in spans)


def _sanitised(text: str, spans: list[tuple[int, int]]) -> str:
    out, cursor = [], 0
    for start, end in sorted(spans):
        out.append(text[cursor:start] + "[X]")
        cursor = end
    return "".join(out) + text[cursor:]


def evaluate(samples: list[dict[str, Any]], detector: PiiDetector) -> dict[str, dict[str, Any]]:
    """Counters per class (and ``ALL``), plus the failing samples per class."""
    stats: dict[str, Counter[str]] = defaultdict(Counter)
    failures: dict[str, list[str]] = defaultdict(list)
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    for sample in samples:
        cls = sample["metadata"]["class"]
        text = sample["full_text"]
        gold = [(s["start_position"], s["end_position"]) for s in sample["spans"]]
        found = detector.detect(text)
        pred = [(f.start, f.end) for f in found]
        st = stats[cls]
        st["samples"] += 1
        failed = False
        for start, end in gold:
            st["values"] += 1
            tokens = list(WORD.finditer(text, start, end))
            if tokens and all(_covered(pred, *m.span()) for m in tokens):
                st["caught"] += 1
            else:
                failed = True
                kinds[cls].update(_miss_kinds(text, start, end, pred))
        leaked = passed_values(sample["metadata"]["values"], [_sanitised(text, pred)])
        st["leaked"] += len(leaked)
        for f in found:
            if any(not _covered(gold, *m.span()) for m in WORD.finditer(text, f.start, f.end)):
                st["wide"] += 1
                failed = True
        for m in WORD.finditer(text):
            g, p = _covered(gold, *m.span()), _covered(pred, *m.span())
            st["tp"] += g and p
            st["fp"] += p and not g
            st["fn"] += g and not p
        if cls == "decoy" or cls.startswith("neg_"):
            st["flagged"] += bool(found)
            st["findings"] += len(found)
        if failed or leaked:
            shown = [(f.entity_type, text[f.start : f.end]) for f in found]
            failures[cls].append(f"{text!r}\n      -> {shown}")
    total: Counter[str] = Counter()
    for st in stats.values():
        total.update(st)
    stats["ALL"] = total
    return {"stats": stats, "failures": failures, "kinds": kinds}


_LEXICON = None


def _miss_kinds(text: str, start: int, end: int, pred: list[tuple[int, int]]) -> list[str]:
    """Kinds of one missed value (``--profile``): counts only, never the value."""
    global _LEXICON
    if _LEXICON is None:
        _LEXICON = load_lexicon()
    lex = _LEXICON
    value = text[start:end]
    tokens = [m.group().lower() for m in WORD.finditer(value)]
    covered = sum(_covered(pred, start + m.start(), start + m.end()) for m in WORD.finditer(value))
    out = [f"words={min(len(tokens), 4)}", "partly caught" if covered else "nothing caught"]
    if "@" in value or re.search(r"(?i)\bat\b|dot|\[|\(", value):
        out.append("has @" if "@" in value else "no @ sign")
        out.append("'at' as a word" if re.search(r"(?i)\bat\b", value) else "no 'at' word")
        out.append("'dot' word" if re.search(r"(?i)dot", value) else "no 'dot' word")
        out.append("brackets" if re.search(r"[\[\](){}<>]", value) else "no brackets")
        out.append("upper-case marker" if re.search(r"AT|DOT", value) else "no upper marker")
        out.append("has a '.'" if "." in value else "no '.'")
        out.append("has '_' or '-'" if re.search(r"[_-]", value) else "no '_' or '-'")
        out.append("has a digit" if re.search(r"\d", value) else "no digit")
        out.append(f"spaces={min(value.count(' '), 6)}")
        return out
    style = "lower" if value.islower() else "upper" if value.isupper() else "mixed/title"
    out.append(f"case={style}")
    before = text[max(0, start - 2) : start]
    after_punct = re.search(r"[.?!:,;\n]", before)
    out.append("at text start" if start == 0 else "after punct" if after_punct else "after a word")
    for k, tok in enumerate(tokens):
        where = "first word" if k == 0 else "last word" if k == len(tokens) - 1 else "mid word"
        if tok in lex.first_names or tok in lex.surnames:
            known = "known name"
        else:
            known = "in no name list"
        eng = "+English word" if tok in lex.english_words else ""
        out.append(f"{where}: {known}{eng}")
    if re.search(r"['’-]", value):
        out.append("apostrophe/hyphen")
    if not value.isascii():
        out.append("accent")
    return out


def report(result: dict[str, Any]) -> None:
    stats: dict[str, Counter[str]] = result["stats"]
    print(
        f"{'class':<22}{'values':>7}{'caught':>8}{'leaked':>8}{'wide':>6}{'P':>7}{'R':>7}{'F2':>7}"
    )
    for cls in sorted(stats, key=lambda c: (c == "ALL", c == "decoy", c)):
        st = stats[cls]
        p = st["tp"] / (st["tp"] + st["fp"]) if st["tp"] + st["fp"] else 1.0
        r = st["tp"] / (st["tp"] + st["fn"]) if st["tp"] + st["fn"] else 1.0
        print(
            f"{cls:<22}{st['values']:>7}{st['caught']:>8}{st['leaked']:>8}{st['wide']:>6}"
            f"{p:>7.3f}{r:>7.3f}{f_beta(p, r):>7.3f}"
        )
    d = stats.get("decoy", Counter())
    print(f"decoys: {d['flagged']} of {d['samples']} flagged, {d['findings']} findings")
    neg: Counter[str] = Counter()
    for cls, st in stats.items():
        if cls.startswith("neg_"):
            neg.update(st)
    if neg:
        print(
            f"negatives: {neg['flagged']} of {neg['samples']} flagged, {neg['findings']} findings"
        )


def lexicon_overlap() -> None:
    """How many of the sets' hand-written names the detector's lexicon happens to contain."""
    from bench.pii_make_case_sets import FIRST, SURNAMES

    lex = load_lexicon()
    names = lex.first_names | lex.surnames
    first = sum(n.lower() in names for n in FIRST)
    last = sum(n.lower() in names for n in SURNAMES)
    words = sum(n.lower() in lex.english_words for n in FIRST + SURNAMES)
    print(
        f"hand-written names in the detector's lexicon: first {first}/{len(FIRST)}, "
        f"surnames {last}/{len(SURNAMES)}; English words among them: {words}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, nargs="+")
    parser.add_argument("--errors", help="print the failing samples of this class (dev only)")
    parser.add_argument("--profile", action="store_true", help="counts of kinds of misses")
    parser.add_argument("--detector", choices=("egress", "ingress"), default="egress")
    args = parser.parse_args()
    detector = build_pii_detector() if args.detector == "egress" else build_ingress_detector()
    for path in args.path:
        samples = json.loads(path.read_text(encoding="utf-8"))
        print(f"== {path.name}: {len(samples)} samples ({args.detector} detector)")
        result = evaluate(samples, detector)
        report(result)
        if args.profile:
            for cls, counter in sorted(result["kinds"].items()):
                print(f"   kinds of misses, {cls}:")
                for kind, n in sorted(counter.items()):
                    print(f"      {n:>4}  {kind}")
        if args.errors:
            if "heldout" in path.name:
                print("   (errors of a held-out file are not shown)")
                continue
            for line in result["failures"].get(args.errors, []):
                print("   ", line)
    lexicon_overlap()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
