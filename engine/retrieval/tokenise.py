"""Legal-aware tokenisation for lexical retrieval: one function for documents and questions.

Legal text is addressed by numbers, so numbers are kept and shaped the way the acts print them:

- act numbers stay one token: ``2016/679``, ``95/46/EC`` -> ``95/46`` (the series suffix is
  dropped, because questions cite acts with and without it);
- provision addresses stay addressable: ``5(1)(c)`` is one token, and its article number ``5`` is
  emitted too, so "Article 5" still matches a text citing ``Article 5(1)(c)``;
- amounts printed with thin-space thousands (``EUR 35 000 000``) become one number ``35000000``;
  ``10^25`` becomes ``1025`` because the parsed Official Journal text loses the superscript;
  a percentage keeps its sign (``4 %`` -> ``4%``).

Words are lowercased (after NFKC), split at hyphens and apostrophes, filtered by a short English
stop list and reduced by :func:`stem`, a light suffix stripper. PyStemmer (the stemmer bm25s can
use) is not installed here and adding dependencies is out of scope; a handful of ordered,
conservative rules conflates the inflections that matter for lookup (plurals, -ed/-ing,
-ion/-ation/-ment) while both sides of the match go through the same function, so over-stemming
costs little and under-stemming only loses a match, never invents one.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Final

__all__ = [
    "QUERY_CHATTER",
    "STOPWORDS",
    "stem",
    "tokenise",
]

STOPWORDS: Final = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by could did do does doing down during each few for from further had
    has have having he her here hers him his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours out over own same she should so
    some such than that the their theirs them then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you
    your yours yourself s t can may also e g eg ie etc us re ve ll d m""".split()
)

# Words of the asking, not of the subject ("summarise Article 6 for me", "how much", "do we
# need"): dropped from queries (stemmed, as tokens are). They are rare in legal text, so they
# would otherwise weigh a lot, in the ranking and in the gate's coverage alike.
_CHATTER_WORDS: Final = """say says said explain explains summarise summarize summary tell describe
    describes mean means meaning article articles provision provisions recital recitals annex
    law laws legal rule rules exactly actually really please anything something kind thing
    things know want question happen happens cover covers covered much many long fast quickly
    soon often get gets got go goes going let see put still given need needs must""".split()

# Alternatives, tried left to right at each position (``re`` takes the first that matches).
_TOKEN = re.compile(
    r"(?P<act>\b\d{2,4}/\d{1,4}(?:/[a-z]{2,8})?\b)"
    r"|(?P<address>\b\d{1,3}[a-z]?(?:\(\d{1,3}[a-z]?\)|\([a-z]{1,4}\))+)"
    r"|(?P<power>\b10\s?\^\s?\d{1,3}\b)"
    r"|(?P<amount>\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b"  # 1,000,000 (thousands grouped by commas)
    r"|\b\d{1,3}(?:[ \u202f\u00a0]\d{3})+(?:[.,]\d+)?\b)"  # 1 000 000,50
    r"|(?P<percent>\b\d+(?:[.,]\d+)?\s?%)"
    r"|(?P<number>\b\d+(?:[.,]\d+)?[a-z]?\b)"
    r"|(?P<word>[a-z]+)"
)
_COMMA_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_COMMA_GROUPS = re.compile(r",")
_SPACES = re.compile(r"[\s\u202f\u00a0]")
# "Group B", "Class 1", "Tier 2": the letter or number is what tells Group B from Group A, and
# alone it is no token (one letter) or a common one (a number); together they are one rare token.
_DESIGNATOR = re.compile(r"\b(group|class|category|tier) ([a-z]|\d{1,2})\b(?![-'])")
_VOWEL = re.compile(r"[aeiouy]")
_ARTICLE_OF_ADDRESS = re.compile(r"^\d{1,3}[a-z]?")
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-"})


def _stem_inflection(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ied") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith(("xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def _undouble(word: str) -> str:
    # "embedded" -> "embedd" -> "embed", "submitted" -> "submit"; not "ll"/"ss" (fulfill, pass).
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsaeiou":
        return word[:-1]
    return word


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English stemmer: inflections, then -ation/-ion/-ment, then a final ``e``.

    ``notified``/``notifies`` -> ``notify``; ``processing``/``processed``/``processes`` ->
    ``process``; ``requirement``/``required``/``requires`` -> ``requir``; ``protection`` ->
    ``protect``; ``use``/``used``/``using`` -> ``us``, ``fine``/``fined`` -> ``fin``. As in
    Porter's step 1b, -ed and -ing go only when a vowel stays before them (``thing``, ``shed``
    stay) and -eed stays (``need``, ``exceed``). Words of two letters are returned unchanged.
    """
    if len(word) <= 2 or not word.isalpha():
        return word
    word = _stem_inflection(word)
    if word.endswith("ing") and len(word) >= 5 and _VOWEL.search(word[:-3]):
        word = _undouble(word[:-3])
    elif (
        word.endswith("ed")
        and not word.endswith("eed")
        and len(word) >= 4
        and _VOWEL.search(word[:-2])
    ):
        word = _undouble(word[:-2])
    if word.endswith("ication") and len(word) >= 9:
        word = word[:-7] + "y"  # notification -> notify, classification -> classify
    elif word.endswith("ation") and len(word) >= 8:
        word = word[:-5]
    elif word.endswith(("tion", "sion")) and len(word) >= 7:
        word = word[:-3]
    elif word.endswith("ment") and len(word) >= 9:
        word = word[:-4]
    if word.endswith("e") and len(word) >= 3:
        word = word[:-1]
    return word


def tokenise(text: str) -> list[str]:
    """Index tokens of ``text``, in order, repeats kept (BM25 counts them in documents); the
    designators it names ("group_b", "class_1") last."""
    folded = unicodedata.normalize("NFKC", text).translate(_QUOTES).lower()
    tokens: list[str] = []
    for match in _TOKEN.finditer(folded):
        kind, value = match.lastgroup, match.group()
        if kind == "act":
            parts = value.split("/")
            tokens.append(f"{parts[0]}/{parts[1]}")
        elif kind == "address":
            tokens.append(value)
            article = _ARTICLE_OF_ADDRESS.match(value)
            if article:
                tokens.append(article.group())
        elif kind == "power":
            tokens.append(re.sub(r"[\s^]", "", value))
        elif kind in ("amount", "percent"):
            # "1,000,000", "1 000 000" and "1000000" are one token; a decimal comma stays.
            separators = _COMMA_GROUPS if _COMMA_GROUPED.fullmatch(value) else _SPACES
            tokens.append(separators.sub("", value))
        elif kind == "number":
            tokens.append(value)
        elif value not in STOPWORDS and len(value) > 1:
            tokens.append(stem(value))
    tokens.extend(f"{m[1]}_{m[2]}" for m in _DESIGNATOR.finditer(" ".join(folded.split())))
    return tokens


QUERY_CHATTER: Final = frozenset(stem(word) for word in _CHATTER_WORDS)
