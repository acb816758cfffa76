"""Person names typed in lower case or in capitals (issue 25).

:mod:`egress.pii.names` reads capitalised runs; people in a chat also type "my name is aoife
doyle" or "HI, I'M SEAN O'BRIEN". This recogniser reads only words that are *not* in title case
(all lower case, or all capitals where capitals are the way the text is typed, not an acronym),
on a lower-cased copy of the text, and accepts a name in two ways:

* **after a cue**: "my name is", "i'm", "call me", "regards,", "signed", "dear", a greeting,
  "for my client", "on behalf of", "reply to", a relation ("my wife", "our tenant",
  "my accountant"), a form label ("name:", "applicant:") or a title (``ms``, ``dr``). The first
  word must be a known name that is not an English word, or a word that is neither a known name
  nor an English word ("feidhlim"); after a strong cue ("my name is", a title, a sign-off) a
  known name that is also a word ("grace", "power") is enough. A name followed by "here",
  "again" or "speaking" is cued too ("dara here");
* **by the lexicons**: a known first name that is not an English word followed by a surname
  (a known name, or a word that is neither a name nor an English word: "niall kaminska"), or a
  known first name that is a word followed by a known surname that is not ("john o'brien").
  "grace period", "will power", "mark the box" and "frank question" are not names: both words
  are English words.

Names may hold initials ("sean d. moran") and particles ("ni", "mac", "van"); the span is the
name alone, never the cue or a word after it. Tax and legal acronyms ("paye", "dora", "mica")
and the function words of a chat are never names. A caps word counts only where capitals are
how the text is typed: next to another caps word, or after a cue ("Hi, AOIFE here") — so
"DORA applies from 2025" and "the GDPR" stay clear. Words of a found name are found again
anywhere in the text, in any case.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from egress.pii.findings import PERSON, PiiFinding
from egress.pii.lexicon import Lexicon
from egress.pii.namelike import name_likeness
from egress.pii.names import RELATION, ROLE_WORDS, SENTENCE_START_WORDS

__all__ = [
    "CUED",
    "CUED_UNKNOWN",
    "NEVER_NAMES",
    "PAIR",
    "PROPAGATED",
    "STRONG_CUED",
    "UNKNOWN_FIRST",
    "UNKNOWN_SURNAME",
    "WEAK_PAIR",
    "AnyCaseNameRecogniser",
]

# A word of letters standing apart: never the letters of a token glued to digits or "_"
# ("Holdturn0b4bea" holds no "bea"); the atomic group keeps "anne-marie7" from giving "anne".
_TOKEN = re.compile(r"(?<!\w)(?>[^\W\d_]+(?:['’-][^\W\d_]+)*)(?!\w)\.?")
_PARTICLES = frozenset(
    "ni ní nic uí mhic mac mc van von de da di du le la del dela der den dos das ter ten bin ibn"
    " al st".split()
)
# Words a chat uses around names that the name lists also hold ("paye" is a surname in one of
# Faker's locales, "dora" a first name): never a name in lower case or capitals.
# Tax and legal acronyms of a chat, and the names of its forms and services.
_CHAT_ACRONYMS = frozenset(
    """paye prsi usc vat cgt cat lpt dirt hse rtb cro tca gdpr dora mica nis cjeu ecb eu uk ie us
    ai sme smes ppsn pps rct vrt bik eii sarp keep hap cso esb nct dsp dsa dma cra eba esma
    eiopa oecd ira irs hmrc nic nics utr iban bic swift sepa ltd plc dac llc inc clg uc ul
    form p60 p45 p21 rtso cesop oss ioss moss intrastat revenue ros myaccount mygovid""".split()
)
_NEVER = _CHAT_ACRONYMS | frozenset(
    """i a an the and or but so if of to in on at by for from with as is am are was were be
    my me we us our you your he him his she her they them their it its this that these those
    here there again also not no yes ok okay hi hey hello thanks thank regards cheers dear
    sir madam mr mrs ms miss mx dr prof rev fr sr
    please pls gonna wanna gotta kinda etc re fw fwd asap
    prima facie inter alia mutatis mutandis bona fide fides facto jure officio rata hoc per se
    sui generis vis versa via supra infra ibid et al ante quo vice ultra vires lex habeas
    amicus curiae obiter dicta ratio decidendi stare decisis res judicata locus standi pari
    passu erga omnes""".split()
)
# People named by their role or relation to the writer (``egress.pii.names.RELATION``); the
# role words themselves are never names.
_RELATION = RELATION
_ROLES = ROLE_WORDS
_CUE = (
    r"(?:i'm|i’m|im|i\s+am)\s+(?:called|named)|(?:hi|hey|hello)\s*,?\s+its"
    r"|i'm|i’m|im|i\s+am|this\s+is|hi\s*,?|hello\s*,?|hey\s*,?|it's|it’s"
    r"|good\s+(?:morning|afternoon|evening)\s*,?|thanks|on\s+behalf\s+of|reply\s+to"
    r"|(?:spoke|spoken|speaking|talked|talking|chatted|wrote|write|writing|speak|talk)"
    r"\s+(?:to|with)|met\s+with|married\s+to|work\s+for|tell\s+me\s+if|asking\s+for"
    r"|me\s+and|name\s+(?:[a-z]+\s+){1,4}is|cc|cheers|ta|best\s+wishes|all\s+the\s+best"
    r"|(?<!as\s)(?<!in\s)(?<!with\s)regards"
    r"|(?:writing|calling|acting|asking|filing)\s+for"
    r"|thanks\s+a\s+million|warm\s+wishes"
    r"|(?:for\s+)?(?:my|our|his|her|their|your)\s+(?:" + _RELATION + r")\s*[,:]?"
    r"|(?:the\s+)?(?:nanny|granny|auntie|employee|client|patient|taxpayer|deceased"
    r"|account\s+holder)\s*[,:]?"
)
_STRONG_CUE = (
    r"my\s+name\s+is|my\s+name's|name\s*:|full\s+name\s*:|call\s+me|regards\s*,|kind\s+regards"
    r"|(?:my\s+)?(?:surname|last\s+name|family\s+name)\s+is"
    r"|best\s+regards|signed\s*,?|sincerely\s*,?|cheers\s*,|thanks\s*,|thank\s+you\s*,"
    r"|many\s+thanks\s*,?|yours\s+(?:truly|faithfully)\s*,?|surname(?:\s+and\s+first\s+name)?\s*:"
    r"|first\s+name\s*:|from\s*:|contact(?:\s+person)?\s*:|dear|attn\s*:?"
    r"|(?:for\s+the\s+)?attention\s+of\s*:?|f\.?a\.?o\.?\s*:?"
    r"|mr\.?|mrs\.?|ms\.?|miss|mx\.?|dr\.?|prof\.?"
    r"|(?:" + _RELATION + r")\s*:|(?:taxpayer|patient|client|account|employee)\s+name\s*:?"
)
# A sign-off alone on its line: the next line is a signature ("ta\nvenkatesh kaminski").
_SIGN_OFF = (
    r"(?:ta|thanks|thank\s+you|cheers|many\s+thanks|thanks\s+a\s+million|best|best\s+wishes"
    r"|all\s+the\s+best|regards|kind\s+regards|rgds|sincerely|yours)[ \t]*[,.!]?(?=[ \t]*\n)"
)
_CUES = re.compile(
    r"(?<![\w'’-])(?:(?P<strong>" + _STRONG_CUE + r"|" + _SIGN_OFF + r")|(?:" + _CUE + r"))"
    r"(?:[ \t]+|(?<=[,:.!])[ \t]*\n[ \t]*|[ \t]*\n[ \t]*)(?=[^\W\d_])"
)
# After a name: "dara here", "zachary is my name", "gerald, my son," "penny clayton, sole trader".
_APPOSITION = r"(?:(?:my|our|his|her|their)[ \t]+(?:" + _RELATION + r")|sole[ \t]+trader)\b"
_AFTER_CUE = re.compile(
    r"[ \t]*,?[ \t]+(?:here|again|speaking)\b|[ \t]+is[ \t]+my[ \t]+name\b"
    r"|[ \t]+and[ \t]+(?:i|me|myself)\b"
    r"|[ \t]+(?:family|household)\b"
    r"|[ \t]*,[ \t]*" + _APPOSITION
)
# The cue words themselves, and the word before one ("dara here"), looked for only near them.
_AFTER_CUE_WORD = re.compile(
    r"(?<=[ \t,])(?:here|again|speaking|family|household|is[ \t]+my[ \t]+name\b"
    r"|and[ \t]+(?:i|me|myself)\b"
    r"|(?<=,[ \t])" + _APPOSITION + r")\b"
)
# Where a name typed after a strong cue may end: punctuation, a line break or the end.
_BOUNDARY = re.compile(r"[ \t]*(?:[,.;:!?)\n]|-[ \t]|$)")
_WORD_BEFORE_CUE = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*(?=[ \t]*,?[ \t]+$)")

# English words that are also common first names: before a surname that is not a word
# ("john o'brien", "grace kaminska") they start a name; "son", "will" as a verb... do not.
_NAME_WORDS = frozenset(
    """john mark bill rose grant jack frank ray bob pat sue dawn joy hope faith grace victor
    jean guy dean miles max paul peter mary june april may noel martin carol eugene christian
    norman gene harry kay lily holly ivy iris daisy violet ruby pearl jade amber heather
    will""".split()
)

# Short function words of other languages that the name lists also hold.
_FOREIGN_FUNCTION_WORDS = frozenset(
    """les des una uno con per las los und die das ein eine mit non ces son sa ta ma
    mes tes nos vos dans pour par une est sur avec sans sous entre och att det som til fra
    og""".split()
)

# Where chat puts a person (``AnyCaseNameRecogniser._person_slot``): after a verb that takes
# a person as its object, or a preposition before a transfer ("from ... to"), and before a verb
# a person does. Words of people's lives, not of legal prose.
_PERSON_VERB_BEFORE = re.compile(
    r"(?<![\w'’-])(?:told|tell|telling|ask|asked|asking|pay|paid|paying|gave|give|giving"
    r"|sent|send|owe|owes|owed|help|helped|helping|call|called|ring|rang|email|emailed|text"
    r"|texted|meet|met|hired|hire|employ|employs|employed|marry|married|thank|thanked"
    r"|lend|lent|loaned|visit|visited|mind|minds|minding|me\s+and|gift\s+from|money\s+from"
    r"|loan\s+from|inherited\s+from|emailed|(?:live|lives|lived|living|stay|stays|staying"
    r"|moved\s+in|share|shares|sharing)\s+with|(?:payment|paid|gave|transfer|transferred|gift"
    r"|loan|money|lent|left|sold|owed)\s+to"
    r"|(?:my|our|his|her|their)\s+(?:" + _RELATION + r")\s+and)[ \t]+$"
)
# Before a pair of name words (``AnyCaseNameRecogniser._pair_slot``), besides the verbs above:
# the doer or the other side of a sale, a letting or a job ("sold by", "bought from").
_PAIR_BEFORE = re.compile(
    r"(?<![\w'’-])(?:(?:sold|bought|rented|let|leased|inherited|hired|employed|owned|signed"
    r"|prepared|done|paid|sent|given|left|received)\s+(?:by|from)|work\s+for|worked\s+for"
    r"|working\s+for|gift\s+from|owe|owes|owed)[ \t]+$"
)
# A question about what a person may or must do: a modal before the word, a verb of people's
# money and papers in its base form after it ("does jildau need", "how much can maika earn").
_PERSON_MODAL_BEFORE = re.compile(
    r"(?<![\w'’-])(?:does|did|can|could|will|would|should|must|might|do)[ \t]+$"
)
_PERSON_BASE_VERB_AFTER = re.compile(
    r"[ \t]+(?:need|needs|pay|earn|get|claim|file|owe|qualify|keep|sell|buy|receive|inherit"
    r"|work|live|move|register|submit|declare|report|want|have|know|still|also|ever|really"
    r"|lose|sign|gift|rent|let|own|retire)\b"
)
_PERSON_PREP_BEFORE = re.compile(r"(?<![\w'’-])(?:and|with|for|from)[ \t]+$")
_PERSON_SUBJECT = re.compile(
    r"[ \t]+(?:wants|wanted|needs|needed|says|said|thinks|thought|told|tells|asked|asks"
    r"|earns|earned|works|worked|lives|lived|pays|paid|owns|owned|owes|owed|gets|got|has|had"
    r"|sent|sends|called|rang|texted|emailed|started|left|moved|retired|died|married|inherited"
    r"|received|claims|claimed|got|gave|gives|is\s+my|was\s+my|and\s+i|and\s+me"
    r"|from\s+(?:the\s+)?[a-z]+\s+(?:told|tells|said|says|asked|asks|rang|called|emailed|wrote)"
    r"|moves|moved|shares|share|uses|used|thinks|and\s+(?:my|his|her|their)\s+(?:"
    + _RELATION
    + r")|(?:is|was)\s+(?:the|a|an|my|our|his|her|their)\s+(?:"
    + _RELATION
    + r")"
    r"|(will|would|can|could|should|might|must|does|did|doesn't|didn't))\b"
)
# The narrower places of a word in capitals no list holds (``_caps_slot``).
_CAPS_PERSON_BEFORE = re.compile(
    r"(?<![\w'’-])(?:told|asked|paid|pay|lent|gave|emailed|rang|texted|met|hired|married"
    r"|thanked|owe|owes|owed|(?:payment|paid|gave|lent|money|gift)\s+to"
    r"|(?:gift|money|loan)\s+from|(?:my|our|his|her|their)\s+(?:" + _RELATION + r")"
    r"(?:\s+and)?)[ \t]+$"
)
# A first name that is also a word, given money: "gave crystal 3k", "paid chad €500".
_GIVE_BEFORE = re.compile(
    r"(?i)(?<![\w'’-])(?:gave|give|giving|paid|pay|paying|lent|lend|owe|owes|owed|sent|send"
    r"|loaned)[ \t]+$"
)
# Names that are also words of money and marks: "paid bill 300", "gave mark 5 out of 10".
# and prepositions the lists hold ("paid over 2022").
_MONEY_NOUNS = frozenset(
    """bill grant mark penny cash sterling bond will tip chase rent over under for per out
    off back down about around after before since until till into upon via all""".split()
)
# The last words of ``_PERSON_VERB_BEFORE`` and ``_PAIR_BEFORE``: a cheap test before searching.
_SLOT_LAST_WORDS = frozenset(
    """told tell telling ask asked asking pay paid paying gave give giving sent send owe owes
    owed help helped helping call called ring rang email emailed text texted meet met hired hire
    employ employs employed marry married thank thanked lend lent loaned visit visited mind minds
    minding and from with to by for""".split()
)
# The first words of ``_PERSON_SUBJECT``'s verbs (its modals left out: a pair before a modal is
# not a person's place).
_SUBJECT_FIRST_WORDS = frozenset(
    """wants wanted needs needed says said thinks thought told tells asked asks earns earned
    works worked lives lived pays paid owns owned owes owed gets got has had sent sends called
    rang texted emailed started left moved retired died married inherited received claims
    claimed gave gives is was and from moves shares share uses used""".split()
)
_AMOUNT_AFTER = re.compile(r"[ \t]+(?:[€£$][ \t]*)?\d")
_MODALS = frozenset("will would can could should might must does did doesn't didn't".split())

_POSSESSIVE_END = re.compile(r"['’]s\.?$")
_NUMBER_AFTER = re.compile(r"[ \t]*\d")
# Words before a noun, not before a person's name ("the ISA allowance", "my ISA", "an EMA").
_DETERMINER_BEFORE = re.compile(
    r"(?<![\w'’-])(?:the|a|an|this|that|these|those|each|every|any|no|some|my|our|your|his"
    r"|her|their|its|per|via|under|article|annex|section)[ \t]+$"
)
_CAPS_WORD_BEFORE = re.compile(r"(?<![\w'’-])[A-Z][A-Z'’-]+[ \t]+$")
_CAPS_WORD_AFTER = re.compile(r"[ \t]+[A-Z][A-Z'’-]+(?![\w'’-])")

# Chat acronyms and function words that no recogniser reads as a name.
NEVER_NAMES = _NEVER

_KIND_CACHE = 50_000  # words whose kind is remembered (cleared when full)

STRONG_CUED = 0.85
CUED = 0.8
PAIR = 0.75
WEAK_PAIR = 0.7
CUED_UNKNOWN = 0.6
UNKNOWN_SURNAME = 0.65
UNKNOWN_FIRST = 0.6
PROPAGATED = 0.7
_LONE_IN_SLOT = 0.6
_LONE_FIRST = 0.55


@dataclass(frozen=True, slots=True)
class _Word:
    start: int
    end: int  # without a trailing period
    low: str
    case: str  # "lower", "caps" (beside other capitals), "caps_alone" or "title"
    period: bool
    possessive: bool = False  # "rivera's": the span ends before the "'s", and the name there

    @property
    def eligible(self) -> bool:
        """Lower case, or capitals where capitals are how the text is typed."""
        return self.case in ("lower", "caps")


class _Words:
    """The words of a text, each built when first looked at (most never are)."""

    def __init__(self, text: str) -> None:
        self.matches = list(_TOKEN.finditer(text))
        self._cache: dict[int, _Word] = {}

    def __len__(self) -> int:
        return len(self.matches)

    def low_at(self, k: int) -> str:
        """The lower-case word at ``k`` ("" outside the text), without building a ``_Word``."""
        if k < 0 or k >= len(self.matches):
            return ""
        return self._core(k).lower()

    def _core(self, k: int) -> str:
        raw = self.matches[k].group()
        return raw[:-1] if raw.endswith(".") else raw

    def __getitem__(self, k: int) -> _Word:
        word = self._cache.get(k)
        if word is None:
            core = self._core(k)
            period = len(core) < len(self.matches[k].group())
            possessive = len(core) > 3 and core[-2:].lower() in ("'s", "’s")
            if possessive:
                core = core[:-2]  # "SIOBHAN's" is in capitals
            if core.islower():
                case = "lower"
            elif core.isupper():
                beside = (k > 0 and self._core(k - 1).isupper()) or (
                    k + 1 < len(self.matches) and self._core(k + 1).isupper()
                )
                case = "caps" if beside or len(core) == 1 else "caps_alone"
            else:
                case = "title"
            start = self.matches[k].start()
            word = _Word(start, start + len(core), core.lower(), case, period, possessive)
            self._cache[k] = word
        return word


class AnyCaseNameRecogniser:
    """Finds names typed in lower case or capitals; see the module docstring."""

    def __init__(self, lexicon: Lexicon, *, min_score: float = 0.5) -> None:
        self._first = lexicon.first_names
        self._surnames = lexicon.surnames
        self._names = lexicon.first_names | lexicon.surnames
        self._words = lexicon.english_words | lexicon.non_names
        self._namelike = name_likeness(lexicon).is_namelike
        self._spelled_like_names = name_likeness(lexicon).spelled_like_names
        self._acronyms = lexicon.acronyms
        self._places = lexicon.places
        self._min_score = min_score
        self._kinds: dict[str, str] = {}

    def find(self, text: str) -> list[PiiFinding]:
        low = text.lower() if len(text.lower()) == len(text) else _lower_same_length(text)
        cues = {m.end(): m.group("strong") is not None for m in _CUES.finditer(low)}
        cued_after: set[int] = set()
        for cue_word in _AFTER_CUE_WORD.finditer(low):
            window = max(0, cue_word.start() - 40)
            before = _WORD_BEFORE_CUE.search(low, window, cue_word.start())
            if before is not None:
                cued_after.add(before.start())
        words = _Words(text)
        names, known = self._names, self._words
        # Most words are neither after a cue, nor a known name, nor a word in no list (which
        # may start a pair of name-like words: "hui mazur"): two cheap tests each.
        candidates = [
            k
            for k, m in enumerate(words.matches)
            if (
                m.start() in cues
                or m.start() in cued_after
                or (core := low[m.start() : m.end()].rstrip(".")) in names
                or (len(core) > 2 and core not in known)
            )
            and not (m.group()[0].isupper() and not _POSSESSIVE_END.sub("", m.group()).isupper())
        ]
        found: list[PiiFinding] = []
        done = 0  # words before this index are inside a name already found
        for i in candidates:
            if i < done:
                continue
            # A first name the lists lack, before a known surname ("riona o'donnell",
            # "emidio p lombardo"): start there.
            back = self._unknown_first_before(text, words, i, done, cues)
            if back is not None:
                span = self._name_at(text, low, words, back, cues)
                if span is not None:
                    i = back
            if back is None or span is None:
                span = self._name_at(text, low, words, i, cues)
            if span is None and i + 1 < len(words):
                span = self._pair_in_slot(text, low, words, i)
            if span is not None:
                done, score = span
                if score >= self._min_score:
                    found.append(PiiFinding(PERSON, words[i].start, words[done - 1].end, score))
        found += self._coordinated(text, words, found)
        return found + self._propagate(words, found)

    def _coordinated(self, text: str, words: _Words, found: list[PiiFinding]) -> list[PiiFinding]:
        """A lone word joined by "and" to a name found ("halit ohlsen and frösten are the two
        directors", "dwana and tekay paddeck"): a name when it is typed as the text is and is
        in no word list (a known name that is not an English word, or a word no list holds),
        never a law acronym."""
        if not found:
            return []
        starts = [m.start() for m in words.matches]
        taken: set[int] = set()  # indices of the words inside a name (one pass: linear)
        for f in found:
            taken.update(range(bisect_left(starts, f.start), bisect_left(starts, f.end)))
        out: list[PiiFinding] = []
        for f in found:
            after = bisect_left(starts, f.end)
            before = bisect_left(starts, f.start) - 1
            for k, j in ((after, after + 1), (before, before - 1)):
                if not (0 <= k < len(words) and 0 <= j < len(words)) or words.low_at(k) != "and":
                    continue
                left, right = (f.end, words[j].start) if j > k else (words[j].end, f.start)
                if text[left:right].strip(" \t") != "and" or "  " in text[left:right]:
                    continue
                if not self._coordinated_word(words, j, taken):
                    continue
                start, end, pair = words[j].start, words[j].end, [j]
                # The other word of a two-word name beside it ("and tekay paddeck").
                o = j + 1 if j > k else j - 1
                if 0 <= o < len(words) and self._coordinated_word(words, o, taken):
                    lo, hi = min(j, o), max(j, o)
                    if text[words[lo].end : words[hi].start] == " " and not words[lo].possessive:
                        start, end, pair = words[lo].start, words[hi].end, [lo, hi]
                out.append(PiiFinding(PERSON, start, end, PROPAGATED))
                taken.update(pair)
        return out

    def _coordinated_word(self, words: _Words, j: int, taken: set[int]) -> bool:
        word = words[j]
        return (
            word.eligible
            and self._kind(word) in ("strong", "unknown")
            and word.low not in self._acronyms
            and word.low not in self._places
            and j not in taken
        )

    def _unknown_first_before(
        self, text: str, words: _Words, i: int, done: int, cues: dict[int, bool]
    ) -> int | None:
        """The index of an unknown word just before ``words[i]`` (an initial may stand
        between them), or ``None``."""
        k = i - 1
        if words[i].start in cues:
            return None  # a cue says where the name starts: "my flatmate leonard isbell"
        if (
            k >= done
            and len(words[k].low) == 1
            and text[words[k].end : words[i].start]
            in (
                " ",
                ". ",
            )
        ):
            k -= 1
        if k < done or k < 0 or text[words[k].end : words[k + 1].start] != " ":
            return None
        word = words[k]
        return k if word.eligible and self._kind(word) == "unknown" else None

    def _kind(self, word: _Word) -> str:
        """``strong`` (a name, not a word), ``weak`` (a name and a word), ``unknown``
        (neither), ``initial``, ``particle`` or ``no``."""
        low = word.low
        if len(low) == 1:
            return "initial" if low not in ("i", "a") or word.period else "no"
        kind = self._kinds.get(low)
        if kind is None:
            kind = self._kind_of(low)
            if len(self._kinds) > _KIND_CACHE:
                self._kinds.clear()
            self._kinds[low] = kind
        return kind

    def _kind_of(self, low: str) -> str:
        """:meth:`_kind` of a word of two letters or more (memoised there: the suffix and
        compound tests cost a few dozen set look-ups, and a text repeats its words)."""
        if low in _PARTICLES:
            return "particle"  # counts only before a name word ("nic dhonnchadha")
        if low in _NEVER or low in _FOREIGN_FUNCTION_WORDS or low in _ROLES:
            return "no"
        if low in self._names:
            return "weak" if low in self._words or _is_compound_word(low, self._words) else "strong"
        if low in self._words or _is_compound_word(low, self._words) or len(low) < 3:
            return "no"
        if low[-1] == "s" and _plural_of_word(low, self._words):
            return "no"  # a plural the word list lacks ("deliverables", "issuers")
        if _derived_word(low, self._words):
            return "no"  # "issuer", "learnable", "timeframe": made of words the list holds
        return "unknown"

    def _name_at(
        self, text: str, low: str, words: _Words, i: int, cues: dict[int, bool]
    ) -> tuple[int, float] | None:
        first = words[i]
        kind = self._kind(first)
        if kind in ("initial", "particle") and first.start in cues:
            # "dr nic dhonnchadha", "MS NÍ BHRIAIN", "DR Ó GRÁDA": after a cue a particle or
            # an initial starts the name when a name word follows it.
            kind = self._after_particle(text, words, i)
        if kind == "no" and cues.get(first.start) is True and self._word_before_name(words, i):
            kind = "weak"  # "my name is verity palmateer": a word, then a name, after the cue
        if kind in ("no", "initial", "particle"):
            return None
        if kind == "weak" and first.low in SENTENCE_START_WORDS:
            return None  # "WILL AOIFE DOYLE PAY ...": a verb, then the name
        cue = cues.get(first.start)
        if cue is None and first.case == "caps_alone" and _AFTER_CUE.match(low, first.end):
            cue = False  # "it's LAVERNE again"
        if first.case != "lower" and first.low in self._acronyms and cue is not True:
            return None  # "told ENISA", "the ELI of the act": the acts' own acronyms
        if (
            first.case == "caps_alone"
            and text[first.start - 1 : first.start] == "("
            and (text[first.end : first.end + 1] == ")")
        ):
            return None  # "Research Infrastructure Consortium (ERIC)": an acronym defined
        if kind == "weak" and cue is None and self._word_name_in_place(text, first):
            return i + 1, _LONE_IN_SLOT  # "gave crystal 3k", "CRYSTAL wants to know"
        slot: list[bool] = []  # ``_person_slot`` of ``first``, asked at most once

        def in_slot() -> bool:
            if not slot:
                slot.append(
                    self._person_slot(low, first, kind, words.low_at(i - 1), words.low_at(i + 1))
                )
            return slot[0]

        if not first.eligible and not (
            first.case == "caps_alone"
            and (
                cue
                or (cue is not None and kind != "unknown")
                or (cue is not None and self._caps_name(first))
                or _AFTER_CUE.match(low, first.end) is not None
                or in_slot()
                or self._caps_first_name(text, low, first, kind)
            )
        ):
            return None  # a lone word in capitals is an acronym unless a name follows a cue
        caps = first.case != "lower"
        j = self._extend(text, words, i + 1, caps, first.low in self._first or cue is not None)
        if cue is not None and not first.possessive:
            j = self._to_boundary(low, words, i, j, caps, strong=cue and kind != "unknown")
        if cue is None and caps and j == i + 1 and self._caps_word_surname(text, words, i, kind):
            return i + 2, WEAK_PAIR  # "paid LISA BOUTS": as "Lisa Bouts" in title case
        following = [words[k] for k in range(i + 1, j)]
        rest = [self._kind(w) for w in following]
        has_surname = any(
            k in ("strong", "unknown") or (k == "weak" and w.low in self._surnames)
            for k, w in zip(rest, following, strict=True)
        )
        if cue is None and _AFTER_CUE.match(low, words[j - 1].end) is not None:
            cue = False
        surname_strong = any(
            k == "strong" and w.low in self._surnames for k, w in zip(rest, following, strict=True)
        )
        if kind == "unknown" and cue is None and j == i + 1 and in_slot():
            return j, _LONE_IN_SLOT  # "told emidio"
        if kind == "unknown" and cue is None:
            # A word we do not know is a first name only before a surname that is not a word
            # ("riona o'donnell", "FEIDHLIM DOYLE"), or when it looks like a name and so does
            # the word after it, a known name or another word no list holds ("hui mazur",
            # "babajide kazlauskiene"); alone it is a word we do not know.
            if surname_strong or self._namelike_pair(first, following, rest):
                return j, UNKNOWN_FIRST
            if in_slot():
                return j, _LONE_IN_SLOT  # "WE PAID JANKA POTTINGER": the place decides
            return None
        if cue is not None:
            if kind == "weak" and not cue and not has_surname:
                return None
            if kind == "strong" or has_surname:
                return j, STRONG_CUED if cue or has_surname else CUED
            return j, STRONG_CUED if cue else CUED_UNKNOWN
        if not has_surname:
            if j == i + 1 and in_slot():
                return j, _LONE_IN_SLOT
            if j == i + 1 and self._lone_first_name(text, first, kind):
                return j, _LONE_FIRST
            if j == i + 1 and self._caps_first_name(text, low, first, kind):
                return j, _LONE_FIRST
            return None
        known_surname = any(
            k in ("strong", "weak") and w.low in self._names
            for k, w in zip(rest, following, strict=True)
        )
        if kind == "strong" and first.low in self._first:
            if known_surname:
                return j, PAIR
            # "laoise kowalski": a surname the lists lack (a first name that is also a
            # function word of another language, "les sociétés", is no first name here).
            return j, UNKNOWN_SURNAME
        if first.low in _NAME_WORDS and surname_strong:
            return j, WEAK_PAIR
        if kind == "strong" and self._namelike_pair(first, following, rest):
            # A surname-list name before a name-like word ("venkatesh kaminski").
            return j, UNKNOWN_SURNAME
        if kind == "weak" and first.low in self._first and surname_strong:
            # A first name that is also a word before a surname that is not ("florin
            # krishnan"): the surname decides.
            return j, WEAK_PAIR
        return None

    def _word_name_in_place(self, text: str, word: _Word) -> bool:
        """A first name that is also an English word, where only a person fits: after a verb
        of giving and before an amount ("gave crystal 3k", "paid chad €500"), or typed alone
        in capitals to open a sentence before a lower-case verb a person does ("CRYSTAL
        wants to know")."""
        if word.low not in self._first or len(word.low) < 3 or word.possessive:
            return False
        if word.low not in _MONEY_NOUNS and (
            _GIVE_BEFORE.search(text, max(0, word.start - 12), word.start) is not None
            and _AMOUNT_AFTER.match(text, word.end) is not None
        ):
            return True
        if word.case != "caps_alone":
            return False
        opening = text[max(0, word.start - 3) : word.start].rstrip(" \t")
        if opening and opening[-1] not in ".!?\n":
            return False
        verb = _PERSON_SUBJECT.match(text, word.end)
        return verb is not None and verb.group().strip()[:1].islower()

    def _lone_first_name(self, text: str, word: _Word, kind: str) -> bool:
        """A first name the lists hold that is no English word, alone in lower case (or in
        capitals inside a shouted message), not inside an address, a path or a number
        ("data.europa.eu/eli/reg"). Measured, not assumed: the 40,258 paragraphs of the 49
        acts hold one such word in lower case and none in a run of capitals; a lone word in
        capitals amid lower case is an acronym ("ELI", "EMA", "OLAF") and stays out."""
        if kind != "strong" or word.case not in ("lower", "caps") or word.low not in self._first:
            return False
        if len(word.low) < 3:
            return False  # "na", "de": function words of other languages the lists hold
        before = text[word.start - 1] if word.start else " "
        after = text[word.end : word.end + 2]
        if before in "/.@_\\" or re.match(r"[/@_\\\d]|\.\w", after):
            return False
        if word.case == "caps":
            # Shouted means an English word in capitals right beside it ("CAN SIOBHAN
            # CLAIM"), not capitals somewhere near ("OJ L, 2024/1689, ELI: http://…") nor an
            # acronym beside it ("the UK ISA allowance").
            beside = (
                _CAPS_WORD_BEFORE.search(text, max(0, word.start - 30), word.start),
                _CAPS_WORD_AFTER.match(text, word.end),
            )
            if beside[0] is not None and self._modifier(beside[0].group().strip().lower()):
                return False  # "THE UK ISA ALLOWANCE": a noun after an acronym or "the"
            return any(
                m is not None and self._shouted_word(m.group().strip().lower()) for m in beside
            )
        return True

    def _modifier(self, low: str) -> bool:
        """A word before a noun rather than a name: an acronym of a chat or of the acts, or a
        determiner ("UK ISA", "THE ISA", "MY ISA")."""
        return (
            low in _CHAT_ACRONYMS
            or (low in self._acronyms and low not in self._words)
            or _DETERMINER_BEFORE.fullmatch(low + " ") is not None
        )

    def _shouted_word(self, low: str) -> bool:
        """A word in capitals that shows capitals are how the message is typed: an English
        word ("CAN", "OWE", "FROM"), or a word that reads as one and is no acronym of the acts
        ("JANKA"); not a chat's or the acts' acronym ("the UK ISA allowance", "VAT", "EMA")."""
        if low in _CHAT_ACRONYMS:
            return False
        if low in self._words or low in SENTENCE_START_WORDS:
            return True
        return len(low) >= 4 and low not in self._acronyms and _pronounceable(low)

    def _caps_first_name(self, text: str, low: str, word: _Word, kind: str) -> bool:
        """A first name the lists hold, no English word, alone in capitals amid lower case
        ("can ZOE claim", "the car NUALA uses"): a name, as "Zoe" is in title case, unless it
        is an acronym (one the acts use: "ELI", "EMA", "ESMA"; or not pronounceable), stands
        after a determiner or a possessive ("the ISA allowance", "my ISA"), before a number,
        or inside a path or an address."""
        if word.case != "caps_alone" or kind != "strong" or word.low not in self._first:
            return False
        if len(word.low) < 3 or word.low in self._acronyms or not _pronounceable(word.low):
            return False
        if _DETERMINER_BEFORE.search(low, max(0, word.start - 12), word.start) is not None:
            return False
        if _NUMBER_AFTER.match(low, word.end) is not None:
            return False
        return not _glued(text, word)

    def _caps_word_surname(self, text: str, words: _Words, i: int, kind: str) -> bool:
        """Two words in capitals amid words that are not ("sent it to LISA BOUTS last week"):
        a first name the lists hold that is no English word, then an English word, is a name
        as it is in title case (``names.PersonNameRecogniser._word_surname``: "Gary Towns") —
        unless the second word is a function word, a chat word, a role or reads as a verb
        ("-ed", "-ing"), or more capitals follow (a shouted message: "ZOE PAID ME")."""
        first = words[i]
        if kind != "strong" or first.low not in self._first or first.possessive:
            return False
        if i + 1 >= len(words) or text[first.end : words[i + 1].start] != " ":
            return False
        second = words[i + 1]
        if (i > 0 and words[i - 1].case.startswith("caps")) or (
            i + 2 < len(words) and words[i + 2].case.startswith("caps")
        ):
            return False
        return (
            second.case == "caps"
            and self._kind(second) in ("no", "weak")
            and self._plain_word(second)
            and second.low in self._words
            and second.low not in self._acronyms
            and not second.low.endswith(("ed", "ing"))
            and _PERSON_SUBJECT.match(" " + second.low) is None
        )

    def _short_caps_name(self, low: str, word: _Word, kind: str) -> bool:
        """A first name of three letters in capitals ("ZOE", "IDA", "UNA") is a name where a
        longer one would be, unless it is an acronym: not pronounceable ("USC"), or one the
        acts use ("ELI", "EMA", "ESA"). The same lexicon test as in title case, with the law
        text's acronyms as its exceptions (``bench/pii_build_acronyms.py``)."""
        return (
            kind == "strong"
            and len(word.low) == 3
            and word.low in self._first
            and word.low not in self._acronyms
            and _pronounceable(word.low)
            and not _glued(low, word)
        )

    def _caps_name(self, word: _Word) -> bool:
        """A word in capitals no list holds that reads like a name ("NANAHO", not "EDPB")."""
        return (
            len(word.low) >= 4
            and "-" not in word.low
            and _pronounceable(word.low)
            and self._namelike(word.low)
        )

    @staticmethod
    def _caps_slot(low: str, word: _Word) -> bool:
        """A person's place for a word in capitals amid lower case that no list holds: the
        places of a lower-case name (after "told/ask/paid/…", a relation, "me and"; before a
        verb people do, not a modal), now that the acts' own acronyms are out before this is
        asked ("told ENISA", "help ENISA", "the AIFM has": ``bench/pii_build_acronyms.py``).
        A possessive is not such a place ("the AIFM's liability")."""
        window = max(0, word.start - 24)
        if _CAPS_PERSON_BEFORE.search(low, window, word.start) is not None:
            return True
        if _PERSON_VERB_BEFORE.search(low, window, word.start) is not None:
            return True  # "ask CALQUÍN about": the acts' acronyms are out already
        after = _PERSON_SUBJECT.match(low, word.end)
        return after is not None and after.group(1) is None

    def _person_slot(self, low: str, word: _Word, kind: str, before: str, following: str) -> bool:
        """A lone word where chat puts a person: the subject of a verb people do ("kate wants
        to know", "martim earns"), or the object of one ("told ravil", "i pay laila", "the
        gift from astrid to my son").

        A first name the lists hold that is not an English word may stand after a verb or a
        preposition ("with", "for", "and") and before any verb; in capitals amid lower case
        (where acronyms live: "the Commission and ENISA may") only beside a verb of people's
        lives; so may a surname the lists hold. A word no list holds: name-like
        (:mod:`egress.pii.namelike`), without a hyphen ("non-cyber"), only beside such a
        verb, and in capitals amid lower case only when it reads as a word, not as an
        initialism (``_pronounceable``: "NANAHO", not "EDPB").

        ``before`` and ``following`` are the words around (lower case, "" at an end): the
        patterns are searched only when one of them can match there."""
        if kind == "strong":
            # A surname alone ("SEILER owns half") only beside a verb of people's lives.
            verbs_only = word.case == "caps_alone" or word.low not in self._first
        elif kind == "unknown" and "-" not in word.low:
            # In lower case, or in capitals where capitals are how it is typed; a lone word in
            # capitals amid lower case only when it reads like a name, not an initialism.
            if word.case == "caps_alone":
                return self._caps_name(word) and self._caps_slot(low, word)
            if not self._namelike(word.low):
                return False  # alone, a word must read as a name ("verifier", "biomass" do not)
            verbs_only = True
        else:
            return False
        if (
            word.case != "lower"
            and len(word.low) < 4
            and not self._short_caps_name(low, word, kind)
        ):
            return False  # an acronym
        if word.possessive:
            return True  # "kate's employer"
        if _NUMBER_AFTER.match(low, word.end) is not None:
            return False  # a unit, a currency or a label before a number ("eur 372", "box 10")
        window = max(0, word.start - 24)
        slot_before = before in _SLOT_LAST_WORDS
        if slot_before and _PERSON_VERB_BEFORE.search(low, window, word.start) is not None:
            return True
        if following in _SUBJECT_FIRST_WORDS or following in _MODALS:
            after = _PERSON_SUBJECT.match(low, word.end)
            if after is not None and not (verbs_only and after.group(1) is not None):
                return True
        if (
            word.case == "lower"
            and (before in _MODALS or before == "do")
            and _PERSON_BASE_VERB_AFTER.match(low, word.end) is not None
            and _PERSON_MODAL_BEFORE.search(low, window, word.start) is not None
        ):
            return True  # "does jildau need to file", "can maika earn": lower case only
        return (
            not verbs_only
            and slot_before
            and _PERSON_PREP_BEFORE.search(low, window, word.start) is not None
        )

    def _letters_of_a_name(self, low: str) -> bool:
        """A word no list holds whose letters are a name's: name-like by the trigram model, or
        with at most one trigram no name of the lists has ("tarrant", "newkirk": English-
        looking surnames the model scores as words). Asked only where a person's place agrees."""
        return self._namelike(low) or self._spelled_like_names(low)

    def _compound_surname(self, low: str) -> bool:
        """Two English words of four letters or more written as one that the word list does
        not hold whole ("thornberry", "stockbridge", "kettleworth"): a surname or a place far
        more often than a word. Asked only right after a name word."""
        if len(low) < 8 or low in self._words or low in _NEVER or low in _ROLES:
            return False
        words = self._words
        return any(low[:k] in words and low[k:] in words for k in range(4, len(low) - 3))

    def _word_before_name(self, words: _Words, i: int) -> bool:
        """After a strong cue, an English word that is a content word followed, one space on and
        in the same case, by a name word the lists hold or no list does ("MY NAME IS VERITY
        PALMATEER"; not "my name is missing from the deed")."""
        first = words[i]
        if i + 1 >= len(words) or not self._plain_word(first) or first.low in _MONEY_NOUNS:
            return False
        second = words[i + 1]
        if second.start != first.end + 1 or second.case != first.case or not first.eligible:
            return False
        kind = self._kind(second)
        return kind == "strong" or (kind == "unknown" and self._letters_of_a_name(second.low))

    def _pair_in_slot(self, text: str, low: str, words: _Words, i: int) -> tuple[int, float] | None:
        """Two name words side by side, in lower case or in capitals where capitals are how the
        text is typed, in a person's place (``_pair_slot``): each a name the lists hold that is
        no English word, or a word no list holds whose letters are a name's; at least one of
        them no list holds ("gave barra vanhook the keys", "RAHMATULLAH ARRINGTON OWES ME",
        "mikola newkirk is the director"). Two known names are judged by ``_name_at``."""
        before = words.low_at(i - 1)
        if (
            before not in _SLOT_LAST_WORDS
            and before not in _MODALS
            and before != "do"
            and words.low_at(i + 2) not in _SUBJECT_FIRST_WORDS
        ):
            return None  # no person's place around: the common case, two set look-ups
        first, second = words[i], words[i + 1]
        if not (first.eligible and second.eligible) or first.case != second.case:
            return None
        if second.start != first.end + 1 or first.possessive or first.period:
            return None
        pair = [(w, self._kind(w)) for w in (first, second)]
        if pair[1][1] == "no" and self._compound_surname(second.low):
            pair[1] = (second, "unknown")  # "sold by MATEUSZ THORNBERRY"
        if any(k not in ("strong", "unknown") for _, k in pair):
            return None
        if not any(k == "unknown" for _, k in pair):
            return None
        if not self._pair_slot(low, words, i):
            return None
        for w, k in pair:
            if len(w.low) < 3 or "-" in w.low or w.low in self._acronyms:
                return None
            if k == "unknown" and not (
                (w.case == "lower" or _readable(w.low))
                and self._letters_of_a_name(w.low)
                and not w.low.endswith(_LATIN_ENDINGS)
            ):
                return None
        if _glued(text, first) or _glued(text, second):
            return None
        return i + 2, UNKNOWN_FIRST

    @staticmethod
    def _pair_slot(low: str, words: _Words, i: int) -> bool:
        """A person's place for a pair of words: after a verb that takes a person ("gave",
        "told", "sold by", "work for"), or before a verb people do ("owes", "is my tenant",
        "will pay"), or between a modal and a verb of people's money and papers ("does bronis
        duckworth need"). The word before is looked up first: the patterns before a name are
        searched only when it is the last word of one of them."""
        first, last = words[i], words[i + 1]
        before = words[i - 1].low if i > 0 else ""
        window = max(0, first.start - 24)
        if before in _SLOT_LAST_WORDS and (
            _PERSON_VERB_BEFORE.search(low, window, first.start) is not None
            or _PAIR_BEFORE.search(low, window, first.start) is not None
        ):
            return True
        following = words[i + 2].low if i + 2 < len(words) else ""
        if following in _SUBJECT_FIRST_WORDS:
            after = _PERSON_SUBJECT.match(low, last.end)
            if after is not None and after.group(1) is None:
                return True  # a verb, not a modal: "anonymised datasets should be" is prose
        return (
            (before in _MODALS or before == "do")
            and _PERSON_BASE_VERB_AFTER.match(low, last.end) is not None
            and _PERSON_MODAL_BEFORE.search(low, window, first.start) is not None
        )

    def _namelike_pair(self, first: _Word, following: list[_Word], kinds: list[str]) -> bool:
        """``first`` and the next name word look like names: each a known name that is not a
        word, or a word no list holds whose letters are a name's (:mod:`egress.pii.namelike`),
        with at least one of the two unknown to the lists and name-like."""
        names = [
            (w, k) for w, k in zip(following, kinds, strict=True) if k in ("strong", "unknown")
        ]
        pair = [(first, self._kind(first)), *names[:1]]
        if len(pair) < 2:
            return False
        if any(len(w.low) < 3 for w, _ in pair):
            return False  # "EN ISO"
        if first.case != "lower" and any(
            k == "unknown" and (len(w.low) < 4 or "-" in w.low) for w, k in pair
        ):
            return False  # acronyms side by side in capitals ("SOG-IS MRA")
        if any(k == "unknown" and w.low.endswith(_LATIN_ENDINGS) for w, k in pair):
            return False  # "arteriae coronariae"
        if [self._kind(first), *kinds].count("unknown") > 2:
            return False  # three words no list holds: a phrase of another language
        ok = [k == "strong" or (k == "unknown" and self._namelike(w.low)) for w, k in pair]
        return all(ok) and any(k == "unknown" for _, k in pair)

    def _after_particle(self, text: str, words: _Words, i: int) -> str:
        """The kind of the name word after the particles and initials at ``words[i]``."""
        k = i + 1
        while k < len(words) and k <= i + 2:
            word = words[k]
            if text[words[k - 1].end : word.start] not in (" ", ". "):
                return "no"
            kind = self._kind(word)
            if kind in ("strong", "unknown"):
                return kind
            if kind not in ("particle", "initial"):
                return "no"
            k += 1
        return "no"

    def _to_boundary(
        self, low: str, words: _Words, i: int, j: int, caps: bool, *, strong: bool
    ) -> int:
        """After a cue, the words up to a boundary (punctuation, a line break, the end) are the
        name when they are few and none is a function word: "kind regards earl emery",
        "TAXPAYER NAME ALFONSO SEAMAN;", "im virgil emery, 34". After a strong cue up to four
        words in all, any word that is not a function word; after another cue one more word,
        and only one the name lists hold or no list does."""
        if _BOUNDARY.match(low, words[j - 1].end) is not None:
            return j
        limit = min(len(words), i + 4 if strong else j + 1)
        k = j
        while k < limit:
            prev, word = words[k - 1], words[k]
            same_case = word.case == "lower" if not caps else word.case.startswith("caps")
            gap = low[prev.end : word.start]
            if gap not in (" ", ". " if len(prev.low) == 1 else " ") or not same_case:
                return j
            if prev.possessive:
                return j
            kind = self._kind(word)
            if word.low in SENTENCE_START_WORDS:
                return j  # a verb or a function word is never part of the name
            if kind in ("no", "particle") and not (strong and self._plain_word(word)):
                return j
            if not strong and kind not in ("strong", "unknown", "weak"):
                return j
            if not strong and kind == "weak" and word.low not in self._names:
                return j
            k += 1
            if kind != "initial" and _BOUNDARY.match(low, word.end) is not None:
                return k
        return j

    def _plain_word(self, word: _Word) -> bool:
        """A content word, not a function word or a chat word: may end a signed name."""
        low = word.low
        return (
            len(low) > 2
            and low not in _NEVER
            and low not in _FOREIGN_FUNCTION_WORDS
            and low not in _ROLES
            and low not in SENTENCE_START_WORDS
            and not word.period
        )

    def _extend(self, text: str, words: _Words, j: int, caps: bool, after_first: bool) -> int:
        """The end (exclusive word index) of a name that starts before ``words[j]``."""
        end = j
        limit = min(len(words), j + 3)
        while j < limit:
            prev, word = words[j - 1], words[j]
            if prev.possessive:
                break  # "gary rivera's carer": the name ends at the possessive
            gap = text[prev.end : word.start]
            same_case = word.case == "lower" if not caps else word.case.startswith("caps")
            if gap not in (" ", ". ") or (gap == ". " and len(prev.low) > 1) or not same_case:
                break
            kind = self._kind(word)
            if kind == "weak" and word.low in SENTENCE_START_WORDS:
                break  # "my landlord zoe asano will not ...": a verb ends the name
            if kind == "initial" or kind == "particle":
                j += 1
                continue  # counts only if a name word follows it
            # A surname that is also a word ("white", "power") only after a first name; so is
            # one made of two words that no list holds whole ("thornberry", "kettleworth").
            if (
                kind in ("strong", "unknown")
                or (kind == "weak" and after_first and word.low in self._surnames)
                or (after_first and kind == "no" and self._compound_surname(word.low))
            ):
                j += 1
                end = j
                continue
            break
        return end

    def _propagate(self, words: _Words, found: list[PiiFinding]) -> list[PiiFinding]:
        if not found:
            return []
        spans = sorted((f.start, f.end) for f in found)
        known: set[str] = set()
        k = 0
        inside: list[bool] = []
        for w in (words[k] for k in range(len(words))):
            while k < len(spans) and spans[k][1] <= w.start:
                k += 1
            covered = k < len(spans) and spans[k][0] <= w.start
            inside.append(covered)
            if covered and len(w.low) > 2 and self._kind(w) in ("strong", "unknown"):
                known.add(w.low)
        return [
            PiiFinding(PERSON, w.start, w.end, PROPAGATED)
            for w, covered in zip((words[k] for k in range(len(words))), inside, strict=True)
            if not covered and w.low in known
        ]


# Suffixes that make English words from English words, and what the stem may have lost.
_SUFFIXES = (
    ("ability", ("able",)),
    ("ibility", ("ible",)),
    ("isation", ("ise", "ize", "")),
    ("ization", ("ize", "ise", "")),
    ("ation", ("ate", "e", "")),
    ("ment", ("",)),
    ("ness", ("",)),
    ("able", ("", "e")),
    ("ible", ("", "e")),
    ("ity", ("", "e")),
    ("ary", ("", "e")),
    ("ing", ("", "e")),
    ("er", ("", "e")),
    ("or", ("", "e")),
    ("ed", ("", "e")),
    ("ly", ("",)),
)


def _derived_word(low: str, words: frozenset[str]) -> bool:
    """Whether ``low`` (in no list) is an English word the list lacks: a word with a
    productive suffix ("issu-er", "learn-able", "deposit-ary"), or two words of three letters
    or more written as one ("time-frame", "gate-keeper", "life-cycle"). Names the lists lack
    ("riona", "feidhlim") are neither."""
    for suffix, endings in _SUFFIXES:
        if low.endswith(suffix) and len(low) - len(suffix) >= 3:
            stem = low[: -len(suffix)]
            if any(stem + e in words for e in endings):
                return True
            if len(stem) > 3 and stem[-1] == stem[-2] and stem[:-1] in words:
                return True  # "shipp-er"
    return any(low[:k] in words and low[k:] in words for k in range(4, len(low) - 3))


# Latin inflections that names of the people in a chat do not end in ("arteriae", "aortae",
# "iurium", "legibus"): a phrase of a Latin text, never a name pair.
_LATIN_ENDINGS = ("ae", "orum", "arum", "ibus", "ium", "alis", "ensis", "atis")


def _plural_of_word(low: str, words: frozenset[str]) -> bool:
    """Whether ``low`` (ending in "s", in no list) is the plural of a word the list holds or
    makes: "deliverables", "issuers", "depositaries", "boxes"."""
    if low[:-1] in words or (low.endswith("es") and low[:-2] in words):
        return True
    if low.endswith("ies") and low[:-3] + "y" in words:
        return True
    stem = low[:-3] + "y" if low.endswith("ies") else low[:-1]
    return len(stem) > 5 and _derived_word(stem, words)


def _is_compound_word(low: str, words: frozenset[str]) -> bool:
    parts = re.split(r"[-’']", low)
    return len(parts) > 1 and all(p in words for p in parts if len(p) > 1)


_VOWELS = frozenset("aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýąęėįųūőű")


def _pronounceable(low: str) -> bool:
    """Whether a word reads as a word, not as an initialism spelled letter by letter: a third
    of its letters or more are vowels, and no three consonants open it ("EDPB", "BPFI",
    "NCCA" are not; "NANAHO", "ENISA" are, and their context decides)."""
    vowels = sum(c in _VOWELS for c in low)
    return vowels * 3 >= len(low) and any(c in _VOWELS for c in low[:3])


def _readable(low: str) -> bool:
    """A word in capitals that reads as a word rather than an initialism, a little looser than
    :func:`_pronounceable` for a name beside another ("SHARPTON": a quarter of its letters
    are vowels, one among the first three)."""
    vowels = sum(c in _VOWELS for c in low)
    return vowels * 4 >= len(low) and any(c in _VOWELS for c in low[:3])


def _glued(text: str, word: _Word) -> bool:
    """Whether ``word`` is part of a path, an address, a code or a number ("eli/reg",
    "AVA_VAN.4", "x@ava"), not a word of prose."""
    before = text[word.start - 1] if word.start else " "
    return (
        before in "/.@_\\" or re.match(r"[/@_\\\d]|\.\w", text[word.end : word.end + 2]) is not None
    )


def _lower_same_length(text: str) -> str:
    """``text`` lower-cased character by character, keeping a character whose lower case is
    longer than one character (``İ``) as it is, so positions stay the same."""
    return "".join(c if len(lc := c.lower()) != 1 else lc for c in text)
