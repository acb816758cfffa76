"""Screening a captured payload before anything of it is resolved or written (ADR 0017).

A model that echoes the user's phrasing puts chat text into ``capture_concepts``: fragments and
whole questions as labels, names, the tenant's name, instructions. The ingress guard stops PII;
this screen stops everything that is not vocabulary, and says how much it dropped:

* a concept whose ``prefLabel`` or key (``domain``, ``kind``, ``jurisdiction``) is not a term
  is dropped whole; an ``altLabel`` that is not a term is dropped alone;
* a ``definition`` that reads like chat is dropped (the concept stays);
* a label or a definition with markup, a line break, an instruction to a model or a bracketed
  node id (:data:`engine.text_flags.REFUSED`) is refused like one that is not a term (issue 30,
  ADR 0044); a figure in a definition is kept, and flagged for the operator in the review queue;
* each ``sourceUrl`` keeps scheme, host and the leading path segments that carry nothing
  personal (:func:`clean_source_url`), or is dropped.

Drops are counted by reason (``"alt_label:person_name"``), never with the text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from urllib.parse import unquote, urlsplit, urlunsplit

from egress.pii.lexicon import load_lexicon
from engine.concepts import CapturedConcept
from engine.label_policy import definition_problem, term_problem
from engine.normalise import normalise_label, tokenise
from engine.text_flags import REFUSED, text_flags

__all__ = [
    "clean_source_url",
    "forbidden_terms",
    "person_name_words",
    "screen_concepts",
]

# A path segment that may stay: letters, short numbers, hyphens, underscores, a file extension;
# no "@", no run of five digits, no token mixing letters with four digits (an id).
_SAFE_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]{0,79}")
_DIGIT_RUN = re.compile(r"\d{5,}|(?=[\w-]*[A-Za-z])(?=(?:[\w-]*\d){4})[\w-]{5,}")
_CODE = re.compile(r"[A-Z]{2,3}")
_HOST = re.compile(r"[a-z0-9](?:[a-z0-9.\-]{0,251}[a-z0-9])?")


@cache
def person_name_words() -> frozenset[str]:
    """Lower-case first names and surnames that are not English words nor places."""
    lexicon = load_lexicon()
    return frozenset(
        (lexicon.first_names | lexicon.surnames) - lexicon.english_words - lexicon.non_names
    )


def forbidden_terms(ids: Iterable[str]) -> frozenset[str]:
    """The normalised forms and tokens (3+ characters) of tenant and user ids."""
    out: set[str] = set()
    for raw in ids:
        if raw:
            out.add(normalise_label(raw))
            out.update(t for t in tokenise(raw).texts if len(t) >= 3)
    return frozenset(out)


def clean_source_url(url: str) -> str | None:
    """``url`` reduced to scheme, host and its leading path segments that look like a site's
    own page names; ``None`` when it cannot be kept (not http(s), no host, user info)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if parts.scheme.lower() not in ("http", "https") or not _HOST.fullmatch(host):
        return None
    if parts.username or parts.password:
        return None
    kept: list[str] = []
    for segment in parts.path.split("/"):
        if not segment:
            continue
        decoded = unquote(unquote(segment))
        if not _SAFE_SEGMENT.fullmatch(decoded) or _DIGIT_RUN.search(decoded):
            break  # everything after a personal segment goes with it
        if term_problem(decoded.replace("-", " ").replace("_", " "), names=person_name_words()):
            break
        kept.append(decoded)
    path = "/" + "/".join(kept) if kept else ""
    return urlunsplit((parts.scheme.lower(), host, path, "", ""))


def screen_concepts(
    concepts: Sequence[CapturedConcept],
    *,
    private_ids: Iterable[str] = (),
    drops: Counter[str] | None = None,
) -> list[CapturedConcept]:
    """The concepts as they may be written (see the module docstring); ``drops`` counts what
    was removed, by reason. ``private_ids``: the tenant's and the user's ids, never a label
    nor a word of one (:func:`forbidden_terms`)."""
    forbidden = forbidden_terms(private_ids)
    counted: Counter[str] = drops if drops is not None else Counter()
    names = person_name_words()
    kept: list[CapturedConcept] = []
    for concept in concepts:
        problem = None
        for field, value in (
            ("domain", concept.domain),
            ("kind", concept.kind),
            ("jurisdiction", concept.jurisdiction),
            ("pref_label", concept.prefLabel),
        ):
            if field == "jurisdiction" and _CODE.fullmatch(value):
                continue  # a country code ("US", "FR"), not words: out of coverage is decided later
            words = value.replace("_", " ") if field == "pref_label" else _key_words(value)
            reason = _refused(value) or term_problem(words, forbidden=forbidden, names=names)
            if reason is not None:
                problem = f"{field}:{reason}"
                break
        if problem is not None:
            counted[f"concept:{problem}"] += 1
            continue
        alt_labels = []
        for label in concept.altLabels:
            reason = _refused(label) or term_problem(label, forbidden=forbidden, names=names)
            if reason is None:
                alt_labels.append(label)
            else:
                counted[f"alt_label:{reason}"] += 1
        definition = concept.definition
        if definition:
            reason = _refused(definition) or definition_problem(
                definition, forbidden=forbidden, names=names
            )
            if reason is not None:
                counted[f"definition:{reason}"] += 1
                definition = None
        urls: list[str] = []
        for url in concept.sourceUrls:
            cleaned = clean_source_url(url)
            if cleaned is None:
                counted["source_url:dropped"] += 1
            elif cleaned not in urls:
                urls.append(cleaned)
        kept.append(
            concept.model_copy(
                update={"altLabels": alt_labels, "definition": definition, "sourceUrls": urls}
            )
        )
    return kept


# A run of single letters in a key ("A_I_ACT", "V_A_T"): a dotted acronym's letters, one word.
_LETTER_RUN = re.compile(r"(?<![^\W_])[^\W\d_](?:_[^\W\d_])+(?![^\W_])")


def _key_words(value: str) -> str:
    """A key (``domain``, ``kind``, ``jurisdiction``) as the words the screen judges:
    underscores as spaces, a run of single letters as one word ("A_I_ACT" -> "AI ACT", as
    "A.I. Act" is "AI Act" for labels; ADR 0060)."""
    return _LETTER_RUN.sub(lambda m: m.group().replace("_", ""), value).replace("_", " ")


def _refused(text: str) -> str | None:
    """The first refused flag of ``text`` (markup, newline, instruction, citation), if any."""
    return next((flag for flag in text_flags(text) if flag in REFUSED), None)
