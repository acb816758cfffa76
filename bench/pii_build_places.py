"""Regenerate ``egress/data/places.txt.gz``: names of countries and their subdivisions.

Run once by a developer when ``pycountry`` is upgraded; nothing at run time builds or downloads.

    .venv/bin/python bench/pii_build_places.py

The first-name lists hold many place names ("london", "paris", "kerry", "victoria"); typed after
a place preposition ("moved to london", "a job in kerry") the word is a place, not a person
(``egress.pii.detector``). The list is derived from ISO 3166 as shipped by ``pycountry`` (a
runtime dependency already; ISO 3166-1 country names, common and official, and ISO 3166-2
subdivision names: counties, regions, provinces, boroughs, cities with subdivision status),
never written by hand. A subdivision's qualifier is dropped ("London, City of" -> "london",
"Dublin (county)" -> "dublin"); names are lower-cased and kept with and without accents.
Lower-cased, one name a line (a name of several words keeps its single spaces), gzipped.
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path

import pycountry

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "egress" / "data" / "places.txt.gz"
_QUALIFIER = re.compile(r"\s*(?:\([^)]*\)|\[[^\]]*\]|,.*)$")


def _forms(name: str) -> Iterator[str]:
    base = _QUALIFIER.sub("", name).strip().lower()
    base = " ".join(base.split())
    if len(base) < 3:
        return
    yield base
    folded = unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode("ascii")
    if len(folded) >= 3:
        yield folded


def place_names(names: Iterable[str]) -> frozenset[str]:
    """Lower-cased place names, qualifiers dropped, with and without accents."""
    return frozenset(form for name in names for form in _forms(name))


def _iso_names() -> Iterator[str]:
    for country in pycountry.countries:
        for attr in ("name", "common_name", "official_name"):
            value = getattr(country, attr, None)
            if value:
                yield value
    for subdivision in pycountry.subdivisions:
        yield subdivision.name


def main() -> None:
    places = place_names(_iso_names())
    OUT.write_bytes(gzip.compress("\n".join(sorted(places)).encode("utf-8") + b"\n", mtime=0))
    print(f"{len(places)} place names -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
