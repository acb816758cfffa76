"""Matching: which concept a captured mention names, by explicit rules (ADR 0023, ADR 0049).

:meth:`ConceptMatcher.identify` is the one entry self-population uses, once per mention
(:class:`Match`): the capture's own key first, then the reviewed concepts' labels
(:class:`ReviewedConcepts` and :func:`decide`, below), then the store's labels (reviewed
concepts the lexicon has not learnt yet, and quarantined ones, a quarantined one only when its
id is spelled by the mention's own words); a concept merged into another is followed to its
survivor (ADR 0034). Quarantine is read through
:mod:`graph.quarantine`'s predicates only.

**No false merge by construction** (ADR 0049). A capture joins a concept without review only
on an *exact* match after the normalisation of :func:`label_forms` (Unicode
compatibility forms, case, diacritics, punctuation, hyphens and compounds, possessives, "&",
plurals, jurisdiction words naming the concept's own jurisdiction) against the concept's
labels (preferred, alternative and hidden labels, and its kind); an acronym joins only as a
label the graph records ("LPT" captured, "LPT" a label of the concept); a citation of an EU
act joins the concept whose notation is that act (:func:`citation`, ADR 0075); another
capture's quarantined concept is joined on the same exact forms when its id is spelled by
the mention itself (:func:`captured_twin`, ADR 0036, ADR 0075). Nothing else merges:
initials ("CAT group threshold" is not CGT, though the graph records "CGT"), an acronym that
takes letters from inside words or leaves out an instrument word ("IHT" and inheritance tax,
"MiCA" and Markets in Crypto-Assets Regulation: :func:`_abbreviates`), a kind or label
that extends another by words (parent and child: "USC exemption" and "USC"), one or two typos,
shared words, a jurisdiction word naming another jurisdiction ("UK GDPR" and the EU's GDPR),
letters close to a label's by character trigrams (:class:`_CharGrams`, over every reviewed
label and, ADR 0083's addendum, other captures' labels) only make **suggestions**
(:class:`Suggestion`): the capture creates its provisional concept and the suggestions go
with it to the review queue, where an operator merges a duplicate in one action.
Suggestions come from the reviewed concepts and from other captures still in quarantine
(:func:`quarantined_candidates`, read through :class:`graph.port.QuarantinedConceptReader`);
they are stored on the provisional node for operators and never reach a tenant's reply
(ADR 0020).

The **decision** (:func:`decide`) is a small set of rules, tested one by one:

1. a candidate in another member-state jurisdiction is never the same concept (IE income tax
   is not UK income tax);
2. an EU-level candidate (an EU act, an EU-wide regime) is accepted whatever member-state
   jurisdiction the capture carries ("AI Act" captured as IE is the EU's AI Act);
3. among acceptable candidates, the capture's own jurisdiction before the EU; two concepts
   matched as strongly in that jurisdiction are ambiguous: no merge.

**The exact forms** (:func:`label_forms`) of one label are the only thing a capture may join a
concept on without review. They handle, and only handle:

- Unicode NFKC/NFKD compatibility forms, case and diacritics
  (:func:`engine.normalise.normalise_label`);
- punctuation, hyphens and compounds: the words are joined ("auto-enrolment",
  "auto enrolment" and "autoenrolment" are one form; "V.A.T." is "VAT");
- possessives ("Jobseeker's", "Jobseekers'" and "Jobseekers" are one form);
- "&" read as "and" ("R&D" is "R and D");
- plurals, word by word (:func:`singular`: "duties", "taxes", "benefits");
- a roman numeral after a name's first word ("MiFID II" is "MiFID 2", ADR 0075);
- word order, for two content words or more (:func:`order_free`: "Contributory State
  Pension" is "State Pension (Contributory)", "tax on income" is "income tax"; numbers keep
  their order, ADR 0078);
- jurisdiction words ("Irish", "UK", "(United Kingdom)", "European Union"): a form without
  them is kept *with the jurisdictions they named*, and it may only meet a concept of one
  of those jurisdictions ("Irish VAT" is Ireland's VAT, "UK GDPR" is not the EU's GDPR);
  and the whole label with each jurisdiction spelled one way, as a marked code no word can be
  ("Ireland-United Kingdom convention" is "Ireland-UK convention", ADR 0083).

Everything else — another language, former names, acronyms, other spellings ("enrollment")
— is data: a SKOS ``altLabel`` or ``hiddenLabel`` of the concept in the seeds, or an acronym
the graph records as a label; for a concept the seeds do not hold, a group of its official
names in ``seeds/second_names.yaml`` (:mod:`engine.second_names`, ADR 0078), which lets a
capture join another capture's concept named by one of them. A term a seeded concept records
as ``not_labels`` (ADR 0075) makes that concept a ``related`` review candidate, never a merge.

**Creation** (ADR 0023): a capture that matches nothing is created only in a jurisdiction the
graph covers that the conversation named (or at EU level); otherwise :class:`Match` says why
it is skipped. Nothing is guessed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from typing import Final, Literal

from rapidfuzz.distance import DamerauLevenshtein

from engine.concepts import CapturedConcept
from engine.lexicon import ConceptLexicon
from engine.lexicon_entry import LexiconEntry
from engine.normalise import COVERED_JURISDICTIONS, EU, normalise_label
from engine.second_names import related_concepts, second_names
from graph.models import GraphNode
from graph.port import ConceptReader, QuarantinedConceptReader
from graph.quarantine import MERGED_STATUS, is_quarantined

__all__ = [
    "MERGING",
    "Candidate",
    "ConceptMatcher",
    "FoundBy",
    "LabelForm",
    "Match",
    "MatchedBy",
    "ReviewedConcepts",
    "Suggestion",
    "captured_twin",
    "citation",
    "decide",
    "eli_of",
    "label_forms",
    "order_free",
    "quarantined_candidates",
    "singular",
    "spelling",
    "suggestions",
    "words_of",
]

_STOPWORDS: Final = frozenset(
    {"of", "the", "and", "for", "on", "in", "to", "a", "an", "de", "du", "des", "la", "le",
     "les", "sur", "et", "d", "l", "s"}
)  # fmt: skip
_ACRONYM_MAX: Final = 6
_MIN_INITIALS: Final = 3  # two-letter initials ("carbon tax" -> CT) collide far too often
_FUZZY_MIN: Final = 6
_SUGGESTIONS_MAX: Final = 5
_OVERLAP_MIN: Final = 0.5
_SYNONYM_SCORE: Final = 0.7
_KIND_FORM_MIN_WORDS: Final = 2
_DATED_INITIALS_SCORE: Final = 0.8
_NGRAM_MIN: Final = 0.5  # cosine of character-trigram vectors: a review candidate from here
_NGRAM_TOP: Final = 3  # at most this many concepts found by letters alone per capture
_NGRAM_WEIGHT: Final = 0.8  # their score: the cosine, weighed below the rules' evidence
_RELATED_SCORE: Final = 0.75  # an operator's recorded decision: shown among the first five
_SYNONYM_MIN_WORDS: Final = 2  # "motor tax" may meet "tax on motor vehicles"; "tax" may not
# EuroVoc labels too generic to bridge synonyms through ("tax": every tax would be a synonym).
_GENERIC_FORMS: Final = frozenset({"tax", "impot", "taxation", "benefit", "allowance", "pension"})
_ABBREVIATION_SCORE: Final = 0.6
_ABBREVIATION_MIN: Final = 3  # letters: "CT" / "IT" would abbreviate half the graph
# A name's last word an acronym often leaves out ("MiCA" for "Markets in Crypto-Assets
# Regulation", "GDPR" keeps it): tried with and without.
_INSTRUMENT_WORDS: Final = frozenset(
    {"act", "regulation", "directive", "decision", "scheme", "programme", "regime"}
)

#: How a capture was resolved, as its ``concepts`` event says (``skipped``: nothing written).
MatchedBy = Literal["key", "alias", "acronym", "kind_variant", "fuzzy", "created", "skipped"]


class FoundBy(IntEnum):
    """How a candidate was found; a lower value is stronger evidence. Only :data:`MERGING`
    ones may join a capture to the concept; the others are review suggestions."""

    KEY = 0
    LABEL = 1
    ACRONYM = 2  # the capture's initials are an acronym the concept has as a label
    INITIALS = 3  # the capture is an acronym of a label of the concept
    OTHER_JURISDICTION = 4  # the same label but for jurisdiction words naming another one
    PARENT_CHILD = 5  # one label (or kind) extends the other by words
    EDIT_DISTANCE = 6
    TOKEN_OVERLAP = 7
    SYNONYM = 8  # another label of a EuroVoc concept one of the capture's labels names
    # the one is an acronym of the other's words that is not just their initials: letters from
    # inside a word ("IHT", inheritance tax) or a trailing instrument word left out ("MiCA")
    ABBREVIATION = 9
    # a term the seeds record as *not* a label of the concept but related to it (its
    # ``not_labels``: broader, a part, a reform, a condition; ADR 0075, ADR 0078)
    RELATED = 10
    # the capture's letters come close to a label's, weighed over every label of the graph
    # (:class:`_CharGrams`: TF-IDF over character trigrams of the words; ADR 0083): spellings
    # and typos no rule names, never merged
    CHAR_NGRAMS = 11


MERGING: Final = frozenset({FoundBy.KEY, FoundBy.LABEL})


@dataclass(frozen=True, slots=True)
class Candidate:
    """A reviewed concept that may be the captured one, how it was found, and how close."""

    id: str
    domain: str
    jurisdiction: str
    kind: str
    found_by: FoundBy
    score: float = 1.0


@dataclass(frozen=True, slots=True)
class Suggestion:
    """An existing concept a new provisional one may duplicate, for review: never merged."""

    id: str
    reason: str  # FoundBy's name, lower case: "edit_distance", "parent_child", ...
    score: float

    def encode(self) -> str:
        """As stored on the provisional concept (``candidates``: ``id|reason|score``)."""
        return f"{self.id}|{self.reason}|{self.score:.2f}"

    @classmethod
    def decode(cls, text: str) -> Suggestion | None:
        parts = text.split("|")
        if len(parts) != 3:
            return None
        try:
            return cls(parts[0], parts[1], float(parts[2]))
        except ValueError:
            return None


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


# British and American spellings of one word, folded to one spelling on both sides (ADR 0060):
# -ize/-ise, -yze/-yse, -our/-or, -tre/-ter, -ence/-ense of four nouns, the doubled "l" of
# five verbs, and four words of their own. Anything else is a label (seeds' hiddenLabel).
_SPELLINGS: Final = (
    (re.compile(r"^([a-z]{3,})iz(e|ed|er|ing|ation)$"), r"\1is\2"),
    (re.compile(r"^([a-z]{2,})yz(e|ed|er|ing)$"), r"\1ys\2"),
    (re.compile(r"^([a-z]{3,})our$"), r"\1or"),
    (re.compile(r"^([a-z]{3,})tre$"), r"\1ter"),
    (re.compile(r"^(lic|def|off|pret)ence$"), r"\1ense"),
    (re.compile(r"^(enro|fulfi|insta|disti|insti)ll(ment|)$"), r"\1l\2"),
)
_SPELLING_WORDS: Final = {
    "programme": "program", "judgement": "judgment", "ageing": "aging", "cheque": "check",
}  # fmt: skip


def spelling(word: str) -> str:
    """One spelling of a word written the British or the American way ("modernization" and
    "modernisation" -> "modernisation", "enrollment" -> "enrolment", "labor" -> "labor")."""
    if len(word) < 5 or not word.isalpha():
        return word
    if (fixed := _SPELLING_WORDS.get(word)) is not None:
        return fixed
    for pattern, replacement in _SPELLINGS:
        if pattern.match(word):
            return pattern.sub(replacement, word)
    return word


# A roman numeral after a name's first word is its number ("MiFID II" and "MiFID 2", "NIS II"
# and "NIS 2"): two letters or more, so never a lone "I", "V" or "X" (ADR 0075).
_ROMAN: Final = {"ii": "2", "iii": "3", "iv": "4", "vi": "6", "vii": "7", "viii": "8", "ix": "9"}


def words_of(text: str) -> list[str]:
    """The normalised words of a label: possessives dropped, "&" read as "and", each word
    singular and in one spelling (:func:`spelling`), a roman numeral after the first word
    its number ("MiFID II" is "mifid 2"), and a run of single letters one word (a dotted or
    spaced acronym: "V.A.T." and "A.I. Act" are "vat" and "ai act")."""
    text = _PLURAL_POSSESSIVE.sub("", _POSSESSIVE.sub("", text)).replace("&", " and ")
    words: list[str] = []
    run = ""
    for token in normalise_label(text).split():
        if len(token) == 1 and token.isalpha():
            run += token
            continue
        if run:
            words.append(run)
            run = ""
        roman = _ROMAN.get(token) if words else None
        words.append(roman or spelling(singular(token)))
    if run:
        words.append(run)
    return words


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
    and something else, the rest with the jurisdictions they named. A label that writes an
    acronym beside its expansion ("Universal Social Charge (USC)", "Help to Buy (HTB)
    incentive", "USC (Universal Social Charge)") also has the forms of each spelling alone
    (:func:`_bracketed_acronym`)."""
    out = list(_label_forms(text))
    for variant in _bracketed_acronym(text):
        out.extend(f for f in _label_forms(variant) if f not in out)
    return tuple(out)


_BRACKETED: Final = re.compile(r"\(([^()]{1,80})\)")


def _bracketed_acronym(text: str) -> list[str]:
    """The spellings of a label that writes an acronym beside what it stands for: the label
    without a bracketed acronym of the words just before it ("Pay-Related Social Insurance
    (PRSI)" -> "Pay-Related Social Insurance"), and, for an acronym followed by its expansion
    in brackets, the acronym and the expansion alone. A bracket that is not such an acronym
    ("(Self-Employed)", "(Contributory)", "(Ireland)") gives nothing."""
    out: list[str] = []
    for m in _BRACKETED.finditer(text):
        inside, before = m.group(1), text[: m.start()]
        letters = re.sub(r"[\W_]", "", inside).lower()
        prior = words_of(before)
        if _is_initials(letters, prior):
            out.append(f"{before.rstrip()} {text[m.end() :].lstrip()}".strip())
        elif (
            len(prior) == 1
            and _is_initials(prior[0], words_of(inside))
            and not text[m.end() :].strip()
        ):
            out.extend([before.strip(), inside.strip()])
    return out


def _is_initials(acronym: str, words: Sequence[str]) -> bool:
    """Whether ``acronym`` (letters, lower case) is the initials of the last words of
    ``words``, with or without their stop words ("rd" of "research and development")."""
    if not (2 <= len(acronym) <= _ACRONYM_MAX + 2) or not acronym.isalpha():
        return False
    for size in range(2, len(words) + 1):
        tail = words[-size:]
        content = [w for w in tail if w not in _STOPWORDS]
        for used in (tail, content):
            initials = "".join(w[0] for w in used if w)
            if acronym in (initials, initials + "s") or singular(acronym) == initials:
                return True
    return False


def _label_forms(text: str) -> tuple[LabelForm, ...]:
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
    if named:
        # the whole label with each jurisdiction spelled one way ("Ireland-United Kingdom
        # convention" and "Ireland UK convention"; "Irish" and "Ireland"): a marked code no
        # word can be ("@uk"), so "Northern Ireland contributions" never reads as "NI
        # contributions" (National Insurance); ADR 0083
        coded = tuple(_coded_jurisdictions(words))
        if (form := "".join(coded)) != out[0].form:
            out.append(LabelForm(form, frozenset(), coded))
    return tuple(out)


def _coded_jurisdictions(words: Sequence[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(words):
        for size in (2, 1):
            phrase = tuple(words[i : i + size])
            if len(phrase) == size and phrase in _JURISDICTION_PHRASES:
                out.append("@" + _JURISDICTION_PHRASES[phrase].lower())
                i += size
                break
        else:
            out.append(words[i])
            i += 1
    return out


def order_free(form: LabelForm) -> str | None:
    """A label form's words in any order (ADR 0078): its content words sorted, its numbers in
    their own order after them, or ``None`` for a form of fewer than two content words (a word
    order says nothing then). "Contributory State Pension" and "State Pension
    (Contributory)", "tax on income" and "income tax" have one; "Non-Contributory State
    Pension" has another (its "non"), "Class 1 NIC" and "Class 4 NIC" too (their numbers)."""
    content = [w for w in form.words if w not in _STOPWORDS]
    numbers = [w for w in content if any(ch.isdigit() for ch in w)]
    words = sorted(w for w in content if w not in numbers)
    if len(words) < 2:
        return None
    return " ".join(words) + "|" + " ".join(numbers)


def _acronyms(form: LabelForm) -> tuple[str | None, str | None]:
    """``(acronym, initials)``: the form itself when it is one short word, and the initials of
    its content words when it has three or more."""
    words = form.words
    acronym = (
        words[0]
        if len(words) == 1 and 2 <= len(words[0]) <= _ACRONYM_MAX and words[0].isalpha()
        else None
    )
    content = [w for w in words if w not in _STOPWORDS]
    initials = (
        "".join(w[0] for w in content)
        if len(content) >= _MIN_INITIALS and all(w.isalpha() for w in content)
        else None
    )
    return acronym, initials


def _abbreviates(acronym: str, words: Sequence[str]) -> bool:
    """Whether ``acronym`` (one word, letters only) abbreviates ``words`` beyond plain initials:
    read left to right, every content word gives the next letter with its first letter and
    may give more from inside it, in order ("iht": *i*n*h*eritance *t*ax); a stop word gives
    its first letter or nothing ("mica": *m*arket *i*n *c*rypto *a*sset); a last instrument
    word ("regulation", "act") may give nothing. Never a merge (:attr:`FoundBy.ABBREVIATION`):
    "IHT" may as well be "inheritance tax" as "income and health tax"."""
    if not (_ABBREVIATION_MIN <= len(acronym) <= _ACRONYM_MAX + 2) or not acronym.isalpha():
        return False
    spans = [list(words)]
    if len(words) > 2 and words[-1] in _INSTRUMENT_WORDS:
        spans.append(list(words[:-1]))
    for span in spans:
        content = [w for w in span if w not in _STOPWORDS]
        if len(content) >= 2 and all(w.isalpha() for w in content):
            if _spells(acronym, tuple(span)):
                return True
    return False


@lru_cache(maxsize=65536)
def _spells(acronym: str, words: tuple[str, ...]) -> bool:
    """:func:`_abbreviates`' reading: ``acronym`` consumed by ``words`` in order."""
    if not words:
        return not acronym
    word, rest = words[0], words[1:]
    if word in _STOPWORDS and _spells(acronym, rest):
        return True
    if not acronym or acronym[0] != word[0]:
        return False
    # the word's first letter, then as many more of the acronym's as occur inside it in order
    used = 1
    if _spells(acronym[used:], rest):
        return True
    for letter in word[1:]:
        if used < len(acronym) and letter == acronym[used]:
            used += 1
            if _spells(acronym[used:], rest):
                return True
    return False


def _dated_initials(short: Sequence[str], long_: Sequence[str]) -> bool:
    """Whether ``short`` is an acronym and a number ("TCA 1997", "VATA 1994") and ``long_``
    the words it is the initials of, with the same number ("Taxes Consolidation Act 1997"):
    an Act cited by its acronym and year. A review candidate, never a merge."""
    numbers = _digits(short)
    if len(short) != len(numbers) + 1 or not numbers or _digits(long_) != numbers:
        return False
    acronym = next(w for w in short if w not in numbers)
    rest = [w for w in long_ if w not in numbers]
    return acronym.isalpha() and len(rest) >= 2 and _is_initials(acronym, rest)


def _digits(words: Iterable[str]) -> list[str]:
    return [w for w in words if any(ch.isdigit() for ch in w)]


def _contains(long_: Sequence[str], short: Sequence[str]) -> bool:
    n = len(short)
    return 0 < n < len(long_) and any(
        tuple(long_[i : i + n]) == tuple(short) for i in range(len(long_) - n + 1)
    )


# An EU act as its ELI names it in a concept's notation (SKOS notation: the act the concept
# is, ``eli/reg/2016/679``; not merely its source, the OSS is sourced from an amending
# directive it is not), and as a label cites it: the whole
# label is the citation ("Regulation (EU) 2016/679", "Council Directive 2006/112/EC",
# "Regulation (EC) No 883/2004", "règlement (UE) 2016/679"); "Article 6 of Regulation (EU)
# 2016/679" cites a provision, not the act, and is no citation here (ADR 0075).
_ELI: Final = re.compile(r"(?:^|/)eli/(reg|dir|dec)/(\d{4})/(\d{1,4})(?:/|$)")
_ACT_TYPES: Final = {
    "regulation": "reg", "reglement": "reg", "directive": "dir", "decision": "dec",
}  # fmt: skip
_CITATION: Final = re.compile(
    r"^(?:(?:council|commission|european|parliament|eu|ec|the|and|of) )*"
    r"(regulation|reglement|directive|decision)"
    r"(?: (?:eu|ec|eec|ue|ce|cee|euratom|no|n|implementing|delegated))* "
    r"(\d{1,4}) (\d{1,4})(?: (?:eu|ec|eec|ue|ce|cee|euratom))?$"
)
_YEARS: Final = range(1950, 2036)


def citation(text: str) -> tuple[str, int, int] | None:
    """The EU act a label is the citation of, as its ELI's ``(type, year, number)``
    (``("reg", 2016, 679)``), or ``None``. Regulations before 2015 write the number first
    ("883/2004"), later ones and directives the year; a two-digit year is the 1900s
    ("Directive 95/46/EC")."""
    m = _CITATION.match(normalise_label(text))
    if m is None:
        return None
    kind, a, b = _ACT_TYPES[m.group(1)], int(m.group(2)), int(m.group(3))
    if a in _YEARS and (b not in _YEARS or a >= 2015 or kind != "reg"):
        return kind, a, b
    if b in _YEARS:
        return kind, b, a
    if kind != "reg" and len(m.group(2)) == 2:
        return kind, 1900 + a, b
    return None


def eli_of(url: str) -> tuple[str, int, int] | None:
    """``(type, year, number)`` of an ELI path or EUR-Lex ELI URL, or ``None``."""
    m = _ELI.search(url)
    return (m.group(1), int(m.group(2)), int(m.group(3))) if m else None


@dataclass(frozen=True, slots=True)
class _Indexed:
    key: str
    named: frozenset[str]  # jurisdiction words removed from the concept's label (qualified)


class ReviewedConcepts:
    """The reviewed concepts and their exact label forms, indexed for :meth:`candidates`."""

    def __init__(self, entries: Iterable[LexiconEntry]) -> None:
        entries = list(entries)
        self._entries = {e.key: e for e in entries if e.scheme == "graph"}
        # EuroVoc's concepts as groups of synonyms (their labels' exact forms, English and
        # French): a bridge for review candidates between concepts named by two of them.
        self._synonym_groups: list[frozenset[str]] = []
        self._groups_of: dict[str, list[int]] = {}
        # each EuroVoc label's content words, by word: "tax on motor vehicles" under "motor"
        self._label_words: dict[str, list[tuple[frozenset[str], int]]] = {}
        self._eurovoc_keys = frozenset(e.key for e in entries if e.scheme == "eurovoc")
        for entry in entries:
            if entry.scheme != "eurovoc":
                continue
            forms = frozenset(
                f.form
                for text in entry.labels
                for f in label_forms(text)
                if not f.named and f.form not in _GENERIC_FORMS
            )
            if len(forms) > 1:
                group = len(self._synonym_groups)
                for text_form in forms:
                    self._groups_of.setdefault(text_form, []).append(group)
                for text in entry.labels:
                    for f in label_forms(text)[:1]:
                        content = frozenset(w for w in f.words if w not in _STOPWORDS)
                        for word in content:
                            self._label_words.setdefault(word, []).append((content, group))
                self._synonym_groups.append(forms)
        self._exact: dict[str, list[_Indexed]] = {}
        self._unordered: dict[str, list[_Indexed]] = {}  # :func:`order_free` forms
        self._acronym: dict[str, list[_Indexed]] = {}  # a one-word label: recorded acronym
        self._initials: dict[str, list[_Indexed]] = {}  # initials of a longer label
        self._forms: dict[str, list[LabelForm]] = {}
        # the EU act each concept is (its notation, an ELI): a label citing that act names it
        self._cited: dict[tuple[str, int, int], list[str]] = {}
        for entry in self._entries.values():
            if entry.notation and (act := eli_of(entry.notation)) is not None:
                self._cited.setdefault(act, []).append(entry.key)
        for entry in self._entries.values():
            where = entry.jurisdiction or EU
            mine: list[LabelForm] = []
            for text in (*entry.labels, entry.kind.replace("_", " ")):
                for form in label_forms(text):
                    if form.named and not form.named <= {where}:
                        continue  # jurisdiction words naming another jurisdiction: whole only
                    mine.append(form)
                    item = _Indexed(entry.key, form.named)
                    self._exact.setdefault(form.form, []).append(item)
                    if (unordered := order_free(form)) is not None:
                        self._unordered.setdefault(unordered, []).append(item)
                    acronym, initials = _acronyms(form)
                    if acronym:
                        self._acronym.setdefault(acronym, []).append(item)
                    if initials:
                        self._initials.setdefault(initials, []).append(item)
            self._forms[entry.key] = mine
        self._grams = _CharGrams(
            (key, form) for key, forms in self._forms.items() for form in forms if not form.named
        )

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def letters(self) -> _CharGrams:
        """The character-trigram index of the reviewed labels (its trigram rarity also weighs
        other captures' labels: :func:`quarantined_candidates`)."""
        return self._grams

    def translations(self, forms: Iterable[LabelForm]) -> tuple[LabelForm, ...]:
        """The forms of the other preferred labels of every EuroVoc concept (of this
        lexicon) one of ``forms`` is a *preferred* label of: "taux de TVA" -> "VAT rate".
        Preferred labels in two languages name one concept (SKOS); alternative labels may be
        broader or narrower and give nothing (ADR 0075)."""
        preferred = _eurovoc_preferred()
        out: list[LabelForm] = []
        for form in forms:
            for key in preferred[0].get(form.form, ()):
                if key in self._eurovoc_keys:
                    out.extend(f for f in preferred[1][key] if f.form != form.form)
        return tuple(out)

    def synonyms(self, forms: Iterable[LabelForm]) -> frozenset[str]:
        """The exact forms of the other labels of every EuroVoc concept one of ``forms``
        names ("vehicle tax" -> "road tax", "vehicle excise duty", "taxe sur les vehicules",
        ...), exactly or, for a form that is no EuroVoc label, with one more word ("motor
        tax" and "tax on motor vehicles"): never a merge, a review candidate
        (:attr:`FoundBy.SYNONYM`)."""
        mine = [f for f in forms if not f.named]
        groups: set[int] = set()
        for form in mine:
            if exact := self._groups_of.get(form.form):
                groups.update(exact)
                continue  # a EuroVoc label itself: not also its near labels
            content = frozenset(w for w in form.words if w not in _STOPWORDS)
            if len(content) < _SYNONYM_MIN_WORDS:
                continue
            rarest = min(content, key=lambda w: len(self._label_words.get(w, ())))
            for theirs, group in self._label_words.get(rarest, ()):
                if content <= theirs and len(theirs - content) <= 1:
                    groups.add(group)
        out: set[str] = set()
        for group in groups:
            out |= self._synonym_groups[group]
        return frozenset(out - {f.form for f in mine})

    def entry(self, key: str) -> LexiconEntry | None:
        """The reviewed concept ``key``, or ``None``."""
        return self._entries.get(key)

    def _entry_jurisdiction(self, key: str) -> str:
        return self._entries[key].jurisdiction or EU

    def candidates(
        self,
        domain: str,
        kind: str,
        labels: Sequence[str],
        jurisdiction: str | None = None,
        *,
        suggest: bool = True,
    ) -> list[Candidate]:
        """Every reviewed concept a capture may name: exact matches (:data:`MERGING`) and,
        with ``suggest``, the near ones, for review. ``jurisdiction``: the capture's, when
        the conversation stated it (``None``: a label qualified by jurisdiction words on
        either side meets nothing)."""
        found: dict[str, tuple[FoundBy, float]] = {}

        def add(key: str, found_by: FoundBy, score: float = 1.0) -> None:
            if key not in found or (found_by, -score) < (found[key][0], -found[key][1]):
                found[key] = (found_by, score)

        def qualified_ok(item: _Indexed, form: LabelForm) -> bool | None:
            """True: the jurisdiction words on both sides agree; None: the capture's name
            another jurisdiction (a suggestion); False: no match."""
            where = self._entry_jurisdiction(item.key)
            if item.named and jurisdiction != where:
                return False
            if form.named and not form.named <= {where}:
                return None
            return True

        mine: list[LabelForm] = []
        for text in (*labels, kind.replace("_", " ")):
            mine.extend(label_forms(text))
        for text in labels:  # the citation of the act a concept is (its notation): its name
            for key in self._cited.get(citation(text) or ("", 0, 0), ()):
                add(key, FoundBy.LABEL)
        for form in mine:
            exact = list(self._exact.get(form.form, ()))
            if (unordered := order_free(form)) is not None:
                exact += [i for i in self._unordered.get(unordered, ()) if i not in exact]
            for item in exact:
                verdict = qualified_ok(item, form)
                if verdict:
                    add(item.key, FoundBy.LABEL)
                elif verdict is None and suggest:
                    add(item.key, FoundBy.OTHER_JURISDICTION, 0.9)
            acronym, initials = _acronyms(form)
            if initials and suggest:  # "local property tax" and the graph's "LPT"
                for item in self._acronym.get(initials, ()):
                    if qualified_ok(item, form):
                        add(item.key, FoundBy.ACRONYM, 0.85)
            if acronym and suggest:  # "LPT" and the graph's "local property tax"
                for item in self._initials.get(acronym, ()):
                    if qualified_ok(item, form):
                        add(item.key, FoundBy.INITIALS, 0.8)
        if suggest:
            for synonym in self.synonyms(mine):
                for item in self._exact.get(synonym, ()):
                    if qualified_ok(item, LabelForm(synonym)):
                        add(item.key, FoundBy.SYNONYM, _SYNONYM_SCORE)
        if suggest and jurisdiction is not None:
            for key, theirs in self._forms.items():
                if key in found or self._entry_jurisdiction(key) not in (jurisdiction, EU):
                    continue
                if (near := _near(mine, theirs, kind, self._entries[key].kind)) is not None:
                    add(key, *near)
        if suggest:  # by letters, over every label: what no rule above names (ADR 0083)
            places = (jurisdiction, EU) if jurisdiction is not None else None
            for key, score in self._grams.closest(mine, exclude=found):
                if places is None or self._entry_jurisdiction(key) in places:
                    add(key, FoundBy.CHAR_NGRAMS, score)
        return [
            Candidate(key, e.domain, e.jurisdiction or EU, e.kind, *found[key])
            for key, e in self._entries.items()
            if key in found
        ]


class _CharGrams:
    """Every label form of the reviewed concepts as a TF-IDF vector of the character
    trigrams of its words (each word padded: "#vat#"), for review candidates only: the
    concepts whose labels' letters come closest to a capture's (cosine), weighed so that
    trigrams every tax shares ("tax", "#ta") count little. Never a merge (ADR 0083)."""

    def __init__(self, forms: Iterable[tuple[str, LabelForm]]) -> None:
        rows = [(key, _trigrams(form.words)) for key, form in forms]
        rows = [(key, grams) for key, grams in rows if grams]
        df: dict[str, int] = {}
        for _key, grams in rows:
            for gram in grams:
                df[gram] = df.get(gram, 0) + 1
        total = len(rows) + 1
        self._idf = {gram: math.log(total / (1 + n)) + 1.0 for gram, n in df.items()}
        self._keys = [key for key, _grams in rows]
        self._postings: dict[str, list[tuple[int, float]]] = {}
        for row, (_key, grams) in enumerate(rows):
            vector = self._vector(grams)
            for gram, weight in vector.items():
                self._postings.setdefault(gram, []).append((row, weight))

        self._rare = math.log(total) + 1.0  # a trigram no label has: as rare as can be

    def _vector(self, grams: Iterable[str], unseen: float = 0.0) -> dict[str, float]:
        weights = {g: self._idf.get(g, unseen) for g in set(grams)}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        return {g: w / norm for g, w in weights.items() if w}

    def vectors(self, forms: Iterable[LabelForm]) -> list[dict[str, float]]:
        """Forms outside the index (another capture's labels, ADR 0083's addendum) as vectors
        weighed by this index's trigram rarity; a trigram no indexed label has counts as the
        rarest. Forms naming a jurisdiction are left out, as in :meth:`closest`."""
        return [self._vector(_trigrams(f.words), self._rare) for f in forms if not f.named]

    @staticmethod
    def likeness(mine: Sequence[dict[str, float]], theirs: Sequence[dict[str, float]]) -> float:
        """The best cosine between one of ``mine`` and one of ``theirs`` (:meth:`vectors`)."""
        best = 0.0
        for vector in mine:
            for other in theirs:
                best = max(best, sum(w * other.get(g, 0.0) for g, w in vector.items()))
        return best

    def closest(
        self, forms: Iterable[LabelForm], *, exclude: Iterable[str] = ()
    ) -> list[tuple[str, float]]:
        """The concepts (key, best cosine) at least :data:`_NGRAM_MIN` close to one of
        ``forms``, closest first, at most :data:`_NGRAM_TOP`, none of ``exclude``."""
        skip = set(exclude)
        best: dict[str, float] = {}
        for form in forms:
            if form.named:
                continue
            vector = self._vector(_trigrams(form.words))
            dots: dict[int, float] = {}
            for gram, weight in vector.items():
                for row, theirs in self._postings.get(gram, ()):
                    dots[row] = dots.get(row, 0.0) + weight * theirs
            for row, score in dots.items():
                key = self._keys[row]
                if score >= _NGRAM_MIN and key not in skip and score > best.get(key, 0.0):
                    best[key] = score
        ranked = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:_NGRAM_TOP]
        # weighed below the rules' evidence in the review queue's order (:func:`suggestions`)
        return [(key, round(_NGRAM_WEIGHT * min(score, 1.0), 2)) for key, score in ranked]


def _trigrams(words: Sequence[str]) -> list[str]:
    """The character trigrams of a label's words, jurisdiction words left out ("Irish" says
    where, not what: :func:`decide` and the capture's jurisdiction deal with it)."""
    out: list[str] = []
    for word in words:
        if (word,) in _JURISDICTION_PHRASES:
            continue
        padded = f"#{word}#"
        out.extend(padded[i : i + 3] for i in range(len(padded) - 2))
    return out


@lru_cache(maxsize=1)
def _eurovoc_preferred() -> tuple[dict[str, list[str]], dict[str, list[LabelForm]]]:
    """EuroVoc's preferred labels (English and French), as exact forms: form -> concept
    keys, and concept key -> its preferred forms."""
    from engine.eurovoc import load_eurovoc  # the packaged subset the lexicon loads

    by_form: dict[str, list[str]] = {}
    by_key: dict[str, list[LabelForm]] = {}
    for concept in load_eurovoc():
        key = concept.entry.key
        forms = [
            f
            for text in concept.preferred_labels
            for f in label_forms(text)[:1]
            if f.form not in _GENERIC_FORMS
        ]
        by_key[key] = forms
        for form in forms:
            by_form.setdefault(form.form, []).append(key)
    return by_form, by_key


def _near(
    mine: Sequence[LabelForm], theirs: Sequence[LabelForm], kind: str, their_kind: str
) -> tuple[FoundBy, float] | None:
    """The closest way a capture's forms come near a concept's: parent/child (one extends the
    other by words), edit distance (a typo or a letter), shared words; ``None``: not near."""
    best: tuple[FoundBy, float] | None = None

    def keep(found_by: FoundBy, score: float) -> None:
        nonlocal best
        if best is None or (found_by, -score) < (best[0], -best[1]):
            best = (found_by, round(score, 2))

    kinds = ([w for w in kind.lower().split("_") if w], [w for w in their_kind.lower().split("_")])
    if _contains(kinds[0], kinds[1]) or _contains(kinds[1], kinds[0]):
        keep(FoundBy.PARENT_CHILD, min(map(len, kinds)) / max(map(len, kinds)))
    for a in mine:
        for b in theirs:
            if _contains(a.words, b.words) or _contains(b.words, a.words):
                keep(
                    FoundBy.PARENT_CHILD,
                    min(len(a.words), len(b.words)) / max(len(a.words), len(b.words)),
                )
            longest = max(len(a.form), len(b.form))
            if min(len(a.form), len(b.form)) >= _FUZZY_MIN and _digits(a.words) == _digits(b.words):
                allowed = 1 if longest < 12 else 2
                distance = DamerauLevenshtein.distance(a.form, b.form, score_cutoff=allowed)
                if distance <= allowed:
                    keep(FoundBy.EDIT_DISTANCE, 1 - distance / longest)
            for short, long_ in ((a, b), (b, a)):
                if a.named and b.named and a.named != b.named:
                    break  # "Irish General Data Protection Regulation" and "UK GDPR"
                if len(short.words) == 1 and _abbreviates(short.words[0], long_.words):
                    keep(FoundBy.ABBREVIATION, _ABBREVIATION_SCORE)
                if _dated_initials(short.words, long_.words):  # "TCA 1997" (ADR 0078)
                    keep(FoundBy.INITIALS, _DATED_INITIALS_SCORE)
            x = {w for w in a.words if w not in _STOPWORDS}
            y = {w for w in b.words if w not in _STOPWORDS}
            if x and y and (overlap := len(x & y) / len(x | y)) >= _OVERLAP_MIN:
                keep(FoundBy.TOKEN_OVERLAP, overlap)
    return best


def quarantined_candidates(
    kind: str,
    labels: Sequence[str],
    held: Iterable[tuple[GraphNode, Sequence[str]]],
    synonyms: frozenset[str] = frozenset(),
    synonyms_of: Callable[[Iterable[LabelForm]], frozenset[str]] | None = None,
    letters: _CharGrams | None = None,
    translations: Sequence[LabelForm] = (),
) -> list[Candidate]:
    """The quarantined concepts (``held``: each with its labels' texts, as
    :meth:`graph.port.QuarantinedConceptReader.quarantined_concepts` reads them) a capture
    with this ``kind`` and ``labels`` may duplicate: the same exact label form (``label``,
    score 1.0: another conversation's capture the mention could not join, ADR 0036), an
    acronym or initials of the other's labels, or near as :func:`_near` finds it among
    reviewed concepts, or (``synonym``) a label among ``synonyms`` (the capture's EuroVoc
    synonyms, :meth:`ReviewedConcepts.synonyms`), or, when none of these, by letters
    (``char_ngrams``: character trigrams of its labels or of ``translations``, the capture's
    EuroVoc preferred labels in the other language, at least :data:`_NGRAM_MIN` close, at most
    :data:`_NGRAM_TOP` of them, weighed by the trigram rarity of ``letters``, the reviewed
    labels' index, or of the held labels without it). Never merged: review suggestions only.
    Jurisdiction words naming another jurisdiction than the held concept's keep it out."""
    mine: list[LabelForm] = []
    for text in (*labels, kind.replace("_", " ")):
        mine.extend(label_forms(text))
    if letters is None:
        letters = _CharGrams(
            (node.id, form)
            for node, texts in held
            for text in (str(node.properties.get("pref_label") or ""), *texts)
            for form in label_forms(text)
        )
    spelled = letters.vectors([*mine, *translations])
    by_letters: list[Candidate] = []
    out: list[Candidate] = []
    for node, texts in held:
        props = node.properties
        where = str(props.get("jurisdiction") or EU)
        their_kind = str(props.get("kind") or node.id.rsplit(":", 1)[-1])
        theirs = [
            form
            for text in (str(props.get("pref_label") or ""), *texts, their_kind.replace("_", " "))
            for form in label_forms(text)
            if not form.named or form.named <= {where}
        ]
        near: tuple[FoundBy, float] | None
        exact = {f.form for f in mine if not f.named or f.named <= {where}}
        if exact & {f.form for f in theirs}:
            near = (FoundBy.LABEL, 1.0)
        elif (initials := _initials_match(mine, theirs, where)) is not None:
            near = initials
        else:
            near = _near(mine, theirs, kind, their_kind)
        if near is None and synonyms & {f.form for f in theirs}:
            near = (FoundBy.SYNONYM, _SYNONYM_SCORE)
        # and the other way round: the held concept's synonyms name the capture ("road tax"
        # after "motor tax": only "motor tax" is one word from a EuroVoc label)
        if near is None and synonyms_of is not None and synonyms_of(theirs) & exact:
            near = (FoundBy.SYNONYM, _SYNONYM_SCORE)
        domain = str(props.get("domain") or node.id.split(":", 1)[0])
        if near is not None:
            out.append(Candidate(node.id, domain, where, their_kind, *near))
        elif (score := letters.likeness(spelled, letters.vectors(theirs))) >= _NGRAM_MIN:
            # weighed below the rules' evidence, as among reviewed concepts (ADR 0083)
            weighed = round(_NGRAM_WEIGHT * min(score, 1.0), 2)
            by_letters.append(
                Candidate(node.id, domain, where, their_kind, FoundBy.CHAR_NGRAMS, weighed)
            )
    by_letters.sort(key=lambda c: (-c.score, c.id))
    return out + by_letters[:_NGRAM_TOP]


def _initials_match(
    mine: Sequence[LabelForm], theirs: Sequence[LabelForm], where: str
) -> tuple[FoundBy, float] | None:
    """As among reviewed concepts: the capture's initials are an acronym the other concept
    has as a label (``ACRONYM``), or the capture is an acronym of one of its labels
    (``INITIALS``); jurisdiction words on the capture's side must name ``where``."""
    acronyms: set[str] = set()
    initials: set[str] = set()
    for form in theirs:
        acronym, initial = _acronyms(form)
        acronyms.update([acronym] if acronym else [])
        initials.update([initial] if initial else [])
    for form in mine:
        if form.named and not form.named <= {where}:
            continue
        acronym, initial = _acronyms(form)
        if initial and initial in acronyms:
            return FoundBy.ACRONYM, 0.85
        if acronym and acronym in initials:
            return FoundBy.INITIALS, 0.8
    return None


def captured_twin(
    concept: CapturedConcept,
    held: Iterable[tuple[GraphNode, Sequence[str]]],
    translations: Callable[[Iterable[LabelForm]], tuple[LabelForm, ...]] | None = None,
) -> GraphNode | None:
    """Another capture's quarantined concept this one names exactly (ADR 0075): one of its
    label forms (:func:`label_forms`, the same normalisation a reviewed concept is joined
    on) is one of the capture's, it lies in the capture's jurisdiction or the EU (rule 2 of
    :func:`decide`), and its id is spelled by the capture itself, so the join tells this
    conversation nothing it did not say (ADR 0036): the id's kind is a run of the capture's
    words written together ("NIS2" in "NIS 2 Directive"), or its words are all the capture's
    own words. Its own jurisdiction first; two such concepts there: none (no guess).

    ``translations`` (:meth:`ReviewedConcepts.translations`): a EuroVoc preferred label in
    the other language is one of the capture's forms too ("congé de paternité" joins
    "paternity leave"); its words then spell an id as the capture's own do, since the
    thesaurus, not another conversation, gave them."""
    texts = [concept.prefLabel, *concept.altLabels]
    mine = [
        form
        for text in texts
        for form in label_forms(text)
        if not form.named or form.named <= {concept.jurisdiction, EU}
    ]
    if translations is not None:
        mine += [f for f in translations(mine) if f not in mine]
    own = {w for form in mine for w in form.words} | _kind_of(concept.id)
    # every run of consecutive words of the capture's forms, joined ("NIS 2" spells NIS2)
    runs = {
        "".join(form.words[i:j])
        for form in mine
        for i in range(len(form.words))
        for j in range(i + 1, len(form.words) + 1)
    }
    exact: dict[str, list[GraphNode]] = {}
    for node, labels in held:
        where = str(node.properties.get("jurisdiction") or EU)
        if node.id == concept.id or where not in (concept.jurisdiction, EU):
            continue
        kind = node.id.rsplit(":", 1)[-1].replace("_", " ")
        # its kind, as a reviewed concept's is, when it has two words or more ("Class 2 NIC"
        # joins CLASS_2_NIC; a lone "PENSION" kind says too little; ADR 0078)
        named_kind = [kind] if len(kind.split()) >= _KIND_FORM_MIN_WORDS else []
        theirs_forms = [
            form
            for text in (str(node.properties.get("pref_label") or ""), *labels, *named_kind)
            for form in label_forms(text)
            if not form.named or form.named <= {where}
        ]
        mine_here = [f for f in mine if not f.named or f.named <= {where}]
        theirs = {f.form for f in theirs_forms} | {
            u for f in theirs_forms if (u := order_free(f)) is not None
        }
        if not theirs & (
            {f.form for f in mine_here} | {u for f in mine_here if (u := order_free(f)) is not None}
        ):
            continue
        spelled = [f for f in label_forms(kind) if not f.named or f.named <= {where}]
        if any(set(f.words) <= own or f.form in runs for f in spelled):
            exact.setdefault(where, []).append(node)
    for where in (concept.jurisdiction, EU):
        if found := exact.get(where):
            return found[0] if len({n.id for n in found}) == 1 else None
    return None


def decide(
    jurisdiction: str, candidates: Sequence[Candidate], *, stated: bool = True
) -> Candidate | None:
    """The concept a capture in ``jurisdiction`` joins among ``candidates`` (rules 1-3 of the
    module docstring), or ``None``. Only :data:`MERGING` candidates are considered.

    ``stated=False``: the conversation never named ``jurisdiction`` (the model guessed it).
    The guess is then ignored: the mention resolves only if every candidate it names lies in
    one jurisdiction ("PRSI" exists in Ireland only; "VAT" in Ireland and the UK: no answer).
    """
    exact = [c for c in candidates if c.found_by in MERGING]
    if not stated:
        places = {c.jurisdiction for c in exact}
        if len(places) != 1:
            return None
        jurisdiction = places.pop()
    acceptable = [c for c in exact if c.jurisdiction in (jurisdiction, EU)]
    if not acceptable:
        return None
    own = [c for c in acceptable if c.jurisdiction == jurisdiction] or acceptable
    strongest = min(c.found_by for c in own)
    best = [c for c in own if c.found_by == strongest]
    return best[0] if len({c.id for c in best}) == 1 else None


def suggestions(candidates: Sequence[Candidate], jurisdiction: str) -> list[Suggestion]:
    """The review suggestions of a capture that created a concept: every candidate in its
    jurisdiction or the EU, closest first, at most five."""
    near = [c for c in candidates if c.jurisdiction in (jurisdiction, EU)]
    near.sort(key=lambda c: (-c.score, c.found_by, c.id))
    return [Suggestion(c.id, c.found_by.name.lower(), c.score) for c in near[:_SUGGESTIONS_MAX]]


@dataclass(frozen=True, slots=True)
class Match:
    """What a capture names: an existing concept (``node``), or none, and then either why it
    may not be created (``skipped``: ``out_of_coverage``, ``jurisdiction_not_stated``) or the
    concepts it may duplicate, reviewed or other captures still in quarantine, for review
    (``suggestions``, never merged; operators only, ADR 0020)."""

    node: GraphNode | None
    matched_by: MatchedBy
    skipped: str | None = None
    suggestions: tuple[Suggestion, ...] = ()


class ConceptMatcher:
    """The canonical concept a capture names: its key, the reviewed concepts' labels
    (:class:`ReviewedConcepts`, :func:`decide`), then the store's labels; merge redirects
    followed. Reads the graph, never writes it."""

    def __init__(self, reader: ConceptReader, lexicon: ConceptLexicon | None = None) -> None:
        self._reader = reader
        self._lexicon = lexicon  # its graph entries are the reviewed concepts (GraphSync)
        self._reviewed: tuple[int, ReviewedConcepts] | None = None
        # read the data files now (once per process), not inside the first capture's turn
        related_concepts(())
        second_names((), EU)

    async def identify(
        self, concept: CapturedConcept, jurisdictions: Sequence[str] | None
    ) -> Match:
        """The one answer of matching for a capture (see the module docstring).

        ``jurisdictions``: those the conversation is known to be about (``None``: not
        checked). A concept an operator merged into another is a redirect (ADR 0034): a match
        on it, by key or otherwise, resolves to the concept it was merged into, matched the
        same way. A capture that matches nothing is skipped outside coverage or in a
        jurisdiction the conversation never named; otherwise it comes with its suggestions.
        """
        stated = jurisdictions is None or concept.jurisdiction in (*jurisdictions, EU)
        covered = concept.jurisdiction in COVERED_JURISDICTIONS
        found, matched_by = await self._match(concept, stated=stated, covered=covered)
        if found is not None:
            return Match(await self._follow(found), matched_by)
        if not covered:  # TAX:FR:WEALTH_TAX: the graph covers IE, UK, NI and EU law
            return Match(None, "skipped", skipped="out_of_coverage")
        if not stated:  # never guessed: "not stated" is not IE
            return Match(None, "skipped", skipped="jurisdiction_not_stated")
        held = await self._held(concept)
        reviewed = self._reviewed_concepts()
        translations = reviewed.translations if reviewed is not None else None
        # Its second names (seeds/second_names.yaml, ADR 0078) are the capture's own words
        # for this join, as a EuroVoc translation is: the data, not another conversation,
        # gave them.
        probe = _with_second_names(concept)
        if (twin := captured_twin(probe, held, translations)) is not None:
            return Match(twin, "alias")
        # Near matches never merge (ADR 0049): they go with the new concept to review.
        return Match(None, "created", suggestions=tuple(await self._suggestions(concept, held)))

    async def _held(self, concept: CapturedConcept) -> list[tuple[GraphNode, Sequence[str]]]:
        """The quarantined concepts of the capture's jurisdiction and the EU, with their
        labels (none when the reader cannot list them)."""
        if not isinstance(self._reader, QuarantinedConceptReader):
            return []
        found = await self._reader.quarantined_concepts(
            sorted({concept.jurisdiction, EU}), limit=_QUARANTINED_MAX
        )
        return [(node, list(texts)) for node, texts in found]

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

    async def _suggestions(
        self, concept: CapturedConcept, held: Sequence[tuple[GraphNode, Sequence[str]]]
    ) -> list[Suggestion]:
        """The concepts a capture that matched none may duplicate, for review: reviewed ones
        (:meth:`ReviewedConcepts.candidates`) and quarantined ones other captures created
        (``held``, :func:`quarantined_candidates`), closest first."""
        texts = [concept.prefLabel, *concept.altLabels]
        found: list[Candidate] = []
        synonyms: frozenset[str] = frozenset()
        if (reviewed := self._reviewed_concepts()) is not None:
            found = reviewed.candidates(concept.domain, concept.kind, texts, concept.jurisdiction)
            synonyms = reviewed.synonyms(f for text in texts for f in label_forms(text))
        if held:
            # Operators only (ADR 0020): stored on the new provisional node for the review
            # queue, never in the turn's reply.
            known = {c.id for c in found}
            of = reviewed.synonyms if reviewed is not None else None
            letters = reviewed.letters if reviewed is not None else None
            translated = (
                reviewed.translations(f for text in texts for f in label_forms(text))
                if reviewed is not None
                else ()
            )
            found += [
                c
                for c in quarantined_candidates(
                    concept.kind, texts, held, synonyms, of, letters, translated
                )
                if c.id not in known
            ]
        if reviewed is not None:  # the seeds' not_labels: related, offered for review
            known = {c.id for c in found}
            forms = [f.form for text in texts for f in label_forms(text)]
            found += [
                Candidate(
                    e.key, e.domain, e.jurisdiction or EU, e.kind, FoundBy.RELATED, _RELATED_SCORE
                )
                for key in related_concepts(forms)
                if key not in known and (e := reviewed.entry(key)) is not None
            ]
        return suggestions([c for c in found if c.id != concept.id], concept.jurisdiction)

    async def _match(
        self, concept: CapturedConcept, *, stated: bool, covered: bool
    ) -> tuple[GraphNode | None, MatchedBy]:
        found = await self._reader.get_nodes([concept.id])
        if found and stated:
            return found[0], "key"
        reviewed = self._reviewed_concepts()
        if reviewed is not None:
            texts = [concept.prefLabel, *concept.altLabels, *_second_names_of(concept)]
            candidates = reviewed.candidates(
                concept.domain,
                concept.kind,
                texts,
                concept.jurisdiction if stated else None,
                suggest=False,
            )
            if not covered:  # a country the graph does not cover: only EU-wide concepts
                candidates = [c for c in candidates if c.jurisdiction == EU]
                stated = True
            if found and not is_quarantined(found[0]):  # its key, in a guessed jurisdiction
                key = Candidate(
                    concept.id, concept.domain, concept.jurisdiction, concept.kind, FoundBy.KEY
                )
                candidates = [key, *(c for c in candidates if c.id != concept.id)]
            if (best := decide(concept.jurisdiction, candidates, stated=stated)) is not None:
                nodes = await self._reader.get_nodes([best.id])
                if nodes and not is_quarantined(nodes[0]):
                    return nodes[0], _MATCHED_BY[best.found_by]
        # The store's labels: reviewed concepts the lexicon has not learnt yet, and quarantined
        # ones. A quarantined concept is matched only when its id is spelled entirely by this
        # mention's own words: its id then tells this conversation nothing it did not say.
        if not stated or not covered:
            return None, "created"  # a guessed jurisdiction: only reviewed, unambiguous matches
        labels = concept.normalised_labels()  # as the store spells them, preferred first
        own = _words(concept, labels)
        for variant, qualified in _variants(concept, labels):
            for candidate in await self._reader.find_concepts_by_label(variant):
                where = str(candidate.properties.get("jurisdiction", ""))
                if qualified and where != concept.jurisdiction:
                    continue  # "UK GDPR" without "UK" is not the EU's GDPR
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


def _second_names_of(concept: CapturedConcept) -> tuple[str, ...]:
    """The capture's second names (:func:`engine.second_names.second_names`): the other
    names of a data group one of its labels is, in its jurisdiction or the EU's."""
    forms = [f.form for text in (concept.prefLabel, *concept.altLabels) for f in label_forms(text)]
    own = set(forms)
    return tuple(
        name
        for name in second_names(forms, concept.jurisdiction)
        if not {f.form for f in label_forms(name)} & own
    )


def _with_second_names(concept: CapturedConcept) -> CapturedConcept:
    extra = _second_names_of(concept)
    if not extra:
        return concept
    return concept.model_copy(update={"altLabels": [*concept.altLabels, *extra]})


_MAX_REDIRECTS = 8
_QUARANTINED_MAX = 2000  # the review queue's provisional concepts of two jurisdictions

_MATCHED_BY: dict[FoundBy, MatchedBy] = {
    FoundBy.KEY: "key",
    FoundBy.LABEL: "alias",
    FoundBy.ACRONYM: "acronym",
}


def _variants(concept: CapturedConcept, labels: Sequence[str]) -> list[tuple[str, bool]]:
    """The normalised spellings of a capture's labels the store may hold as ``Label`` nodes
    (its normalised ``labels`` first), each with whether jurisdiction words were removed from
    it: as said, without possessives, singular, plural, and without the words naming the
    capture's own jurisdiction."""
    found: dict[str, bool] = dict.fromkeys(labels, False)
    for text in (concept.prefLabel, *concept.altLabels):
        for form in label_forms(text):
            if form.named and form.named != {concept.jurisdiction}:
                continue
            spaced = " ".join(form.words)
            for variant in (spaced, _plural(spaced), *_possessives(form.words)):
                found.setdefault(variant, bool(form.named))
    return [(variant, qualified) for variant, qualified in found.items() if variant]


def _possessives(words: Sequence[str]) -> list[str]:
    """How a label stored by an earlier capture may spell a possessive the normaliser drops
    ("Parent's Benefit" is stored as "parent s benefit", "Parents' Benefit" as "parents
    benefit"): one word at a time, for labels of up to four words."""
    if len(words) > _POSSESSIVE_WORDS_MAX:
        return []
    out = []
    for i, word in enumerate(words[:-1]):
        for spelled in (f"{word} s", f"{word}s"):
            out.append(" ".join([*words[:i], spelled, *words[i + 1 :]]))
    return out


_POSSESSIVE_WORDS_MAX = 4


def _plural(phrase: str) -> str:
    head, _, last = phrase.rpartition(" ")
    last = last[:-1] + "ies" if last.endswith("y") else last + "s"
    return f"{head} {last}".strip()


def _words(concept: CapturedConcept, labels: Sequence[str]) -> set[str]:
    """Every word the mention itself used (its labels' and its kind's), singular: with and
    without possessives (its normalised ``labels`` keep them as words)."""
    words = set(_kind_of(concept.id))
    for text in (concept.prefLabel, *concept.altLabels):
        for form in label_forms(text):  # the whole label's words, then a part of them
            words.update(form.words)
    for label in labels:
        words.update(spelling(singular(w)) for w in label.split())
    return words


def _kind_of(concept_id: str) -> set[str]:
    """The words of an id's kind as :func:`words_of` reads them, singular (``FLAT_RATE_EXPENSES``
    -> flat, rate, expense; ``MIFID_II`` -> mifid, 2)."""
    return set(words_of(concept_id.rsplit(":", 1)[-1].replace("_", " ")))
