"""Concepts captured by the lexicon, for a turn that had no model capture.

The offline extractive provider captures this way, and so does the engine when a provider ran
answer-only (no tool support, or tools refused): the concepts the lexicon recognises in the
given text, as ``capture_concepts`` payload items — no model call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.lexicon import ConceptLexicon
from engine.normalise import kind_from_label

__all__ = ["MAX_CONCEPTS", "lexicon_concepts"]

MAX_CONCEPTS = 5


def lexicon_concepts(
    lexicon: ConceptLexicon, text: str, jurisdictions: Sequence[str]
) -> list[dict[str, Any]]:
    """The concepts the lexicon finds in ``text``, in the jurisdictions the turn named.

    Nothing is guessed (ADR 0023): an entry with a jurisdiction of its own keeps it when the turn
    named it or named none; an entry without one (EuroVoc) or of another jurisdiction is placed
    in the turn's first jurisdiction, or skipped when the turn named none. A concept placed in
    another jurisdiction than its entry's carries only the words the text used: never the
    entry's labels, definition or source URLs, which describe the other jurisdiction's law.
    """
    concepts: dict[str, dict[str, Any]] = {}
    primary = jurisdictions[0] if jurisdictions else None
    for hit in lexicon.match(text, limit=MAX_CONCEPTS, jurisdiction=primary):
        entry = hit.entry
        own = entry.jurisdiction
        if own and (not jurisdictions or own in jurisdictions or own == "EU"):
            where = own
        elif primary is not None:
            where = primary
        else:
            continue  # no jurisdiction named and none of its own: not guessed
        concept: dict[str, Any]
        if own in (where, None):
            alt = [label for label in (*entry.alt_labels, hit.matched) if label != entry.pref_label]
            concept = {
                "domain": entry.domain,
                "kind": entry.kind,
                "jurisdiction": where,
                "prefLabel": entry.pref_label,
                "altLabels": list(dict.fromkeys(alt))[:10],
                "sourceUrls": list(entry.source_urls),
            }
            if entry.definition:
                concept["definition"] = entry.definition
        else:  # "inheritance tax in the UK" matched Ireland's CAT: the words, not the facts
            try:
                kind = kind_from_label(hit.matched)
            except ValueError:
                continue
            concept = {
                "domain": entry.domain,
                "kind": kind,
                "jurisdiction": where,
                "prefLabel": hit.matched,
                "altLabels": [],
            }
        concepts.setdefault(f"{concept['domain']}:{where}:{concept['kind']}", concept)
    return list(concepts.values())
