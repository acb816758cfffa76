"""Whether a word that no list holds looks like a name or like an English word (issue 25).

The name lists (Faker's, ADR 0004) cannot hold every name of the people who live in Ireland:
"shevchenko", "kazlauskiene", "babajide", "haruto" are in none of them, and neither are most
words of a chat that are not names ("recieve", "deliverables", "wont"). A character-trigram
model tells the two apart: trained, when the detector is built, on the lexicon's own names
that are not English words against its English words that are not names, it scores a word by
the mean log-likelihood ratio of its trigrams (``^`` and ``$`` mark the ends, add-one
smoothing). A score above 0 (a name is likelier, equal priors) is name-like. On a fifth of
the lists held out of training, 88 % of names and 8 % of English words score above 0
(``bench/pii_namelike.py``); the recognisers use it only where a second signal agrees (two
name-like words side by side, or one beside a known name), never for a word alone.

Nothing is downloaded or shipped: the model is counted from the word lists in
``egress/data`` (~0.3 s, once per process for a given lexicon).
"""

from __future__ import annotations

import math
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable

from egress.pii.lexicon import Lexicon

__all__ = ["NameLikeness", "name_likeness"]

_VOWELS = frozenset("aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿąęėįųūōēīă")


def _grams(word: str) -> list[str]:
    padded = f"^{word}$"
    return [padded[k : k + 3] for k in range(len(padded) - 2)]


class NameLikeness:
    """Mean trigram log-likelihood ratio, names against English words (module docstring)."""

    def __init__(self, names: Iterable[str], words: Iterable[str]) -> None:
        name_counts: Counter[str] = Counter()
        word_counts: Counter[str] = Counter()
        for name in names:
            name_counts.update(_grams(name))
        for word in words:
            word_counts.update(_grams(word))
        vocabulary = len(name_counts.keys() | word_counts.keys()) + 1
        name_total = sum(name_counts.values()) + vocabulary
        word_total = sum(word_counts.values()) + vocabulary
        keys = name_counts.keys() | word_counts.keys()
        self._ratio = {
            g: math.log((name_counts[g] + 1) / name_total)
            - math.log((word_counts[g] + 1) / word_total)
            for g in keys
        }
        self._unseen = math.log(word_total / name_total)
        self._name_grams = frozenset(name_counts)
        self._seen: dict[str, bool] = {}  # words already judged (cleared when full)

    def score(self, word: str) -> float:
        """Mean log-likelihood ratio of ``word``'s trigrams (lower case): > 0 is name-like."""
        grams = _grams(word)
        return sum(self._ratio.get(g, self._unseen) for g in grams) / len(grams)

    def spelled_like_names(self, word: str) -> bool:
        """Whether at most one trigram of ``word`` (lower case, with its ends; accents dropped)
        occurs in no name of the lists: "weronika", "emidio", "shevchenko" (one: "vch"); a
        brand's or a coinage's letters often are not a name's ("airbnb": "bnb", "nb$"),
        however name-like the mean ratio is."""
        folded = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode("ascii")
        grams = _grams(folded or word)
        return sum(g not in self._name_grams for g in grams) <= 1

    def is_namelike(self, word: str) -> bool:
        """A word of three letters or more, with a vowel (not an acronym: "ppsn", "tbh"),
        whose trigrams are likelier in names than in English words."""
        known = self._seen.get(word)
        if known is None:
            known = len(word) >= 3 and any(c in _VOWELS for c in word) and self.score(word) > 0
            if len(self._seen) > 50_000:
                self._seen.clear()
            self._seen[word] = known
        return known


_CACHE: dict[int, tuple[Lexicon, NameLikeness]] = {}
_LOCK = threading.Lock()


def name_likeness(lexicon: Lexicon) -> NameLikeness:
    """The model of ``lexicon``, counted once per process (the lexicon is immutable)."""
    with _LOCK:
        cached = _CACHE.get(id(lexicon))
        if cached is not None and cached[0] is lexicon:
            return cached[1]
        names = (lexicon.first_names | lexicon.surnames) - lexicon.english_words
        words = lexicon.english_words - lexicon.first_names - lexicon.surnames
        model = NameLikeness(names, words)
        _CACHE[id(lexicon)] = (lexicon, model)
        return model
