"""Normalisation: labels, upper-snake keys and jurisdiction codes.

The one place that decides stored keys.

Two functions here decide what the graph stores, so a change to either changes keys that are
already written:

* :func:`normalise_label` gives the text compared by the concept lexicon and the concept
  resolver, and stored as ``Label.normalised`` (the ``LABEL:…`` id is built from it);
* :func:`upper_snake` gives each part of a concept id ``DOMAIN:JURISDICTION:KIND``.

``tests/unit/test_normalise.py`` pins both with a frozen table of examples; a test that fails
there means stored keys would change (and the graph would need a migration), not that the
table is out of date.

:func:`tokenise` is the tokeniser under :func:`normalise_label`, with the character span of
each token in the original text, so that the lexicon can report where a label was found.

A capture's jurisdiction (ADR 0049): :func:`normalise_jurisdiction` turns whatever the model
wrote for a jurisdiction into the project's code before a key is built: the project's own codes
(``IE``, ``UK``, ``NI``, ``EU``) and their usual spellings, then ISO 3166 through ``pycountry``
(alpha-2, alpha-3, English names, ``GB-NIR``), then the names pycountry's catalogues give in
French, Irish and German ("Irlande", "Royaume-Uni", "Deutschland"; ADR 0060), then the UK's
constituent countries by their ISO 3166-2 names ("England", "Scotland", "Wales", "Cymru": the
UK; ADR 0078). ``GB`` is
``UK``; a country the graph does not cover keeps its ISO alpha-2 code (``DEU`` -> ``DE``)
and stays out of coverage; what none of them knows is left as it was (out of coverage too).

The exact forms a capture joins a concept on (plurals, possessives, jurisdiction words) are
matching's rules, not stored keys: :func:`engine.matching.label_forms`.
"""

from __future__ import annotations

import gettext
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

import pycountry

__all__ = [
    "COVERED_JURISDICTIONS",
    "EU",
    "KEY_MAX_LEN",
    "Tokens",
    "kind_from_label",
    "normalise_jurisdiction",
    "normalise_label",
    "tokenise",
    "upper_snake",
]

#: Longest part of a concept id that :func:`upper_snake` returns.
KEY_MAX_LEN: Final = 64

# A token is a run of letters/digits (Unicode), possibly carrying combining marks (so that
# decomposed input such as "e" + U+0301 stays one token). Everything else separates tokens.
_COMBINING: Final = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_TOKEN_RE: Final = re.compile(rf"[^\W_](?:[^\W_]|[{_COMBINING}])*")
# Letters that NFKD does not decompose but that users type without the diacritic or ligature.
_EXTRA_FOLD: Final = str.maketrans(
    {"ø": "o", "đ": "d", "ð": "d", "ł": "l", "ħ": "h", "ı": "i", "œ": "oe", "æ": "ae", "þ": "th"}
)
_NON_KEY: Final = re.compile(r"[^A-Z0-9]+")


@dataclass(frozen=True, slots=True)
class Tokens:
    """The normalised tokens of a text and where each came from: token ``k`` is ``texts[k]``,
    read from ``text[starts[k]:ends[k]]``.

    A source token may fold into several tokens ("½" becomes "1" and "2"); they then share the
    source span. Parallel tuples rather than one object per token: the lexicon tokenises every
    question, and this keeps that cheap.
    """

    texts: tuple[str, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.texts)


@lru_cache(maxsize=65536)
def _fold_token(raw: str) -> tuple[str, ...]:
    """Fold one raw token (non-ASCII path): NFKD, drop marks, casefold, split leftovers."""
    decomposed = unicodedata.normalize("NFKD", raw.casefold())
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    folded = unicodedata.normalize("NFKD", stripped.translate(_EXTRA_FOLD)).casefold()
    return tuple(_TOKEN_RE.findall(folded))


def tokenise(text: str) -> Tokens:
    """The normalised tokens of ``text`` (see :func:`normalise_label`) with their spans."""
    texts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for m in _TOKEN_RE.finditer(text):
        raw = m.group()
        if raw.isascii():  # the common case: no Unicode folding, no cache look-up
            texts.append(raw.lower())
            starts.append(m.start())
            ends.append(m.end())
        else:
            start, end = m.span()
            for tok in _fold_token(raw):
                texts.append(tok)
                starts.append(start)
                ends.append(end)
    return Tokens(tuple(texts), tuple(starts), tuple(ends))


def normalise_label(text: str) -> str:
    """Normalise a label or phrase for comparison. Deterministic; shared by the lexicon, the
    concept resolver and ``Label`` nodes, so changing it changes stored keys.

    Rules, in order, per token:

    1. Tokens are maximal runs of Unicode letters and digits; every other character
       (spaces, punctuation, apostrophes, hyphens, slashes, underscores, "&") separates tokens.
    2. Each token is case-folded (``str.casefold``: "ß" -> "ss"), decomposed (NFKD, so
       ligatures and full-width forms become plain letters) and stripped of combining marks
       (accents): "Ajoutée" -> "ajoutee". "œ æ ø ł đ ð þ ı" fold to "oe ae o l d d th i".
    3. Tokens are joined with single spaces; leading and trailing space never appears.

    Nothing else: no stemming ("pensions" stays "pensions"), no stop words, non-Latin letters
    kept. Examples: "Taxe sur la valeur ajoutée" -> "taxe sur la valeur ajoutee";
    "tax-free  allowance" -> "tax free allowance"; "taxe à l'importation" ->
    "taxe a l importation"; "widow's pension" -> "widow s pension"; "COVID-19" -> "covid 19".
    """
    return " ".join(tokenise(text).texts)


def upper_snake(text: str, limit: int = KEY_MAX_LEN) -> str:
    """``"value added tax"`` -> ``"VALUE_ADDED_TAX"``: a part of a concept id.

    NFKD, then every non-ASCII character is dropped (accents are thereby removed: "Impôt" ->
    "IMPOT", but "ß" and "œ" vanish), upper-cased, runs of anything but ``[A-Z0-9]`` become
    one "_", "_" is stripped from both ends, and the result is cut to ``limit`` characters
    (then stripped again). May return "" (no ASCII letters or digits).
    """
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _NON_KEY.sub("_", folded.upper()).strip("_")[:limit].strip("_")


def kind_from_label(label: str) -> str:
    """UPPER_SNAKE ``kind`` from a label: "value added tax" -> "VALUE_ADDED_TAX".

    :func:`upper_snake` of :func:`normalise_label`, so letters that ``upper_snake`` alone
    would drop are folded first: "survivor's benefit" -> "SURVIVOR_S_BENEFIT",
    "taxe à l'importation" -> "TAXE_A_L_IMPORTATION", "Straße" -> "STRASSE". At most 64
    characters. Raises ``ValueError`` if nothing is left (for example a Greek label).
    """
    kind = upper_snake(normalise_label(label))
    if not kind:
        raise ValueError(f"cannot derive a kind from label {label!r}")
    return kind


COVERED_JURISDICTIONS: Final = frozenset({"IE", "UK", "NI", "EU"})
EU: Final = "EU"

# The project's codes and spellings ISO 3166 does not give (as upper snake, the way a capture's
# jurisdiction arrives): GB is the UK here, NI is Northern Ireland, EU the Union.
_PROJECT_CODES: Final[dict[str, str]] = {
    "IE": "IE", "UK": "UK", "NI": "NI", "EU": "EU", "GB": "UK", "GBR": "UK", "IRL": "IE",
    "ROI": "IE", "EIRE": "IE", "REPUBLIC_OF_IRELAND": "IE", "GREAT_BRITAIN": "UK",
    "BRITAIN": "UK", "NORTHERN_IRELAND": "NI", "GB_NIR": "NI", "EUROPEAN_UNION": "EU",
    "EUR": "EU", "EU27": "EU", "IRLANDE_DU_NORD": "NI", "UNION_EUROPEENNE": "EU",
    "TUAISCEART_EIREANN": "NI", "AN_TAONTAS_EORPACH": "EU",
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
    if (code := _translated_countries().get(key)) is not None:
        return _ISO_TO_PROJECT.get(code, code)
    parts_named = {_constituent_parts().get(part) for part in key.split("_AND_")}
    if len(parts_named) == 1 and (code := parts_named.pop()) is not None:
        return code  # "England", "Wales", "England and Wales"
    return key


@lru_cache(maxsize=1)
def _constituent_parts() -> dict[str, str]:
    """The UK's constituent countries and province by the names ISO 3166-2 gives them
    (pycountry: "England", "Scotland", "Wales [Cymru GB-CYM]", "Northern Ireland"), upper
    snake -> project code: a country is the UK (its taxes and benefits are the UK's concepts),
    the province Northern Ireland is ``NI``. Counties and cities are not jurisdictions here."""
    out: dict[str, str] = {}
    for part in pycountry.subdivisions:
        if part.country_code != "GB" or part.type not in ("Country", "Province"):
            continue
        code = _ISO_TO_PROJECT.get(str(part.code), "UK")
        for name in re.split(r"[\[\]]", str(part.name)):
            for word in name.split():
                if "-" in word:  # an alternative code ("GB-CYM"), not a name
                    name = name.replace(word, "")
            if key := upper_snake(name):
                out.setdefault(key, code)
    return out


#: Languages whose ISO 3166 country names (pycountry's translations) are read: the EuroVoc
#: languages the project ships (English and French), Irish, and German.
_JURISDICTION_NAME_LANGUAGES: Final = ("fr", "ga", "de")


@lru_cache(maxsize=1)
def _translated_countries() -> dict[str, str]:
    """Country names in :data:`_JURISDICTION_NAME_LANGUAGES` (upper snake) -> ISO alpha-2,
    from pycountry's own translation catalogues ("Irlande" -> IE, "Royaume-Uni" -> GB)."""
    out: dict[str, str] = {}
    for language in _JURISDICTION_NAME_LANGUAGES:
        try:
            catalogue = gettext.translation(
                "iso3166-1", pycountry.LOCALES_DIR, languages=[language]
            )
        except OSError:  # a pycountry build without that catalogue
            continue
        for country in pycountry.countries:
            for name in {country.name, getattr(country, "common_name", country.name)}:
                translated = upper_snake(catalogue.gettext(name))
                if translated:
                    out.setdefault(translated, str(country.alpha_2))
    return out


def _country(text: str) -> str | None:
    try:
        return str(pycountry.countries.lookup(text).alpha_2)
    except LookupError:
        return None


def _subdivision(text: str) -> str | None:
    if "-" not in text:
        return None  # only codes ("GB-NIR"): a bare word ("Cork") is not a jurisdiction here
    try:
        found = pycountry.subdivisions.lookup(text)
    except LookupError:
        return None
    code = str(found.code)
    if code in _ISO_TO_PROJECT:
        return code
    name = upper_snake(str(found.name).split("[")[0])
    if code.startswith("GB-") and (part := _constituent_parts().get(name)) is not None:
        return part  # "GB-ENG", "GB-SCT", "GB-WLS": the UK
    return code.replace("-", "_")
