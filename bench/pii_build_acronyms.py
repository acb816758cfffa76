"""Regenerate ``egress/data/law_acronyms.txt.gz``: the words the shipped acts write in capitals.

Run once by a developer when the acts change; nothing at run time builds or downloads.

    .venv/bin/python bench/pii_build_acronyms.py [--acts seeds/legal/json] [--min-count 2]

A word in capitals amid lower-case prose of an act ("the Commission and ENISA may", "the AIFM
has", "an ELI identifier") is an initialism or an acronym of that prose, never a person: the
acts name their bodies, instruments and terms this way, and the chat quotes them ("told
ENISA", "a fine from the EDPB"). The egress name recognisers read such a word typed alone in
capitals as an acronym, not as a name (``egress.pii.anycase``). The list is derived from the
acts' own text, not written by hand: every token of two to ten capital letters (a plural "s"
dropped: "AIFMs") whose neighbouring words are not in capitals (a heading in capitals is not
prose) and that has no initial beside it (a signature, "R. METSOLA", is a person), counted
over every string of every act in ``--acts`` (the ingested acts shipped in
``seeds/legal/json``); kept when it occurs at least ``--min-count`` times. Lower-cased, one a
line, gzipped.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ACTS = ROOT / "seeds" / "legal" / "json"
OUT = ROOT / "egress" / "data" / "law_acronyms.txt.gz"
TOKEN = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
ACRONYM = re.compile(r"[A-Z]{2,10}")


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def act_texts(acts: Path) -> Iterator[str]:
    """Every string of every act (``*.json`` or ``*.json.gz``) under ``acts``."""
    for path in sorted(acts.iterdir()):
        if path.name.endswith(".json.gz"):
            data = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
        elif path.suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
        else:
            continue
        yield from _strings(data)


def _caps(word: str) -> bool:
    return len(word) > 1 and word.isupper()


def count_acronyms(texts: Iterator[str]) -> Counter[str]:
    """Occurrences of each word in capitals that stands amid words not in capitals."""
    counts: Counter[str] = Counter()
    for text in texts:
        words = TOKEN.findall(text)
        for k, word in enumerate(words):
            core = word[:-1] if word.endswith("s") and _caps(word[:-1]) else word
            if not ACRONYM.fullmatch(core):
                continue
            before = words[k - 1] if k else ""
            after = words[k + 1] if k + 1 < len(words) else ""
            if _caps(before) or _caps(after):
                continue  # a heading or a run of codes in capitals
            if (len(before) == 1 and before.isupper()) or (len(after) == 1 and after.isupper()):
                continue  # a signature: "The President R. METSOLA", "ZSIGMOND B. P."
            counts[core.lower()] += 1
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--acts", type=Path, default=ACTS)
    parser.add_argument("--min-count", type=int, default=2)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    counts = count_acronyms(act_texts(args.acts))
    kept = sorted(w for w, n in counts.items() if n >= args.min_count)
    args.out.write_bytes(gzip.compress(("\n".join(kept) + "\n").encode("utf-8"), mtime=0))
    print(f"{len(kept)} acronyms (of {len(counts)} seen) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
