"""A signature: the words a message ends with after a sign-off (issue 25, session 9).

"Thanks,\\nBasia", "Kind regards\\nSindulfo Azzolino", "THANK YOU ALVRUN", "thx, eskame
beggerow": the last line (or the rest of the sign-off's line) names the writer, in any case, and
the name recognisers missed it when the name was in no list and had no other cue. One to three
words, the text ending there (a full stop or "!" may follow); each word a known name, or a word
no English list holds, and never a law acronym, a place or one of the lexicon's non-names
("Thanks,\\nRevenue", "thank you so much", "THANK YOU ESMA" stay text); a name that is also an
English word counts only in title case or capitals ("Thanks,\\nMark", not "cheers mate"), and a
lone word in no list only when it reads like a name (the trigram test of
``egress.pii.namelike``). On
the sign-off's own line only the sign-offs a name follows in chat count ("thanks", "thank you",
"cheers", "regards", ...), not "best" or "yours".
"""

from __future__ import annotations

import re

from egress.pii.anycase import NEVER_NAMES
from egress.pii.findings import PERSON, PiiFinding
from egress.pii.lexicon import Lexicon
from egress.pii.namelike import name_likeness
from egress.pii.names import SENTENCE_START_WORDS

__all__ = ["SIGNATURE", "SignatureRecogniser"]

SIGNATURE = 0.85

_WORD = r"[^\W\d_]+(?:['’-][^\W\d_]+)*"
_NAME_LINE = rf"(?P<name>{_WORD}(?: {_WORD}){{0,2}})[ \t]*[.!]?\s*$"
_INLINE_SIGN_OFF = (
    r"thanks(?:\s+a\s+million|\s+again)?|thank\s+you|many\s+thanks|cheers|thx|regards"
    r"|kind\s+regards|best\s+regards|warm\s+regards|rgds"
)
_LINE_SIGN_OFF = (
    _INLINE_SIGN_OFF + r"|ta|best|best\s+wishes|all\s+the\s+best|sincerely|yours|yours\s+sincerely"
    r"|yours\s+faithfully|yours\s+truly|regs|talk\s+soon"
)
_SIGNED = re.compile(
    r"(?i)(?<![\w'’-])"
    rf"(?:(?:{_LINE_SIGN_OFF})[ \t]*[,.!]?[ \t]*\n[ \t]*|(?:{_INLINE_SIGN_OFF})[ \t]*,?[ \t]+)"
    + _NAME_LINE
)


class SignatureRecogniser:
    """The name after a sign-off at the end of a message; see the module docstring."""

    def __init__(self, lexicon: Lexicon) -> None:
        self._names = lexicon.first_names | lexicon.surnames
        self._words = lexicon.english_words
        self._never = lexicon.non_names | lexicon.acronyms | lexicon.places | NEVER_NAMES
        self._namelike = name_likeness(lexicon).is_namelike

    def find(self, text: str) -> list[PiiFinding]:
        m = _SIGNED.search(text)
        if m is None:
            return []
        words = m.group("name").split(" ")
        if not all(self._name_word(w, alone=len(words) == 1) for w in words):
            return []
        return [PiiFinding(PERSON, m.start("name"), m.end("name"), SIGNATURE)]

    def _name_word(self, word: str, *, alone: bool) -> bool:
        low = word.lower()
        if len(low) < 2 or low in self._never or low in SENTENCE_START_WORDS:
            return False
        if low in self._words:  # a word that is also a name: only as a name is typed
            return low in self._names and not word.islower()
        # A lone word in no list must read like a name ("THANK YOU PAYE"); two are a name.
        return low in self._names or not alone or self._namelike(low)
