"""False positives of the egress detector on random alphanumeric tokens (ids, session keys,
hashes glued to words), the shape of "Holdturn0b4bea" whose "bea" was redacted as a person.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/pii_token_fp_bench.py [--n 3000]

Each token is typed alone and inside a sentence ("the id was TOKEN yesterday"); a token counts
as a false positive when any finding overlaps it. Printed per token shape: tokens, tokens with a
finding, tokens with a PERSON finding.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from egress.pii import build_pii_detector
from egress.pii.findings import PERSON


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


SHAPES: dict[str, Callable[[random.Random], str]] = {
    # the e2e shape: a word, then uuid hex
    "word+hex": lambda r: (
        r.choice(["Hold", "Turn", "Sess", "Tok", "Job"])
        + r.choice(["turn", "id", "key", ""])
        + uuid.UUID(int=r.getrandbits(128)).hex[: r.randint(4, 10)]
    ),
    "alnum": lambda r: "".join(
        r.choice(string.ascii_letters + string.digits) for _ in range(r.randint(6, 16))
    ),
    "lower-alnum": lambda r: "".join(
        r.choice(string.ascii_lowercase + string.digits) for _ in range(r.randint(6, 16))
    ),
    "hex": lambda r: _hex(r, r.choice([7, 8, 12, 16])),
    "base62-key": lambda r: (
        "sk_" + "".join(r.choice(string.ascii_letters + string.digits) for _ in range(20))
    ),
}


def run(n: int, seed: int = 2525) -> dict[str, Counter[str]]:
    detector = build_pii_detector()
    rng = random.Random(seed)
    out: dict[str, Counter[str]] = {}
    for shape, make in SHAPES.items():
        c: Counter[str] = Counter()
        for _ in range(n // len(SHAPES)):
            token = make(rng)
            for text, start in ((token, 0), (f"the id was {token} yesterday", 11)):
                end = start + len(token)
                hits = [f for f in detector.detect(text) if f.start < end and start < f.end]
                c["tokens"] += 1
                c["any finding"] += bool(hits)
                c["person"] += any(f.entity_type == PERSON for f in hits)
        out[shape] = c
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=3000)
    args = parser.parse_args()
    result = run(args.n)
    total: Counter[str] = Counter()
    print(f"{'shape':<14}{'tokens':>8}{'any':>6}{'person':>8}")
    for shape, c in result.items():
        total.update(c)
        print(f"{shape:<14}{c['tokens']:>8}{c['any finding']:>6}{c['person']:>8}")
    print(f"{'ALL':<14}{total['tokens']:>8}{total['any finding']:>6}{total['person']:>8}")
    rate = total["any finding"] / total["tokens"]
    print(f"false-positive rate: {rate:.4f} ({total['any finding']} of {total['tokens']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
