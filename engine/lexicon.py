"""Concept lexicon: recognise concept mentions in a user question.

The offline extractive provider "knows" two vocabularies:

* the concepts already in the rules graph (``scheme="graph"``), added by the engine with
  :meth:`ConceptLexicon.add` at start-up and after self-population, and
* the EuroVoc taxation and social-questions vocabulary in English and French
  (``scheme="eurovoc"``), read by :mod:`engine.eurovoc` (:meth:`ConceptLexicon.from_eurovoc`).

Matching works on normalised token sequences (:func:`engine.normalise.tokenise`, the tokens of
:func:`~engine.normalise.normalise_label`): labels live in a token trie, and
:meth:`ConceptLexicon.match` walks the question's tokens through it, so the cost grows with the
question length, not with the number of labels.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from engine.eurovoc import load_eurovoc
from engine.label_policy import label_policy
from engine.lexicon_entry import LexiconEntry, LexiconHit
from engine.normalise import Tokens, normalise_label, tokenise

__all__ = ["ConceptLexicon"]


@dataclass(frozen=True, slots=True)
class _Candidate:
    """An entry waiting at the end of one of its labels' token paths."""

    entry: LexiconEntry
    upper_only: bool  # matches only when the text is written in capitals
    scheme_rank: int  # 0 graph, 1 EuroVoc
    label_rank: int  # 0 a preferred label, 1 an alternative one
    seq: int  # insertion order

    @property
    def rank(self) -> tuple[int, int, int]:
        return (self.scheme_rank, self.label_rank, self.seq)


@dataclass(slots=True)
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    candidates: tuple[_Candidate, ...] = ()


class _LabelPath(NamedTuple):
    tokens: tuple[str, ...]
    in_trie: bool  # False: known to ``lookup`` only


class _Mention(NamedTuple):
    """A label found at tokens ``first..last`` (inclusive), characters ``start..end``."""

    first: int
    last: int
    start: int
    end: int
    entry: LexiconEntry

    @property
    def n_tokens(self) -> int:
        return self.last - self.first + 1


class ConceptLexicon:
    """Recognises concept labels in free text (English and French, accent- and
    case-insensitive, whole words only). Not thread-safe for concurrent ``add`` calls; reads
    (``match``) may run while one writer adds entries."""

    def __init__(self, entries: Iterable[LexiconEntry] = ()) -> None:
        self._root = _Node()
        self._entries: dict[str, LexiconEntry] = {}
        self._paths: dict[str, list[_LabelPath]] = {}
        self._by_label: dict[str, tuple[_Candidate, ...]] = {}
        self._seq = 0
        self._removed = 0
        for entry in entries:
            self.add(entry)

    @property
    def version(self) -> int:
        """Changes whenever an entry is added, replaced or removed (for derived indexes)."""
        return self._seq * 1_000_003 + self._removed

    # ---- construction

    @classmethod
    def from_eurovoc(cls, path: Path | None = None) -> ConceptLexicon:
        """Load the EuroVoc subset (default: the packaged ``engine/data`` file)."""
        lexicon = cls()
        for concept in load_eurovoc(path):
            lexicon._add(concept.entry, concept.preferred_labels)
        return lexicon

    def add(self, entry: LexiconEntry) -> None:
        """Add or replace (same ``key``) an entry; its ``pref_label`` and ``alt_labels`` become
        matchable. Graph entries win over EuroVoc ones on the same normalised label."""
        self._add(entry, frozenset({normalise_label(entry.pref_label)}))

    def _add(self, entry: LexiconEntry, preferred: frozenset[str]) -> None:
        if entry.key in self._entries:
            self.remove(entry.key)
        self._entries[entry.key] = entry
        self._seq += 1
        paths: list[_LabelPath] = []
        seen: set[tuple[str, ...]] = set()
        for label in entry.labels:
            tokens = tokenise(label).texts
            if not tokens or tokens in seen:
                continue
            seen.add(tokens)
            normalised = " ".join(tokens)
            policy = label_policy(entry, label, tokens)
            cand = _Candidate(
                entry,
                upper_only=policy == "upper_only",
                scheme_rank=1 if entry.scheme == "eurovoc" else 0,
                label_rank=0 if normalised in preferred else 1,
                seq=self._seq,
            )
            self._by_label[normalised] = _insert(self._by_label.get(normalised, ()), cand)
            if policy != "skip":
                node = self._root
                for tok in tokens:
                    nxt = node.children.get(tok)
                    if nxt is None:
                        nxt = node.children[tok] = _Node()
                    node = nxt
                node.candidates = _insert(node.candidates, cand)
            paths.append(_LabelPath(tokens, in_trie=policy != "skip"))
        self._paths[entry.key] = paths

    def remove(self, key: str) -> None:
        """Forget an entry (no error if unknown)."""
        self._removed += 1
        self._entries.pop(key, None)
        for path in self._paths.pop(key, []):
            normalised = " ".join(path.tokens)
            rest = tuple(c for c in self._by_label.get(normalised, ()) if c.entry.key != key)
            if rest:
                self._by_label[normalised] = rest
            else:
                self._by_label.pop(normalised, None)
            if not path.in_trie:
                continue
            node: _Node | None = self._root
            for tok in path.tokens:
                node = node.children.get(tok) if node is not None else None
            if node is not None:
                node.candidates = tuple(c for c in node.candidates if c.entry.key != key)

    # ---- queries

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[LexiconEntry]:
        return iter(list(self._entries.values()))

    def get(self, key: str) -> LexiconEntry | None:
        """The entry with this ``key``, if any."""
        return self._entries.get(key)

    def lookup(self, label: str) -> list[LexiconEntry]:
        """Entries having exactly this label (after :func:`normalise_label`), best first (graph
        before EuroVoc, preferred before alternative label, earlier added first). Unlike
        ``match``, this also considers the generic labels that ``match`` ignores."""
        return [c.entry for c in self._by_label.get(normalise_label(label), ())]

    def match(
        self, text: str, limit: int = 10, *, jurisdiction: str | None = None
    ) -> list[LexiconHit]:
        """Concept mentions in ``text``, ordered by position.

        * Whole tokens only ("tax" never matches inside "taxi"); case-, accent- and
          punctuation-insensitive via :func:`normalise_label`.
        * Overlaps: longer matches (in tokens, then characters) win, then the earlier one.
        * On the same label, graph entries win over EuroVoc ones; then an entry's preferred
          label over another entry's alternative label; then the first added. With
          ``jurisdiction``, a graph entry of that jurisdiction (then one without) is preferred.
        * Each entry is reported once, at its first selected mention.
        * EuroVoc one-word labels match only in the TAX, WELFARE and PENSIONS domains and not
          when generic; elsewhere only acronyms match, and only when written in capitals
          ("AIDS", not "aids"). Graph labels always match, case-insensitively ("VAT", "vat").
          See :mod:`engine.label_policy`.
        * When there are more than ``limit`` hits, graph hits, then longer ones, then earlier
          ones are kept.
        """
        if limit <= 0 or not text:
            return []
        tokens = tokenise(text)
        mentions = self._mentions(text, tokens, jurisdiction)
        if not mentions:
            return []
        selected = _without_overlaps(mentions, len(tokens))
        # one entry, one hit: keep the earliest of the selected mentions
        first: dict[str, _Mention] = {}
        for mention in sorted(selected, key=lambda m: m.start):
            first.setdefault(mention.entry.key, mention)
        chosen = list(first.values())
        if len(chosen) > limit:
            chosen = sorted(chosen, key=_keep_rank)[:limit]
        chosen.sort(key=lambda m: m.start)
        return [LexiconHit(m.entry, text[m.start : m.end], m.start, m.end) for m in chosen]

    def _mentions(self, text: str, tokens: Tokens, jurisdiction: str | None) -> list[_Mention]:
        """Every label path that the tokens walk to the end of, overlapping or not."""
        found: list[_Mention] = []
        texts, starts, ends = tokens.texts, tokens.starts, tokens.ends
        n = len(texts)
        children = self._root.children
        for i in range(n):
            node = children.get(texts[i])
            j = i
            while node is not None:
                if node.candidates:
                    start, end = starts[i], ends[j]
                    entry = _choose(node.candidates, text[start:end], jurisdiction)
                    if entry is not None:
                        found.append(_Mention(i, j, start, end, entry))
                j += 1
                if j >= n:
                    break
                node = node.children.get(texts[j])
        return found


def _insert(candidates: tuple[_Candidate, ...], cand: _Candidate) -> tuple[_Candidate, ...]:
    # a new tuple, never mutated in place: concurrent readers see a consistent snapshot
    return tuple(sorted((*candidates, cand), key=lambda c: c.rank))


def _choose(
    candidates: tuple[_Candidate, ...], surface: str, jurisdiction: str | None
) -> LexiconEntry | None:
    ok = [c for c in candidates if not c.upper_only or surface.isupper()]
    if not ok:
        return None
    if jurisdiction is None:
        return ok[0].entry

    def key(c: _Candidate) -> tuple[int, int, int, int]:
        jur = c.entry.jurisdiction
        jur_rank = 0 if jur == jurisdiction else 1 if jur is None else 2
        return (c.scheme_rank, jur_rank, c.label_rank, c.seq)

    return min(ok, key=key).entry


def _without_overlaps(mentions: list[_Mention], n_tokens: int) -> list[_Mention]:
    """Longest first (in tokens, then characters), then earliest; skip any that overlaps."""
    taken = [False] * n_tokens
    kept: list[_Mention] = []
    # first - last == 1 - n_tokens: the same order as -n_tokens, without a property call
    for m in sorted(mentions, key=lambda m: (m.first - m.last, m.start - m.end, m.first)):
        if any(taken[m.first : m.last + 1]):
            continue
        taken[m.first : m.last + 1] = [True] * m.n_tokens
        kept.append(m)
    return kept


def _keep_rank(m: _Mention) -> tuple[int, int, int]:
    """Which hits survive the ``limit``: graph first, then longer, then earlier."""
    return (0 if m.entry.scheme != "eurovoc" else 1, -m.n_tokens, m.start)
