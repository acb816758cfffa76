"""Resolution's normalisation: a capture's jurisdiction and the exact form of a label.

Two things decide whether a captured mention *is* a concept the graph holds (ADR 0049):

* :func:`normalise_jurisdiction` turns whatever the model wrote for a jurisdiction into the
  project's code before a key is built: the project's own codes (``IE``, ``UK``, ``NI``,
  ``EU``) and their usual spellings, then ISO 3166 through ``pycountry`` (alpha-2, alpha-3,
  English names, ``GB-NIR``). ``GB`` is ``UK``; a country the graph does not cover keeps its
  ISO alpha-2 code (``DEU`` -> ``DE``) and stays out of coverage; what neither knows is left
  as it was (out of coverage too).
* :func:`label_forms` gives the **exact forms** of one label, the only thing a capture may
  join a concept on without review. The normaliser handles, and only handles:

  - Unicode NFKC/NFKD compatibility forms, case and diacritics (:func:`normalise_label`);
  - punctuation, hyphens and compounds: the words are joined ("auto-enrolment",
    "auto enrolment" and "autoenrolment" are one form; "V.A.T." is "VAT");
  - possessives ("Jobseeker's", "Jobseekers'" and "Jobseekers" are one form);
  - "&" read as "and" ("R&D" is "R and D");
  - plurals, word by word (:func:`singular`: "duties", "taxes", "benefits");
  - jurisdiction words ("Irish", "UK", "(United Kingdom)", "European Union"): a form without
    them is kept *with the jurisdictions they named*, and it may only meet a concept of one
    of those jurisdictions ("Irish VAT" is Ireland's VAT, "UK GDPR" is not the EU's GDPR).

  Everything else — another language, former names, acronyms, other spellings ("enrollment")
  — is data: a SKOS ``altLabel`` or ``hiddenLabel`` of the concept in the seeds, or an acronym
  the graph records as a label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

import pycountry

from engine.normalise import normalise_label, upper_snake

__all__ = [
    "COVERED_JURISDICTIONS",
    "EU",
    "LabelForm",
    "label_forms",
    "normalise_jurisdiction",
    "singular",
    "words_of",
]

COVERED_JURISDICTIONS: Final = frozenset({"IE", "UK", "NI", "EU"})
EU: Final = "EU"

# The project's codes and spellings ISO 3166 does not give (as upper snake, the way a capture's
# jurisdiction arrives): GB is the UK here, NI is Northern Ireland, EU the Union.
_PROJECT_CODES: Final[dict[str, str]] = {
    "IE": "IE", "UK": "UK", "NI": "NI", "EU": "EU", "GB": "UK", "GBR": "UK", "IRL": "IE",
    "ROI": "IE", "EIRE": "IE", "REPUBLIC_OF_IRELAND": "IE", "GREAT_BRITAIN": "UK",
    "BRITAIN": "UK", "NORTHERN_IRELAND": "NI", "GB_NIR": "NI", "EUROPEAN_UNION": "EU",
    "EUR": "EU", "EU27": "EU",
}  # fmt: skip
_ISO_TO_PROJECT: Final[dict[str, str]] = {"GB": "UK", "IE": "IE", "GB-NIR": "NI"}


@lru_cache(maxsize=1024)
def normalise_jurisdiction(raw: str) -> str:
    """The project's code for a jurisdiction as written (see the module docstring)."""
    key = upper_snake(raw)
    parts = key.split("_")
    if len(parts) > 1 and all(len(p) == 1 for p in parts):  # "U.K." -> U_K -> UK
        key = "".join(parts)
    if key in _PROJECT_CODES:
        return _PROJECT_CODES[key]
    text = raw.strip().replace("_", " ")  # a capture's jurisdiction arrives upper snake
    if (code := _country(text)) is not None:
        return _ISO_TO_PROJECT.get(code, code)
    if (code := _subdivision(raw.strip().replace("_", "-"))) is not None:
        return _ISO_TO_PROJECT.get(code, code)
    return key


def _country(text: str) -> str | None:
    try:
        return str(pycountry.countries.lookup(text).alpha_2)
    except LookupError:
        return None


def _subdivision(text: str) -> str | None:
    if "-" not in text:
        return None  # only codes ("GB-NIR"): a bare word ("Cork") is not a jurisdiction here
    try:
        code = str(pycountry.subdivisions.lookup(text).code)
    except LookupError:
        return None
    return code if code in _ISO_TO_PROJECT else code.replace("-", "_")


# Words that name a jurisdiction inside a label (two-word names first).
_JURISDICTION_PHRASES: Final[dict[tuple[str, ...], str]] = {
    ("northern", "ireland"): "NI", ("united", "kingdom"): "UK", ("great", "britain"): "UK",
    ("royaume", "uni"): "UK", ("european", "union"): "EU", ("union", "europeenne"): "EU",
    ("ireland",): "IE", ("irish",): "IE", ("ie",): "IE", ("roi",): "IE", ("irlande",): "IE",
    ("eire",): "IE", ("irlandais",): "IE", ("irlandaise",): "IE",
    ("uk",): "UK", ("british",): "UK", ("britain",): "UK", ("gb",): "UK",
    ("britannique",): "UK", ("eu",): "EU", ("european",): "EU", ("europeen",): "EU",
    ("europeenne",): "EU", ("ue",): "EU",
}  # fmt: skip
_POSSESSIVE: Final = re.compile(r"(?<=\w)['’`´]s\b", re.IGNORECASE)
_PLURAL_POSSESSIVE: Final = re.compile(r"(?<=s)['’`´](?=\W|$)", re.IGNORECASE)


def singular(token: str) -> str:
    """A crude English singular, enough for labels ("contributions", "duties", "taxes")."""
    if len(token) <= 3 or token.endswith(("ss", "us", "is")):
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("xes", "ches", "shes", "sses", "zes")):
        return token[:-2]
    if token.endswith("s"):
        return token[:-1]
    return token


def words_of(text: str) -> list[str]:
    """The normalised words of a label: possessives dropped, "&" read as "and", each word
    singular."""
    text = _PLURAL_POSSESSIVE.sub("", _POSSESSIVE.sub("", text)).replace("&", " and ")
    return [singular(w) for w in normalise_label(text).split()]


@dataclass(frozen=True, slots=True)
class LabelForm:
    """One exact form of a label: its words joined (``form``), and the jurisdictions its
    removed jurisdiction words named (``named``; empty: the whole label)."""

    form: str
    named: frozenset[str] = frozenset()
    words: tuple[str, ...] = ()


@lru_cache(maxsize=65536)
def label_forms(text: str) -> tuple[LabelForm, ...]:
    """The exact forms of a label: the whole of it, and, when it has jurisdiction words
    and something else, the rest with the jurisdictions they named."""
    words = words_of(text)
    if not words:
        return ()
    out = [LabelForm("".join(words), frozenset(), tuple(words))]
    kept: list[str] = []
    named: set[str] = set()
    i = 0
    while i < len(words):
        for size in (2, 1):
            phrase = tuple(words[i : i + size])
            if len(phrase) == size and phrase in _JURISDICTION_PHRASES:
                named.add(_JURISDICTION_PHRASES[phrase])
                i += size
                break
        else:
            kept.append(words[i])
            i += 1
    if named and kept:
        out.append(LabelForm("".join(kept), frozenset(named), tuple(kept)))
    return tuple(out)
