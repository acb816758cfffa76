"""Matching: which concept a captured mention names, by explicit rules (ADR 0023).

:class:`ConceptMatcher` is the one entry self-population uses: the capture's own key first,
then the reviewed concepts' labels (:class:`ReviewedConcepts` and :func:`decide`, below), then
the store's labels (reviewed concepts the lexicon has not learnt yet, and quarantined ones, a
quarantined one only when its id is spelled by the mention's own words); a concept merged into
another is followed to its survivor (ADR 0034). Quarantine is read through
:mod:`graph.quarantine`'s predicates only.

A capture names a concept by a key the model built (``domain``, ``jurisdiction``, ``kind``) and
by labels in the user's words. Resolution finds the canonical, reviewed concept it means, or
says that there is none (ADR 0023). Candidates come from the reviewed concepts' labels (the
concept lexicon's ``graph`` entries), compared through **label variants**:

- the label normalised (:func:`engine.normalise.normalise_label`: case, accents, punctuation),
  with "&" read as "and";
- without a parenthesised qualifier ("Income tax (Ireland)" -> "income tax");
- without jurisdiction words ("Irish VAT", "VAT UK" -> "vat");
- each word singular ("social insurance contributions" -> "social insurance contribution");
- its initials, for a label of three words or more ("pay as you earn" -> PAYE), matched only
  against a label that *is* one short word ("PAYE"), and the other way round.

A variant without jurisdiction words ("EU VAT" -> "vat") is *qualified*: it matches only a
capture in the candidate's own jurisdiction, so a bare "VAT" captured in Northern Ireland does not
become the EU's VAT Directive through the label "EU VAT".

A **fuzzy** pass then forgives one typo (two in long labels) between labels of at least eight
letters with the same words count and the same digits ("entrepeneur relief"), never between
acronyms or short labels (VAT and VRT, CGT and CAT stay apart).

The **decision** (:func:`decide`) is a small set of rules, tested one by one:

1. a candidate in another member-state jurisdiction is never the same concept (IE income tax
   is not UK income tax);
2. an EU-level candidate (an EU act, an EU-wide regime) is accepted whatever member-state
   jurisdiction the capture carries ("AI Act" captured as IE is the EU's AI Act);
3. among acceptable candidates: the capture's own jurisdiction before the EU, then the
   stronger evidence (same label > acronym > kind variant > fuzzy), then the id;
4. a different spelling of the kind (``SMALL_BENEFIT`` / ``SMALL_BENEFIT_EXEMPTION``) is the
   same concept when the domain and jurisdiction agree, one kind extends the other by a
   generic word ("exemption", "scheme", "relief"...), and a label agrees.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, Literal

from rapidfuzz.distance import DamerauLevenshtein

from engine.concepts import CapturedConcept
from engine.lexicon import ConceptLexicon
from engine.lexicon_entry import LexiconEntry
from engine.normalise import normalise_label
from graph.models import GraphNode
from graph.port import ConceptReader
from graph.quarantine import MERGED_STATUS, is_quarantined

__all__ = [
    "COVERED_JURISDICTIONS",
    "EU",
    "Candidate",
    "ConceptMatcher",
    "FoundBy",
    "MatchedBy",
    "ReviewedConcepts",
    "decide",
    "label_variants",
    "singular",
    "unqualified",
]

COVERED_JURISDICTIONS: Final = frozenset({"IE", "UK", "NI", "EU"})
EU: Final = "EU"

_QUALIFIERS: Final = frozenset(
    {"ireland", "irish", "ie", "uk", "united", "kingdom", "british", "britain", "gb", "eu",
     "european", "union", "roi", "irlande", "britannique", "royaume", "uni"}
)  # fmt: skip
_ACRONYM_STOPWORDS: Final = frozenset(
    {"of", "the", "and", "for", "on", "in", "to", "a", "an", "de", "du", "des", "la", "le",
     "les", "sur", "et", "d", "l", "s"}
)  # fmt: skip
# Words that turn a kind into a sub-kind of the same concept (SMALL_BENEFIT_EXEMPTION).
_GENERIC_SUFFIXES: Final = frozenset(
    {"exemption", "scheme", "relief", "regime", "rules", "system", "allowance", "programme",
     "tax", "credit"}
)  # fmt: skip
_PARENTHETICAL: Final = re.compile(r"\([^)]*\)")
_DIGITS: Final = re.compile(r"\d+")
_FUZZY_MIN: Final = 8
_ACRONYM_MAX: Final = 6
_MIN_INITIALS: Final = 3  # two-letter initials ("carbon tax" -> CT) collide far too often

#: How a capture was resolved, as its ``concepts`` event says (``skipped``: nothing written).
MatchedBy = Literal["key", "alias", "acronym", "kind_variant", "fuzzy", "created", "skipped"]


class FoundBy(IntEnum):
    """How a candidate was found; a lower value is stronger evidence that it is the one."""

    KEY = 0
    LABEL = 1
    ACRONYM = 2
    KIND_VARIANT = 3
    FUZZY = 4


@dataclass(frozen=True, slots=True)
class Candidate:
    """A reviewed concept that may be the captured one, and how it was found."""

    id: str
    domain: str
    jurisdiction: str
    kind: str
    found_by: FoundBy


def singular(token: str) -> str:
    """A crude English singular, enough for labels ("contributions", "reliefs", "allowances")."""
    if len(token) <= 3 or token.endswith(("ss", "us", "is")):
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith("s"):
        return token[:-1]
    return token


def label_variants(text: str) -> tuple[set[str], set[str]]:
    """``(variants, acronyms)`` of one label (see the module docstring). Acronyms are
    ``"=paye"`` for a label that is one short word and ``"~paye"`` for the initials of a label
    of several words; only the two kinds match each other (two phrases with the same initials,
    "rent a room" and "retirement relief", are not the same thing)."""
    base = normalise_label(text.replace("&", " and "))
    plain = normalise_label(_PARENTHETICAL.sub(" ", text.replace("&", " and ")))
    variants = {v for v in (base, plain) if v}
    variants |= {" ".join(singular(w) for w in v.split()) for v in list(variants)}
    variants |= unqualified(variants)
    acronyms: set[str] = set()
    for form in variants:
        words = form.split()
        if len(words) == 1 and 2 <= len(words[0]) <= _ACRONYM_MAX and words[0].isalpha():
            acronyms.add("=" + words[0])
        content = [w for w in words if w not in _ACRONYM_STOPWORDS]
        if len(content) >= _MIN_INITIALS and all(w.isalpha() for w in content):
            acronyms.add("~" + "".join(w[0] for w in content))
    return variants, acronyms


def unqualified(variants: Iterable[str]) -> set[str]:
    """The variants without their jurisdiction words ("irish vat" -> "vat")."""
    out = set()
    for form in variants:
        words = form.split()
        kept = [w for w in words if w not in _QUALIFIERS]
        if kept and len(kept) < len(words):
            out.add(" ".join(kept))
    return out


def _kind_words(kind: str) -> list[str]:
    return [w for w in kind.lower().split("_") if w]


def _kind_variant(a: str, b: str) -> bool:
    """One kind extends the other by generic words only (SMALL_BENEFIT / _EXEMPTION)."""
    x, y = _kind_words(a), _kind_words(b)
    short, long_ = (x, y) if len(x) <= len(y) else (y, x)
    if not short or short == long_ or long_[: len(short)] != short:
        return False
    return all(w in _GENERIC_SUFFIXES for w in long_[len(short) :])


def _fuzzy(a: str, b: str) -> bool:
    if min(len(a), len(b)) < _FUZZY_MIN or len(a.split()) != len(b.split()):
        return False
    if _DIGITS.findall(a) != _DIGITS.findall(b):
        return False  # "section 597" and "section 598" are different provisions
    allowed = 1 if max(len(a), len(b)) < 16 else 2
    return DamerauLevenshtein.distance(a, b, score_cutoff=allowed) <= allowed


class ReviewedConcepts:
    """The reviewed concepts and their label variants, indexed for :meth:`candidates`."""

    def __init__(self, entries: Iterable[LexiconEntry]) -> None:
        self._entries = {e.key: e for e in entries if e.scheme == "graph"}
        self._by_variant: dict[str, set[str]] = {}
        self._by_qualified: dict[str, set[str]] = {}
        self._by_acronym: dict[str, set[str]] = {}
        self._variants: dict[str, set[str]] = {}
        for entry in self._entries.values():
            mine: set[str] = set()
            for text in (entry.pref_label, *entry.alt_labels, entry.kind.replace("_", " ")):
                variants, acronyms = label_variants(text)
                mine |= variants
                plain = variants - unqualified(variants)
                for v in variants:
                    index = self._by_variant if v in plain else self._by_qualified
                    index.setdefault(v, set()).add(entry.key)
                for a in acronyms:
                    self._by_acronym.setdefault(a, set()).add(entry.key)
            self._variants[entry.key] = mine

    def __len__(self) -> int:
        return len(self._entries)

    def candidates(
        self,
        domain: str,
        kind: str,
        labels: Sequence[str],
        jurisdiction: str | None = None,
        *,
        fuzzy: bool = True,
    ) -> list[Candidate]:
        """Every reviewed concept a label, the acronym or the kind of a capture points at
        (through a qualified variant only when in ``jurisdiction``)."""
        found: dict[str, FoundBy] = {}

        def add(key: str, found_by: FoundBy) -> None:
            if key not in found or found_by < found[key]:
                found[key] = found_by

        mine: set[str] = set()
        acronyms: set[str] = set()
        for text in (*labels, kind.replace("_", " ")):
            variants, short = label_variants(text)
            mine |= variants
            acronyms |= short
        for v in mine:
            for key in self._by_variant.get(v, ()):
                add(key, FoundBy.LABEL)
            for key in self._by_qualified.get(v, ()):
                if self._entries[key].jurisdiction == jurisdiction:
                    add(key, FoundBy.LABEL)
        for a in acronyms:
            other = ("~" if a[0] == "=" else "=") + a[1:]  # an abbreviation meets initials
            for key in self._by_acronym.get(other, ()):
                add(key, FoundBy.ACRONYM)
        for key, entry in self._entries.items():
            if entry.domain == domain and _kind_variant(entry.kind, kind):
                if mine & self._variants[key] or _shares_head(mine, self._variants[key]):
                    add(key, FoundBy.KIND_VARIANT)
        if fuzzy and not found:
            for key, theirs in self._variants.items():
                if any(_fuzzy(a, b) for a in mine for b in theirs):
                    add(key, FoundBy.FUZZY)
        return [
            Candidate(key, e.domain, e.jurisdiction or EU, e.kind, found[key])
            for key, e in self._entries.items()
            if key in found
        ]


def _shares_head(mine: set[str], theirs: set[str]) -> bool:
    """A label of one is a label of the other plus generic words ("small benefit exemption")."""
    for a in mine:
        for b in theirs:
            short, long_ = (a, b) if len(a) <= len(b) else (b, a)
            if long_.startswith(short + " ") and all(
                w in _GENERIC_SUFFIXES for w in long_[len(short) + 1 :].split()
            ):
                return True
    return False


def decide(
    jurisdiction: str, candidates: Sequence[Candidate], *, stated: bool = True
) -> Candidate | None:
    """The canonical concept of a capture in ``jurisdiction`` among ``candidates`` (rules 1-3
    of the module docstring), or ``None``.

    ``stated=False``: the conversation never named ``jurisdiction`` (the model guessed it).
    The guess is then ignored: the mention resolves only if every candidate it names lies in
    one jurisdiction ("PRSI" exists in Ireland only; "VAT" in Ireland and the UK: no answer).
    """
    if not stated:
        places = {c.jurisdiction for c in candidates}
        if len(places) != 1:
            return None
        jurisdiction = places.pop()
    acceptable = [c for c in candidates if c.jurisdiction in (jurisdiction, EU)]
    if not acceptable:
        return None
    return min(acceptable, key=lambda c: (c.jurisdiction != jurisdiction, c.found_by, c.id))


class ConceptMatcher:
    """The canonical concept a capture names: its key, the reviewed concepts' labels
    (:class:`ReviewedConcepts`, :func:`decide`), then the store's labels; merge redirects
    followed. Reads the graph, never writes it."""

    def __init__(self, reader: ConceptReader, lexicon: ConceptLexicon | None = None) -> None:
        self._reader = reader
        self._lexicon = lexicon  # its graph entries are the reviewed concepts (GraphSync)
        self._reviewed: tuple[int, ReviewedConcepts] | None = None

    async def find(
        self, concept: CapturedConcept, jurisdictions: Sequence[str] | None
    ) -> tuple[GraphNode | None, MatchedBy]:
        """The canonical concept of a capture and how it was matched. A concept an operator
        merged into another is a redirect (ADR 0034): a match on it, by key or otherwise,
        resolves to the concept it was merged into, matched the same way."""
        found, matched_by = await self._match(concept, jurisdictions)
        if found is not None:
            found = await self._follow(found)
        return found, matched_by

    async def _follow(self, node: GraphNode) -> GraphNode:
        """The end of ``node``'s chain of merge redirects (bounded; the last node found)."""
        for _ in range(_MAX_REDIRECTS):
            into = node.properties.get("merged_into")
            if node.properties.get("status") != MERGED_STATUS or not into:
                break
            targets = await self._reader.get_nodes([str(into)])
            if not targets:
                break
            node = targets[0]
        return node

    async def _match(
        self, concept: CapturedConcept, jurisdictions: Sequence[str] | None
    ) -> tuple[GraphNode | None, MatchedBy]:
        stated = jurisdictions is None or concept.jurisdiction in (*jurisdictions, EU)
        found = await self._reader.get_nodes([concept.id])
        if found and stated:
            return found[0], "key"
        reviewed = self._reviewed_concepts()
        if reviewed is not None:
            texts = [concept.prefLabel, *concept.altLabels]
            candidates = reviewed.candidates(
                concept.domain, concept.kind, texts, concept.jurisdiction if stated else None
            )
            if found and not is_quarantined(found[0]):  # its key, in a guessed jurisdiction
                key = Candidate(concept.id, concept.domain, concept.jurisdiction, concept.kind,
                                FoundBy.KEY)  # fmt: skip
                candidates = [key, *(c for c in candidates if c.id != concept.id)]
            if (best := decide(concept.jurisdiction, candidates, stated=stated)) is not None:
                nodes = await self._reader.get_nodes([best.id])
                if nodes and not is_quarantined(nodes[0]):
                    return nodes[0], _MATCHED_BY[best.found_by]
        # The store's labels: reviewed concepts the lexicon has not learnt yet, and quarantined
        # ones. A quarantined concept is matched only when its id is spelled entirely by this
        # mention's own words: its id then tells this conversation nothing it did not say.
        if not stated:
            return None, "created"  # a guessed jurisdiction: only reviewed, unambiguous matches
        own = _words(concept)
        for variant in _variants(concept):
            for candidate in await self._reader.find_concepts_by_label(variant):
                where = str(candidate.properties.get("jurisdiction", ""))
                if not is_quarantined(candidate) and where in (concept.jurisdiction, EU):
                    return candidate, "alias"
                if where == concept.jurisdiction and _kind_of(candidate.id) <= own:
                    return candidate, "alias"
        return None, "created"

    def _reviewed_concepts(self) -> ReviewedConcepts | None:
        """The reviewed concepts' variant index, rebuilt when the lexicon changed."""
        if self._lexicon is None:
            return None
        version = self._lexicon.version
        if self._reviewed is None or self._reviewed[0] != version:
            self._reviewed = (version, ReviewedConcepts(self._lexicon))
        return self._reviewed[1]


_MAX_REDIRECTS = 8

_MATCHED_BY: dict[FoundBy, MatchedBy] = {
    FoundBy.KEY: "key",
    FoundBy.LABEL: "alias",
    FoundBy.ACRONYM: "acronym",
    FoundBy.KIND_VARIANT: "kind_variant",
    FoundBy.FUZZY: "fuzzy",
}


def _variants(concept: CapturedConcept) -> list[str]:
    """The normalised label variants of a capture (its labels first), for store look-ups."""
    found: dict[str, None] = {label: None for label in concept.normalised_labels()}
    for text in (concept.prefLabel, *concept.altLabels):
        variants = sorted(label_variants(text)[0])
        found.update(dict.fromkeys(variants))
        found.update(dict.fromkeys(_plural(v) for v in variants))  # stored labels are as said
    return [variant for variant in found if variant]


def _plural(phrase: str) -> str:
    head, _, last = phrase.rpartition(" ")
    last = last[:-1] + "ies" if last.endswith("y") else last + "s"
    return f"{head} {last}".strip()


def _words(concept: CapturedConcept) -> set[str]:
    """Every word the mention itself used (its labels' and its kind's), singular."""
    words = set(_kind_of(concept.id))
    for text in (concept.prefLabel, *concept.altLabels):
        for variant in label_variants(text)[0]:
            words.update(variant.split())
    return words


def _kind_of(concept_id: str) -> set[str]:
    """The words of an id's kind, singular (``FLAT_RATE_EXPENSES`` -> flat, rate, expense)."""
    return {singular(w) for w in concept_id.rsplit(":", 1)[-1].lower().split("_") if w}
