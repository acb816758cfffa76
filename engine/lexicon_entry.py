"""The values of the concept lexicon: what it knows (:class:`LexiconEntry`) and what it finds
(:class:`LexiconHit`).

They live apart from :mod:`engine.lexicon` so that the loaders of entries (the EuroVoc loader in
:mod:`engine.eurovoc`, the graph sync) and the matcher depend on them without depending on
each other.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LexiconEntry", "LexiconHit"]


@dataclass(frozen=True, slots=True)
class LexiconEntry:
    """A concept the lexicon can recognise.

    ``key`` is stable: ``"eurovoc:<id>"`` for EuroVoc, the concept node id for graph entries.
    ``broader`` holds keys of broader concepts and ``microthesaurus`` the EuroVoc
    microthesaurus notation (both only for EuroVoc; they default to empty).
    """

    key: str
    pref_label: str
    alt_labels: tuple[str, ...]
    domain: str
    kind: str
    jurisdiction: str | None
    definition: str | None
    source_urls: tuple[str, ...]
    scheme: str
    notation: str | None
    broader: tuple[str, ...] = ()
    microthesaurus: str | None = None

    @property
    def labels(self) -> tuple[str, ...]:
        """The preferred label followed by the alternative labels."""
        return (self.pref_label, *self.alt_labels)


@dataclass(frozen=True, slots=True)
class LexiconHit:
    """One recognised mention of ``entry``: ``text[start:end] == matched``."""

    entry: LexiconEntry
    matched: str
    start: int
    end: int
