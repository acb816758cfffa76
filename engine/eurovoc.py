"""The shipped EuroVoc subset, read into lexicon entries.

The EuroVoc taxation (microthesaurus 2446) and SOCIAL QUESTIONS (domain 28) vocabulary in
English and French ships as the compact file ``engine/data/eurovoc_tax_social.json`` (built by
``tools/build_eurovoc_lexicon.py``; see ``docs/adr/0005-eurovoc-lexicon.md``).
:func:`load_eurovoc` turns each concept into a :class:`~engine.lexicon_entry.LexiconEntry`
(``scheme="eurovoc"``) with a lexicon ``domain`` (by microthesaurus, or by a subtree override)
and a ``kind`` derived from the English preferred label. EuroVoc is not seeded into the graph:
a EuroVoc concept enters it through self-population the first time a conversation names it.

EuroVoc data © European Union, reused under CC BY 4.0 (attribution in the data file).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

from engine.lexicon_entry import LexiconEntry
from engine.normalise import kind_from_label, normalise_label

__all__ = [
    "EUROVOC_DATA_FILE",
    "EUROVOC_DOMAIN_BY_MICROTHESAURUS",
    "EUROVOC_DOMAIN_BY_SUBTREE",
    "EUROVOC_URI_PREFIX",
    "EurovocConcept",
    "load_eurovoc",
]

EUROVOC_DATA_FILE: Final = "eurovoc_tax_social.json"
EUROVOC_URI_PREFIX: Final = "http://eurovoc.europa.eu/"

#: Lexicon ``domain`` of a EuroVoc concept, by the notation of its microthesaurus.
EUROVOC_DOMAIN_BY_MICROTHESAURUS: Final[dict[str, str]] = {
    "2446": "TAX",  # taxation
    "2806": "FAMILY",  # family
    "2811": "MIGRATION",  # migration
    "2816": "DEMOGRAPHY",  # demography and population
    "2821": "SOCIAL",  # social framework
    "2826": "SOCIAL",  # social affairs
    "2831": "CULTURE",  # culture and religion
    "2836": "WELFARE",  # social protection
    "2841": "HEALTH",  # health
    "2846": "HOUSING",  # construction and town planning
}
#: Overrides for whole subtrees: the concept and everything below it (via ``broader``).
#: 3751 "pension scheme" (in 2836 social protection) and its narrower concepts -> PENSIONS.
EUROVOC_DOMAIN_BY_SUBTREE: Final[dict[str, str]] = {"3751": "PENSIONS"}
_DEFAULT_EUROVOC_DOMAIN: Final = "SOCIAL"
# A scope note that only tells indexers which term to use is no definition.
_USAGE_NOTE_PREFIXES: Final = ("use ", "do not ", "not to be ", "from release ", "see ")
_SUPPORTED_FORMAT: Final = 1


@dataclass(frozen=True, slots=True)
class EurovocConcept:
    """A EuroVoc concept as a lexicon entry, with its preferred labels in every language.

    ``preferred_labels`` holds the normalised English and French preferred labels: the entry's
    ``pref_label`` is English (French when there is none), so the French one sits among its
    ``alt_labels``, yet it must still rank as a preferred label when labels collide.
    """

    entry: LexiconEntry
    preferred_labels: frozenset[str]


def load_eurovoc(path: Path | None = None) -> list[EurovocConcept]:
    """Read the EuroVoc subset (default: the packaged ``engine/data`` file), in file order.

    Raises ``ValueError`` if the file's ``format`` is not the one this loader reads.
    """
    data = _read(path)
    concepts: list[dict[str, Any]] = data["concepts"]
    broader = {str(c["id"]): [str(b) for b in c.get("broader", [])] for c in concepts}
    return [_concept(c, broader) for c in concepts]


def _read(path: Path | None) -> dict[str, Any]:
    if path is None:
        text = resources.files("engine").joinpath("data", EUROVOC_DATA_FILE).read_text("utf-8")
    else:
        text = path.read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    if data.get("format") != _SUPPORTED_FORMAT:
        raise ValueError(f"unsupported EuroVoc lexicon format: {data.get('format')!r}")
    return data


def _concept(c: dict[str, Any], broader: dict[str, list[str]]) -> EurovocConcept:
    cid = str(c["id"])
    pref: dict[str, str] = c["pref"]
    alt: dict[str, list[str]] = c.get("alt", {})
    pref_label = pref.get("en") or pref.get("fr") or cid
    alt_labels: list[str] = []
    for label in (pref.get("fr"), *alt.get("en", ()), *alt.get("fr", ())):
        if label and label != pref_label and label not in alt_labels:
            alt_labels.append(label)
    mts = [str(m) for m in c.get("mt", [])]
    entry = LexiconEntry(
        key=f"eurovoc:{cid}",
        pref_label=pref_label,
        alt_labels=tuple(alt_labels),
        domain=_domain(cid, mts, broader),
        kind=kind_from_label(pref_label),
        jurisdiction=None,
        definition=_definition(c),
        source_urls=(f"{EUROVOC_URI_PREFIX}{cid}",),
        scheme="eurovoc",
        notation=str(c["notation"]) if c.get("notation") else None,
        broader=tuple(f"eurovoc:{b}" for b in broader[cid]),
        microthesaurus=mts[0] if mts else None,
    )
    preferred = frozenset(normalise_label(label) for label in pref.values() if label)
    return EurovocConcept(entry, preferred)


def _domain(cid: str, mts: list[str], broader: dict[str, list[str]]) -> str:
    todo, seen = [cid], set()
    while todo:  # the concept itself, then its ancestors (within the subset)
        cur = todo.pop()
        if cur in seen:
            continue
        seen.add(cur)
        if cur in EUROVOC_DOMAIN_BY_SUBTREE:
            return EUROVOC_DOMAIN_BY_SUBTREE[cur]
        todo.extend(broader.get(cur, ()))
    for mt in mts:
        if mt in EUROVOC_DOMAIN_BY_MICROTHESAURUS:
            return EUROVOC_DOMAIN_BY_MICROTHESAURUS[mt]
    return _DEFAULT_EUROVOC_DOMAIN


def _definition(concept: dict[str, Any]) -> str | None:
    definition = concept.get("definition", {}).get("en")
    if definition:
        return str(definition)
    note = concept.get("scope_note", {}).get("en")
    if note and not str(note).lower().startswith(_USAGE_NOTE_PREFIXES):
        return str(note)
    return None
