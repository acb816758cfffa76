"""Time ConceptLexicon.match on ~300-character questions with ~10k labels.

    .venv/bin/python bench/lexicon_bench.py [--labels 10000] [--runs 2000]

Loads the real EuroVoc subset (about 3k labels) and pads it with synthetic graph entries
(three labels each) up to ``--labels``. Prints the load time and the median / p99 match time.
A measurement, not a test: nothing here asserts a duration.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine.lexicon import ConceptLexicon
from engine.lexicon_entry import LexiconEntry
from engine.normalise import normalise_label

__all__ = ["build", "main"]

QUESTIONS = [
    "I am a single director of an Irish company and my spouse gets child benefit. How is "
    "income tax, PRSI and the universal social charge applied to my salary, and can I claim "
    "tax relief on pension contributions? Does capital gains tax apply when I sell shares "
    "next year, and what records do I keep?",
    "Quel est le taux de la taxe sur la valeur ajoutée applicable aux travaux de rénovation "
    "en France, et comment la retraite complémentaire est-elle imposée ? Je perçois aussi une "
    "allocation de chômage et une pension d'invalidité depuis l'année dernière ; "
    "dois-je déclarer tout cela ?",
    "My mother moved from Northern Ireland to Dublin; she has a State pension from the UK, a "
    "disability allowance, home help twice a week and a survivor's pension. Which social "
    "security rules under Regulation 883/2004 decide where she pays contributions today, and "
    "who pays her benefits?",
]
WORDS = (
    "relief credit allowance scheme benefit duty levy charge rate band threshold exemption "
    "deduction contribution payment grant support supplement pension insurance class regime"
).split()


def build(labels: int) -> ConceptLexicon:
    lexicon = ConceptLexicon.from_eurovoc()
    have = sum(len(e.labels) for e in lexicon)
    rng = random.Random(7)
    i = 0
    while have < labels:
        words = [rng.choice(WORDS) for _ in range(rng.randint(2, 4))]
        lexicon.add(
            LexiconEntry(
                key=f"TAX:IE:SYNTH_{i}",
                pref_label=f"{' '.join(words)} {i}",
                alt_labels=(f"synth{i}", f"{words[0]} synthetic {i}"),
                domain="TAX",
                kind=f"SYNTH_{i}",
                jurisdiction="IE",
                definition=None,
                source_urls=(),
                scheme="graph",
                notation=None,
            )
        )
        have += 3
        i += 1
    return lexicon


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--labels", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=2_000)
    args = parser.parse_args()

    t0 = time.perf_counter()
    ConceptLexicon.from_eurovoc()
    load_ms = (time.perf_counter() - t0) * 1e3
    lexicon = build(args.labels)
    n_labels = len({normalise_label(lbl) for e in lexicon for lbl in e.labels})
    print(f"EuroVoc load: {load_ms:.1f} ms; entries: {len(lexicon)}; distinct labels: {n_labels}")
    for q in QUESTIONS:
        hits = lexicon.match(q)
        print(f"  {len(q)} chars -> {[h.matched for h in hits]}")

    for cold in (False, True):
        samples: list[float] = []
        for r in range(args.runs):
            q = QUESTIONS[r % len(QUESTIONS)]
            if cold:  # defeat the token-fold cache: a fresh non-ASCII token every run
                q = q.replace("année", f"année{r}")
            t = time.perf_counter_ns()
            lexicon.match(q)
            samples.append((time.perf_counter_ns() - t) / 1e3)
        samples.sort()
        p99 = samples[int(len(samples) * 0.99) - 1]
        label = "fresh tokens" if cold else "warm cache  "
        print(f"match() {label}: median {statistics.median(samples):.1f} µs, p99 {p99:.1f} µs")


if __name__ == "__main__":
    main()
