"""Person names without a language model: capitalised runs scored against name lexicons.

Why this and not spaCy: no model may be downloaded here, and a small spaCy model costs ~100 ms
per 2,000 characters against a 10 ms budget (ADR 0004 has the measurements). A run of
capitalised words (with initials and particles such as "van", "de") is a name when

* a title precedes it (``Mr``, ``Dr`` ...; the title itself is not redacted), or
* one of its words is a known first name or surname that is not a common English word, or
* it starts with a known first name and has a second name-like word, or
* a cue precedes it ("my name is", "called", "Dear"), or
* it is two or more capitalised words none of which is an English word (weaker score).

Words that a name is already known to contain are then matched again anywhere in the text, so
"Gerth" found once is found everywhere. Common English words, countries, days and
nationalities never make a name on their own, which keeps legal prose ("Section 472 TCA 1997",
"Capital Gains Tax") clear of findings. Neither does a run that the words around it make a place,
a body or an instrument, unless a title precedes it: one followed by "Street", "Ltd",
"Convention", "Agreement" ...; one after "Treaty of", "Council of", "Committee for" ...; one
after "in" or the Official Journal's "done at" / "signed at" (a possessive, "in Mary's view",
is still a person). Legal text names places that are also first names ("Geneva", "Rome",
"Paris") in exactly these positions. Plural acronyms ("SMEs") are words.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from egress.pii.findings import PERSON, PiiFinding
from egress.pii.lexicon import Lexicon
from egress.pii.namelike import name_likeness

__all__ = [
    "AFTER_OPENER",
    "CUED",
    "FIRST_PLUS",
    "LOWER_CASE",
    "PROPAGATED",
    "RELATION",
    "ROLE_WORDS",
    "SENTENCE_START_WORDS",
    "STRONG",
    "UNKNOWN_PAIR",
    "PersonNameRecogniser",
]

# A word of letters standing apart: never the letters of a token glued to digits or "_"
# ("Holdturn0b4bea" holds no "bea"); the atomic group keeps "anne-marie7" from giving "anne".
_TOKEN = re.compile(r"(?<!\w)(?>[^\W\d_]+(?:['’-][^\W\d_]+)*)(?!\w)\.?")
_TITLES = frozenset(
    (
        "mr mrs ms miss mx dr prof sir dame madam mme mlle herr frau sr sra srta rev fr lord lady"
    ).split()
)
_PARTICLES = frozenset("de van von der den da dos das del della di du le la ten ter bin al".split())
# People named by their role or relation to the writer: "my wife", "our bookkeeper", "the
# deceased", "nanny", "employee" (with or without a determiner), or as a form label
# ("patient:"). The role words themselves are never names (shared with ``egress.pii.anycase``).
_ROLE_WORD_LIST = """wife husband partner spouse fiance fiancee fiancé fiancée girlfriend boyfriend
    ex son daughter stepson stepdaughter child kid baby twin mother father mum mam mom dad
    granddad grandad grandpa grandma granny nan nana nanna grandmother grandfather grandson
    granddaughter brother sister sibling aunt auntie uncle cousin nephew niece godson
    goddaughter godmother godfather stepmother stepfather widow widower
    accountant bookkeeper solicitor barrister lawyer adviser advisor agent broker auditor
    landlord landlady tenant lodger flatmate housemate roommate neighbour neighbor
    employer employee boss manager supervisor colleague coworker co-worker contractor
    subcontractor apprentice intern worker secretary assistant receptionist nanny childminder
    carer caregiver friend mate pal buddy client customer patient student pupil claimant
    applicant taxpayer
    beneficiary executor executrix administrator trustee guardian director shareholder
    deceased holder""".split()
_ROLE_PHRASES = (
    r"(?:brother|sister|mother|father|son|daughter)-in-law|business\s+partner|au\s+pair"
    r"|late\s+(?:father|mother|husband|wife)|account\s+holder|staff\s+member|tax\s+adviser"
    r"|taxpayer\s+name|patient\s+name|client\s+name|ex-(?:wife|husband|partner)"
)
ROLE_WORDS = frozenset(_ROLE_WORD_LIST)
RELATION = "|".join([_ROLE_PHRASES, *sorted(_ROLE_WORD_LIST, key=len, reverse=True)])
_CUE = re.compile(
    r"(?:name\s+is|name\??:?|named|called|call\s+me|i\s+am|i'm|dear|signed|regards,?"
    r"|sincerely,?|attn:?|attention\s+of:?|f\.?a\.?o\.?:?|c/o|contact|ask\s+for|spoke\s+(?:to|with)|follow\s+up\s+with"
    r"|by|with|assistant\s+to"
    r"|(?:my|our|his|her|their|your)\s+(?:" + RELATION + r")\s*,)\s*$",
    re.IGNORECASE,
)
# A greeting or an apology right before a lone first name that is also a word ("Cheers Ray!").
_GREETING = re.compile(
    r"(?:^|[\s,.!?])(?:cheers|thanks(?:\s+a\s+million)?|thank\s+you|sorry|hi|hello|hey|dear"
    r"|morning|regards)\s*,?\s*$",
    re.IGNORECASE,
)
_MONTH_NAMES = frozenset({"april", "may", "june", "august"})
# A run followed by one of these names a place, an organisation or a legal instrument, not a
# person: "Dublin Airport", "Geneva Conventions", "Paris Agreement", "Rome Statute".
_NOT_PERSON_AFTER = frozenset(
    """park street st road rd avenue ave lane mall bypass flat gateway inc ltd llc corporation
    corp company co group orchestra bank university college school hospital hotel house court
    square bridge station airport river lake mount island city county centre center fort
    limited plc partners associates foundation trust council department office agency
    authority institute society club church cathedral drive way place close terrace
    convention conventions protocol protocols treaty treaties charter agreement agreements
    accord accords declaration statute regulation regulations directive directives act acts
    code committee commission tribunal parliament assembly board union federation
    organisation organization programme fund conference""".split()
)
# A run after a body or an instrument and "of" / "for" / "on" completes its name: "Treaty of
# Rome", "Council of Europe", "Committee for Electrotechnical Standardization". Capitalised,
# as the head of a proper name is; "the office of Mary Murphy" still reads as a person.
_BODY_BEFORE = re.compile(
    r"\b(?:Treaty|Treaties|Convention|Protocol|Charter|Statute|Court|Council|Committee"
    r"|Commission|Agency|Authority|Board|Bank|Union|Federation|Organisation|Organization"
    r"|Association|Institute|University|Ministry|Department|Parliament|Assembly|Tribunal"
    r"|Republic|Kingdom|Principality|Duchy|Government|Conference|Declaration|Agreement)s?"
    r"\s+(?:of|for|on)\s+(?:the\s+)?$"
)
# A capitalised word after "in", or after the Official Journal's place-of-signature formula
# ("done at Geneva", "signed at Rome"), is a place. A bare "at" is not enough ("shouted at
# Todd"), and a possessive ("in Mary's view") is still a person.
_PLACE_BEFORE = re.compile(
    r"(?:\b(?i:in)|\b(?:done|signed|adopted|concluded|held|made|opened|based|seated)\s+at)\s+$"
)
_POSSESSIVE = re.compile(r"['’]s\b")
# The last word of every _BODY_BEFORE and _PLACE_BEFORE match (lower-cased).
_LINK_WORDS = frozenset({"of", "for", "on", "the", "in", "at"})
# Words that end a street name and are (almost) never a surname.
_STREET_END = frozenset(
    "street st road rd avenue ave blvd boulevard terrace tce crescent quay".split()
)
# English words that are far more often first names when capitalised before a surname.
_NAME_WORDS = frozenset(
    "john mark will bill rose grant jack frank ray bob pat sue dawn joy hope faith grace victor"
    " jean guy dean miles max john paul peter mary june april may noel martin".split()
)

# Words that open a question or an instruction: auxiliaries and modals, question words,
# conjunctions, prepositions, pronouns and the verbs a chat starts with.
SENTENCE_START_WORDS = frozenset(
    """can could will would shall should may might must do does did is are was were has have
    had am be if when whenever while since because although though unless until after before
    once why how where what who whom whose which whether and but or so then also please tell
    ask send thank thanks let call email ring text contact give help get pay make say show
    check see note for from to with by about as at in on of the a an my our your his her their
    this that these those hi hello hey dear ok okay right well yes no oh anyway apparently
    basically honestly actually obviously luckily unfortunately hopefully surely perhaps maybe
    meanwhile today yesterday tomorrow now still recently previously sorry""".split()
)
_SENTENCE_END = re.compile(r"(?:^|[.!?:;\n\"“‘(\[]\s*|^\s+)$")


def _latin(word: str) -> bool:
    """Whether every letter of ``word`` is Latin (ASCII, Latin-1, Latin Extended)."""
    return word.isascii() or all(
        ord(c) < 0x250 or 0x1E00 <= ord(c) <= 0x1EFF or not c.isalpha() for c in word
    )


def _sentence_start(text: str, start: int) -> bool:
    """Whether ``text[start]`` starts a sentence (after a full stop, a question mark, a colon,
    a line break, an opening quote or bracket, or at the start of the text)."""
    return _SENTENCE_END.search(text[max(0, start - 4) : start]) is not None


# Two or more words in capitals separated by single spaces (names in a shouted label).
_CAPS_RUN = re.compile(r"(?<![\w'’-])[A-Z][A-Z'’-]{1,}(?: [A-Z][A-Z'’-]{1,})+(?![\w'’-])")

# Openers that start a noun phrase, not a clause about a person (``_after_opener``).
_NOT_OPENERS = frozenset(
    """the a an of in on at for from to with by about as my our your his her their this that
    these those where whereas which""".split()
)
# A lower-case word that is not a function word: the verb or predicate after a subject.
_PREDICATE_AFTER = re.compile(
    r"[ \t]+(?!(?:in|on|at|of|the|a|an|to|for|and|or|nor|with|from|by|as|vs|v|and|per"
    r"|under|into|onto|upon)\b)[a-z]"
)
# What a person, not a firm or a product, does with tax and papers: after an opener, a word no
# list holds that the trigram model scores as a word is still a name before one of these ("Has
# Rogatien missed the deadline", "Would Pompilio qualify"; not "Does Revolut charge").
_PERSON_PREDICATE_AFTER = re.compile(
    r"[ \t]+(?:qualify|qualifies|qualified|missed|miss|retire|retires|retired|inherit"
    r"|inherits|inherited|earn|earns|earned|marry|married|die|died|emigrate|emigrated"
    r"|need\s+to\s+(?:register|file|pay|claim)|have\s+to\s+(?:register|file|pay|claim)"
    r"|get\s+(?:the|a)\s+(?:[a-z]+\s+){0,2}(?:credit|relief|allowance|refund|bill|payment))\b"
)

STRONG = 0.85
CUED = 0.75
FIRST_PLUS = 0.7
LOWER_CASE = 0.6
UNKNOWN_PAIR = 0.55
AFTER_OPENER = 0.55
PROPAGATED = 0.7


@dataclass(frozen=True, slots=True)
class _Tok:
    start: int
    end: int  # without a trailing period
    core: str
    low: str
    period: bool


class PersonNameRecogniser:
    """Finds person names; see the module docstring for the rules."""

    def __init__(
        self, lexicon: Lexicon, *, min_score: float = 0.5, lower_case: bool = True
    ) -> None:
        self._first = lexicon.first_names
        self._names = lexicon.first_names | lexicon.surnames
        self._surnames = lexicon.surnames
        self._words = lexicon.english_words | lexicon.non_names
        self._non_names = lexicon.non_names
        self._min_score = min_score
        self._lower_case = lower_case
        self._namelike_word = name_likeness(lexicon).is_namelike
        self._spelled_like_names = name_likeness(lexicon).spelled_like_names

    def find(self, text: str) -> list[PiiFinding]:
        if _CAPS_RUN.search(text) is not None:
            text = _CAPS_RUN.sub(self._title_names, text)  # same length: spans unchanged
        toks = [self._tok(m) for m in _TOKEN.finditer(text)]
        found: list[PiiFinding] = []
        for run in self._runs(text, toks):
            finding = self._score(text, run)
            if finding is not None and finding.score >= self._min_score:
                found.append(finding)
        return found + self._propagate(text, toks, found)

    def _title_names(self, run: re.Match[str]) -> str:
        """A run of words in capitals with a first name followed by a name ("SIOBHAN MURPHY
        VAT"): those two words in title case, so the rules for names apply to them."""
        words = run.group().split(" ")
        lows = [w.lower() for w in words]
        for i in range(len(words) - 1):
            if (
                lows[i] in self._first
                and lows[i + 1] in self._names
                and not any(lows[k] in self._words for k in (i, i + 1))
            ):
                words[i], words[i + 1] = words[i].title(), words[i + 1].title()
        if any(w.istitle() for w in words):
            # The shouted words around the name are words, not more name ("SIOBHAN MURPHY
            # SAYS THE P45 ..." is "Siobhan Murphy says the P45"): lower-cased, so the
            # name's run ends at them.
            words = [
                w.lower() if not w.istitle() and lo in self._words else w
                for w, lo in zip(words, lows, strict=True)
            ]
        return " ".join(words)

    @staticmethod
    def _tok(match: re.Match[str]) -> _Tok:
        raw = match.group()
        period = raw.endswith(".")
        core = raw[:-1] if period else raw
        if core[-2:].lower() in ("'s", "’s") and len(core) > 3:
            core = core[:-2]
        return _Tok(match.start(), match.start() + len(core), core, core.lower(), period)

    def _namelike(self, tok: _Tok) -> bool:
        if not _latin(tok.core):
            return False  # a word of another script never joins a Latin name ("Åberg ג")
        if tok.core[0].isupper() or tok.low in _PARTICLES:
            return True
        # Lower-case names ("patricia desrosiers") only where the whole run is lower case.
        return self._lower_case and (
            len(tok.core) == 1 or (tok.low in self._names and tok.low not in self._words)
        )

    def _runs(self, text: str, toks: list[_Tok]) -> list[list[_Tok]]:
        runs: list[list[_Tok]] = []
        current: list[_Tok] = []
        for tok in toks:
            if current:
                prev = current[-1]
                gap = text[prev.end : tok.start]
                joined = gap.strip(" ") in ("", ".") and "\n" not in gap and len(gap) <= 3
                if prev.period and len(prev.core) > 1 and prev.low not in _TITLES:
                    joined = False  # a full stop after a word ends the sentence
                if not (joined and self._namelike(tok)):
                    runs.append(current)
                    current = []
            if self._namelike(tok):
                current.append(tok)
        if current:
            runs.append(current)
        return runs

    def _is_word(self, tok: _Tok) -> bool:
        if tok.low in self._words or (tok.core.isupper() and len(tok.core) > 1):
            return True
        if len(tok.core) > 2 and tok.core[-1] == "s" and tok.core[:-1].isupper():
            return True  # a plural acronym: "SMEs", "NGOs"
        # "Irish-established", "Non-resident": a compound of words is a word, not a name
        parts = re.split(r"[-’']", tok.low)
        return len(parts) > 1 and all(p in self._words for p in parts if len(p) > 1)

    def _score(self, text: str, tokens: list[_Tok]) -> PiiFinding | None:
        # A deque: the loops below trim the run from both ends one token at a time, and a run
        # can be thousands of tokens long ("a.a.a.a...."): slicing a list would be quadratic.
        run = deque(tokens)
        lower = all(not t.core[0].isupper() for t in run)
        if lower and len(run) == 1 and len(run[0].core) == 1:
            return None  # a lone lower-case letter
        if lower and not (len(run) >= 2 or self._cue(text, run[0])):
            return None
        if not lower and any(
            not t.core[0].isupper() and len(t.core) > 1 and t.low not in _PARTICLES for t in run
        ):
            return None
        if sum(t.core.isupper() and len(t.core) > 1 for t in run) >= 3:
            return None  # shouting, a heading or an acronym string
        # "Can Aoife Doyle ...", "Will Nuala Cullen ...", "May Karen McCarthy ...": a
        # function word or verb that starts a sentence is not part of the name after it,
        # even when a name list holds it ("Will", "May", "Mark").
        opener = None
        if (
            len(run) > 1
            and (
                run[0].low in SENTENCE_START_WORDS
                or run[0].low.endswith(("n't", "n’t"))
                # Any English word that is no name opens a sentence the same way ("Remind
                # Brosca ...", "Suppose Weronika ..."): its capital is the sentence's.
                or (
                    run[0].low in self._words
                    and run[0].low not in self._names
                    and run[0].low not in _TITLES
                    and run[0].core[1:].islower()
                )
            )
            and _sentence_start(text, run[0].start)
        ):
            opener = run.popleft()
        titled = False
        while run and run[0].low in _TITLES:
            titled = True
            run.popleft()
        if run and not titled and self._place_or_body(text, run[0].start, run[-1].end):
            return None
        while (
            run
            and not titled
            and (
                run[0].low in _PARTICLES
                or run[0].low.startswith("i'")
                or (self._is_word(run[0]) and run[0].low not in self._first)
            )
        ):
            run.popleft()
        after = _TOKEN.match(text, run[-1].end + 1) if run else None
        if after is not None and after.group().rstrip(".").lower() in _NOT_PERSON_AFTER:
            return None
        while len(run) > 1 and (
            run[-1].low in _PARTICLES
            or (
                self._is_word(run[-1])
                and run[-1].low not in self._names
                and len(run[-2].core) > 1
                and not self._word_surname(run)
                and not (opener is not None and self._unknown_before_word(text, opener, run))
            )
        ):
            if run[-1].low in _NOT_PERSON_AFTER:
                return None
            run.pop()
        if not run or (run[-1].low in _STREET_END and (titled or len(run) > 1)):
            return None  # "Dame Street", "Herceg Gateway St": a street, not a person
        words = [t for t in run if len(t.core) > 1 and t.low not in _PARTICLES]
        if not words:
            return None
        strong = any(t.low in self._names and not self._is_word(t) for t in words)
        unknown = [t for t in words if t.low not in self._names and not self._is_word(t)]
        # A country, a day or a nationality is not a name ("Costa Rica", "An Garda Síochána"),
        # unless a first name that is neither a word nor a non-name comes first ("Teresa Costa").
        led_by_first_name = (
            words[0].low in self._first
            and not self._is_word(words[0])
            and words[0].low not in self._non_names
        )
        # A month that is a first name ("June", "May", "April") before surnames that are not
        # words is a person ("June Romero"); "June 2025", "May Regulation" are not.
        month_first = (
            len(words) >= 2
            and words[0].low in _MONTH_NAMES
            and words[0].low in self._first
            and all(
                t.low in self._surnames and not self._is_word(t) and t.low not in self._non_names
                for t in words[1:]
            )
        )
        if not titled and any(
            t.low in self._non_names
            and (t is words[0] or not led_by_first_name)
            and not (month_first and t is words[0])
            for t in words
        ):
            return None
        if lower:
            # "siobhan murphy": a known first name and a known surname, neither a word.
            score = (
                STRONG
                if len(words) >= 2
                and words[0].low in self._first
                and any(t.low in self._surnames for t in words[1:])
                and not any(self._is_word(t) for t in words)
                else LOWER_CASE
            )
        elif titled or strong:
            score = STRONG
        elif (unknown or strong) and self._cue(text, run[0]):
            score = CUED
        elif (
            len(words) == 1
            and words[0].low in self._first
            and words[0].low not in self._non_names
            and _GREETING.search(text, max(0, run[0].start - 24), run[0].start) is not None
        ):
            score = CUED  # "Cheers Ray!", "Sorry Earl, one more question"
        elif (
            len(words) >= 2
            and words[0].low in self._first
            and any(
                t in unknown
                or (
                    t.low in self._names
                    and (
                        not self._is_word(t)
                        or not self._is_word(words[0])
                        or words[0].low in _NAME_WORDS
                    )
                )
                for t in words[1:]
            )
        ):
            score = FIRST_PLUS
        elif len(words) >= 2 and len(unknown) == len(words):
            score = UNKNOWN_PAIR
        elif opener is not None and self._after_opener(text, opener, run, unknown):
            score = AFTER_OPENER
        elif opener is not None and self._unknown_before_word(text, opener, run):
            score = AFTER_OPENER
        else:
            return None
        return PiiFinding(PERSON, run[0].start, run[-1].end, score)

    def _after_opener(self, text: str, opener: _Tok, run: deque[_Tok], unknown: list[_Tok]) -> bool:
        """A lone capitalised word no list holds, right after a verb, a modal or an adverb
        that opens the sentence, and before a lower-case word that is not a function word:
        "Does Weronika qualify", "Ask Emidio is ...", "Perhaps Wacława filed". Its capital is
        not the sentence's, so it is a proper name; one that reads like a person's name
        (:mod:`egress.pii.namelike`), spelled with a name's letters (not a brand's: "Should
        Airbnb refund"), and not like a word is taken for one. An article, a
        preposition, a determiner or the "Where" of legal prose as the opener ("The Eurojust
        ...", "In Galway ...", "Where Eurojust considers") does not count."""
        if len(run) != 1 or run[0] not in unknown or opener.low in _NOT_OPENERS:
            return False
        word = run[0]
        if word.period or not word.core[1:].islower():
            return False
        if not self._spelled_like_names(word.low):
            return False  # "Should Airbnb refund ...": a brand's letters, not a name's
        if not self._namelike_word(word.low):
            return _PERSON_PREDICATE_AFTER.match(text, word.end) is not None
        return _PREDICATE_AFTER.match(text, word.end) is not None

    def _unknown_before_word(self, text: str, opener: _Tok, run: deque[_Tok]) -> bool:
        """After an opener, a word no list holds that reads like a name and a capitalised
        English word, then a predicate: "Now Cettina Leach is", "Does Weronika Field
        qualify" — the pair ``_after_opener`` reads for one word, with a surname that is a word
        (as ``_word_surname`` allows after a known first name)."""
        if len(run) != 2 or opener.low in _NOT_OPENERS:
            return False
        first, last = run
        if first.low in self._names or self._is_word(first) or first.period:
            return False
        if not first.core[1:].islower() or not last.core[1:].islower():
            return False
        if not (self._namelike_word(first.low) and self._spelled_like_names(first.low)):
            return False
        if last.low in self._non_names or last.low in _NOT_PERSON_AFTER:
            return False
        if last.low in _STREET_END or last.low in SENTENCE_START_WORDS:
            return False
        return _PREDICATE_AFTER.match(text, last.end) is not None

    def _word_surname(self, run: deque[_Tok]) -> bool:
        """ "Gary Towns", "Francisco Bacon": a capitalised English word right after a first
        name that is not a word is a surname (a surname list never holds them all), unless it
        is a country, a day or a month, or a word that makes a place or a body of the run."""
        last, first = run[-1], run[0]
        return (
            len(run) == 2
            and first.low in self._first
            and not self._is_word(first)
            and first.low not in self._non_names
            and last.core[0].isupper()
            and not last.core.isupper()
            and last.low not in self._non_names
            and last.low not in _NOT_PERSON_AFTER
            and last.low not in _STREET_END
        )

    @staticmethod
    def _place_or_body(text: str, start: int, end: int) -> bool:
        """The run at ``start:end`` names a place or completes a body's or an instrument's name,
        judged by the words before it (see ``_PLACE_BEFORE`` and ``_BODY_BEFORE``)."""
        # Most runs follow none of the linking words: look at the word before first, as the
        # detector runs on every chat message and this is called for every capitalised run.
        before = text[max(0, start - 8) : start].split()
        if not before or before[-1].lower() not in _LINK_WORDS:
            return False
        if _BODY_BEFORE.search(text, max(0, start - 40), start) is not None:
            return True
        return (
            _PLACE_BEFORE.search(text, max(0, start - 16), start) is not None
            and _POSSESSIVE.match(text, end) is None
        )

    @staticmethod
    def _cue(text: str, tok: _Tok) -> bool:
        return _CUE.search(text, max(0, tok.start - 30), tok.start) is not None

    def _propagate(self, text: str, toks: list[_Tok], found: list[PiiFinding]) -> list[PiiFinding]:
        # Tokens are ordered and findings (one per run) do not overlap: one merge pass over
        # both, not tokens x findings, which is quadratic on a message full of names.
        spans = sorted((f.start, f.end) for f in found)
        inside: list[bool] = []
        k = 0
        for t in toks:
            while k < len(spans) and spans[k][1] <= t.start:
                k += 1
            inside.append(k < len(spans) and spans[k][0] <= t.start)
        known = {
            t.core
            for t, covered in zip(toks, inside, strict=True)
            if covered and len(t.core) > 2 and not self._is_word(t)
        }
        if not known:
            return []
        return [
            PiiFinding(PERSON, t.start, t.end, PROPAGATED)
            for t, covered in zip(toks, inside, strict=True)
            if t.core in known and not covered
        ]
