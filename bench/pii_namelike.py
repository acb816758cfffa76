"""How well the name-likeness model (``egress/pii/namelike.py``) tells names from English words.

    .venv/bin/python bench/pii_namelike.py [--seed 1]

The lexicon's names that are not English words and its English words that are not names are
shuffled and split 80/20; the model is counted on the 80 % and scored on the 20 %: the share of
held-back names and of held-back English words that score above 0 (name-like).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from egress.pii.lexicon import load_lexicon
from egress.pii.namelike import NameLikeness


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    lexicon = load_lexicon()
    names = sorted((lexicon.first_names | lexicon.surnames) - lexicon.english_words)
    words = sorted(lexicon.english_words - lexicon.first_names - lexicon.surnames)
    rng = random.Random(args.seed)
    rng.shuffle(names)
    rng.shuffle(words)
    cut_n, cut_w = int(0.8 * len(names)), int(0.8 * len(words))
    model = NameLikeness(names[:cut_n], words[:cut_w])
    test_n, test_w = names[cut_n:], words[cut_w:]
    for threshold in (-0.5, 0.0, 0.5, 1.0):
        n = sum(model.score(x) > threshold for x in test_n) / len(test_n)
        w = sum(model.score(x) > threshold for x in test_w) / len(test_w)
        print(
            f"score > {threshold:+.1f}: names {n:.3f} of {len(test_n)},"
            f" words {w:.3f} of {len(test_w)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
