"""Word lists shipped in ``egress/data`` (built by ``bench/pii_build_lexicon.py``).

Read once by :func:`load_lexicon` when a detector is built, never at import time.
"""

from __future__ import annotations

import gzip
import unicodedata
from dataclasses import dataclass
from importlib import resources

__all__ = [
    "Lexicon",
    "load_lexicon",
]


@dataclass(frozen=True, slots=True)
class Lexicon:
    """Lower-cased first names, surnames, common English words, non-names
    (countries, days, months, nationalities) and the acronyms of the law text (the words the
    shipped acts write in capitals amid prose: "enisa", "aifm", "eli"; built by
    ``bench/pii_build_acronyms.py``) and place names (ISO 3166 countries and subdivisions,
    ``bench/pii_build_places.py``; one name a line, several words kept: "new york")."""

    first_names: frozenset[str]
    surnames: frozenset[str]
    english_words: frozenset[str]
    non_names: frozenset[str]
    acronyms: frozenset[str] = frozenset()
    places: frozenset[str] = frozenset()


def _read(name: str) -> frozenset[str]:
    data = resources.files("egress").joinpath("data", name).read_bytes()
    return frozenset(gzip.decompress(data).decode("utf-8").split())


def _read_lines(name: str) -> frozenset[str]:
    data = resources.files("egress").joinpath("data", name).read_bytes()
    return frozenset(line for line in gzip.decompress(data).decode("utf-8").splitlines() if line)


def _with_ascii_forms(names: frozenset[str]) -> frozenset[str]:
    """``names`` and each name without its accents ("kamińska" -> "kaminska"): people type
    names without them, in lower case and capitals above all."""
    folded = (
        unicodedata.normalize("NFKD", n).encode("ascii", "ignore").decode("ascii")
        for n in names
        if not n.isascii()
    )
    return names | {f for f in folded if len(f) > 1}


def load_lexicon() -> Lexicon:
    """Load the shipped lists (~100k words, a few tens of milliseconds)."""
    return Lexicon(
        # Faker's lists and the broader additions (nam_dict, US Census; ADR 0084).
        first_names=_with_ascii_forms(_read("first_names.txt.gz"))
        | _read("first_names_extra.txt.gz"),
        surnames=_with_ascii_forms(_read("surnames.txt.gz")) | _read("surnames_extra.txt.gz"),
        english_words=_read("english_words.txt.gz"),
        non_names=_read("non_names.txt.gz"),
        acronyms=_read("law_acronyms.txt.gz"),
        places=_read_lines("places.txt.gz"),
    )
