"""Contact details written out: e-mail addresses with "at" / "dot", phone numbers in words.

People hide an address from spam robots or dictate a number: ``sean dot power82 at mail dot
com``, ``khayes [at] hse [dot] ie``, ``mairead.kennedy -at- live -dot- ie``, ``oh eight seven,
one two three, four five six seven``, ``0 8 7 1 2 3 4 5 6 7``. Both recognisers read the
canonical text (ADR 0016: NFKC, invisible characters removed, confusables folded), rebuild the
value as it would be typed plainly (``sean.power82@mail.com``, ``0871234567``) and accept it by
the same tests as the plain form: a public suffix for an address (the ``tldextract`` snapshot
bundled in its wheel), a possible Irish or UK number for ``phonenumbers``. The finding is the
written-out span, from its first character to its last, never a word around it.

* **E-mail**: a local part (words joined by ``.``, ``_``, ``-`` or "dot"), an at-marker
  (``@``, "at" as a word, or in brackets, braces, chevrons, dashes or underscores) and a domain
  of two to five labels joined by dot-markers. With a bare " at " (the most ambiguous marker:
  "look it up at revenue dot ie") a one-word local part must not be an English word unless it
  is a first name; other markers are unambiguous.
* **Phone**: a run of digits and digit words ("zero", "oh", "one" ... "nine", "double",
  "treble"/"triple", "plus"), separated by spaces, commas, dots, dashes, slashes or brackets,
  that spells 9 to 13 digits starting with a trunk ``0`` or an international prefix and is a
  possible IE or GB number. A run that is plainly typed digits in the usual groups is left to
  :class:`egress.pii.identifiers.PhoneRecogniser`.

Both search only near their markers (an at-marker; a digit word or a digit) with bounded
repetitions, so the cost stays linear in the length of the text.
"""

from __future__ import annotations

import bisect
import re

import phonenumbers

from egress.pii.findings import EMAIL_ADDRESS, PHONE_NUMBER, PiiFinding
from egress.pii.standard import offline_tld_extractor

__all__ = ["SpelledEmailRecogniser", "SpelledPhoneRecogniser"]

_BR_OPEN, _BR_CLOSE = r"[\[({<]", r"[\])}>]"
# Any wrapper people put around a marker so that robots miss it: brackets, or the same kind of
# symbol on both sides ("*at*", "#at#", "'at'", "-at-", "_at_", "~at~", "|at|").
_OPEN = r"(?:[\[({<]|[*#_'\"~|-])"
_CLOSE = r"(?:[\])}>]|[*#_'\"~|-])"
# The at-sign as people name it: "at", "at sign", and the words of the languages most spoken in
# Ireland after English ("arroba", "arobase", "malpa"/"małpa", "klammeraffe", "chiocciola").
_AT_WORD = r"at[ \t]?sign|at|arroba|arobase|ma[lł]pa|klammeraffe|chiocciola"
_AT = (
    rf"\s{{0,3}}(?:{_OPEN}\s{{0,2}}(?:{_AT_WORD}|@)\s{{0,2}}{_CLOSE}"
    rf"|{_BR_OPEN}\s{{0,2}}a\s{{0,2}}{_BR_CLOSE}|@)\s{{0,3}}"
    rf"|[ \t]{{1,3}}(?:{_AT_WORD})[ \t]{{1,3}}(?:the[ \t]{{1,3}})?"
)
# "dot", "period" and "point" are the words for the dot; "[.]", "(.)" a wrapped one.
# "dot", "period", "point", "full stop", the word spelt out ("d o t") and the words of other
# languages ("punto", "ponto", "punkt", "kropka") are the words for the dot; "[.]", "(.)" a
# wrapped one; "dot" glued to a top-level domain ("gmail dotcom", "gmaildotcom") one too.
_DOT_WORD = r"dot|period|point|full[ \t]stop|d[ \t]o[ \t]t|punto|ponto|punkt|kropka"
_GLUED_TLD = r"com|net|org|ie|eu|uk|pl|lt|lv|ro|me|de|fr|es|pt|br|info|biz"
# A second-level label of a country's public suffix ("co.uk", "ac.uk", "gov.ie").
_GLUED_SLD = r"co|ac|gov|org|net|ltd|plc|me"
_DOT = (
    rf"\s{{0,3}}{_OPEN}\s{{0,2}}(?:{_DOT_WORD}|\.)\s{{0,2}}{_CLOSE}\s{{0,3}}"
    rf"|[ \t]{{1,3}}(?:{_DOT_WORD})[ \t]{{1,3}}|[ \t]{{0,2}}\.[ \t]{{0,2}}"
    rf"|[ \t]{{1,3}}dot(?=(?:{_GLUED_TLD})(?![\w-]))"
    # "dot" glued on both sides before the public suffix ("gmaildotcom", "yahoodotcodotuk"):
    # only there, so a label holding "dot" elsewhere ("dotmailer") stays whole.
    rf"|(?<=[^\W_])dot(?=(?:(?:{_GLUED_SLD})dot)?(?:{_GLUED_TLD})(?![\w-]))"
)
_LOCAL_PART = r"[\w%+]{1,64}"
# Inside a local part the separators may be written out too ("aoife underscore doyle").
_LOCAL_SEP = rf"(?:{_DOT}|[_-]|[ \t]{{1,3}}(?:underscore|dash|hyphen)[ \t]{{1,3}})"
_LABEL = r"[^\W_](?:[\w-]{0,61}[^\W_])?"
_EMAIL = re.compile(
    rf"(?<![\w.%+-])(?P<local>{_LOCAL_PART}(?:{_LOCAL_SEP}{_LOCAL_PART}){{0,4}})"
    rf"(?P<at>{_AT})"
    rf"(?P<domain>{_LABEL}(?:(?:{_DOT}){_LABEL}){{1,4}})(?![\w-])",
    re.IGNORECASE,
)
_DOT_ONLY = re.compile(rf"(?:{_DOT})", re.IGNORECASE)
# The word right before a local part, one space or tab away (a local part typed with spaces).
_WORD_BEFORE = re.compile(r"(?<![\w.@%+-])([^\W\d_]+)[ \t]$")
# Words before an address that are never part of it even when no dictionary holds them.
_NOT_LOCAL = frozenset("email e-mail mail emailed mailto addr cc bcc re fwd fw pls plz".split())
_DOT_MARKER = re.compile(rf"\.|(?i:{_DOT_WORD})")
_BEFORE = 120  # characters searched before an at-marker (a local part and its separators)
_AFTER = 200  # and after it (the domain)
# Where an at-marker may be: searched first, so most text costs one regex pass.
_AT_MARKER = re.compile(
    rf"{_OPEN}\s{{0,2}}(?:{_AT_WORD}|@)\s{{0,2}}{_CLOSE}|{_BR_OPEN}\s{{0,2}}a\s{{0,2}}{_BR_CLOSE}|@"
    rf"|[ \t](?:{_AT_WORD})[ \t]",
    re.IGNORECASE,
)
# Markers in capitals glued to lower-case words ("aoifedoyleATgmailDOTcom"): the change of
# case is the separator.
_GLUED = re.compile(
    r"(?<![\w.%+-])(?P<local>[a-z0-9][a-z0-9._%+-]{0,63})AT"
    r"(?P<domain>[a-z0-9][a-z0-9-]{0,62}(?:DOT[a-z0-9][a-z0-9-]{0,62}){1,4})(?![\w-])"
)

_DIGIT_WORDS = {
    "zero": "0",
    "oh": "0",
    "o": "0",
    "nought": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
}
_WORD = r"zero|oh|o|nought|one|two|three|four|five|six|seven|eight|nine"
# Tens, as a pair of digits is often said ("oh eighty-seven"): a tens word and the unit word
# after it are two digits, a tens word alone ends in 0.
_TENS = {
    "ten": "1",
    "twenty": "2",
    "thirty": "3",
    "forty": "4",
    "fifty": "5",
    "sixty": "6",
    "seventy": "7",
    "eighty": "8",
    "ninety": "9",
}
_TENS_WORD = "|".join(_TENS)
_UNIT = r"one|two|three|four|five|six|seven|eight|nine"
_PIECE = (
    rf"(?:(?:double|treble|triple)[ \t-]{{1,2}}(?:{_WORD}|\d)(?![\w])"
    rf"|(?:{_TENS_WORD})(?:[ \t-](?:{_UNIT}))?(?![\w])"
    rf"|(?:{_WORD})(?![\w])|\d{{1,7}}(?![\w])"
    # A letter o typed for a zero before digits ("o87 123 4567").
    rf"|o\d{{1,4}}(?![\w]))"
)
# A separator between digit groups: a sign, spaces, or the sign said as a word ("oh eight
# seven dash one two three ...").
_GAP = r"(?:[ \t]{0,2}[,./()\-][ \t]{0,2}|[ \t]{1,3}(?:(?:dash|hyphen)[ \t]{1,3})?)"
_PHONE = re.compile(
    rf"(?<![\w+])(?P<plus>(?:\+|plus[ \t]{{1,2}}))?\(?{_PIECE}(?:{_GAP}\(?{_PIECE}\)?){{1,16}}",
    re.IGNORECASE,
)
_SPELLED_TRIGGER = re.compile(
    rf"\b(?:{_WORD}|{_TENS_WORD}|double|treble|triple)\b|\d", re.IGNORECASE
)
# Digits typed in their usual groups ("087 123 4567", "+353 1 234 5678"): the plain phone
# recogniser's job, already validated there.
_PLAIN = re.compile(r"^\+?[\d ()]+$")
_PLAIN_GROUPS = re.compile(r"\d{2,5}")
_DATE = re.compile(r"\d{1,4}[-./]\d{1,2}[-./]\d{1,4}")


class SpelledEmailRecogniser:
    """E-mail addresses with written-out or bracketed at- and dot-markers (module docstring).

    ``words`` are English words and ``first_names`` known first names (lower case): a bare
    " at " after a one-word local part that is a word and not a first name is prose.
    """

    def __init__(
        self, words: frozenset[str] = frozenset(), first_names: frozenset[str] = frozenset()
    ) -> None:
        self._extract = offline_tld_extractor()
        self._words = words
        self._first = first_names

    def find(self, text: str) -> list[PiiFinding]:
        # Windows around the at-markers that have a dot-marker after them, merged, so each
        # character is searched once however dense the markers ("a at b dot a at b ...").
        dots = [m.start() for m in _DOT_MARKER.finditer(text)]
        windows: list[list[int]] = []
        for marker in _AT_MARKER.finditer(text):
            k = bisect.bisect_left(dots, marker.end())
            if k == len(dots) or dots[k] > marker.end() + _AFTER:
                continue
            start = max(0, marker.start() - _BEFORE)
            end = min(len(text), marker.end() + _AFTER)
            if windows and start <= windows[-1][1]:
                windows[-1][1] = end
            else:
                windows.append([start, end])
        out: list[PiiFinding] = []
        if "AT" in text:
            for glued in _GLUED.finditer(text):
                if self._extract("x@" + glued["domain"].replace("DOT", ".")).suffix:
                    out.append(PiiFinding(EMAIL_ADDRESS, glued.start(), glued.end(), 0.9))
        for start, end in windows:
            while start > 0 and not text[start - 1].isspace():
                start -= 1  # never cut a local part in two
            # Not ``finditer``: a candidate that fails (prose before the address, "contact me
            # at jane.doe at mail.ie": local "me", domain "jane.doe") must not consume the
            # address after it, so the search resumes at the next character, not its end.
            pos = start
            while (match := _EMAIL.search(text, pos, end)) is not None:
                finding = self._accept(match)
                if finding is not None:
                    out.append(finding)
                    pos = match.end()
                else:
                    pos = match.start() + 1
        return out

    def _spaced_local_start(self, text: str, match: re.Match[str]) -> int:
        """Where a local part typed with spaces for its separators starts ("ilka zust at
        libero dot it", "lauinger l at gmail dot com"): up to two words before a one-word local
        part, each neither an English word nor a function word, so the span keeps the whole
        name; ``match.start()`` when there are none ("email zust at ...")."""
        start = match.start()
        if not re.fullmatch(r"[^\W\d_]+\d*", match["local"]):
            return start
        for _ in range(2):
            before = _WORD_BEFORE.search(text, max(0, start - 40), start)
            if before is None:
                break
            low = before.group(1).lower()
            if len(low) < 2 or low in self._words or low in _NOT_LOCAL:
                break
            start = before.start(1)
        return start

    def _accept(self, match: re.Match[str]) -> PiiFinding | None:
        local_plain = _DOT_ONLY.sub(".", match["local"])
        at = " ".join(match["at"].split()).lower()
        if at.endswith(" the"):
            # "jdoe at the mail dot ie address": "at the" is prose far more often than "at",
            # so the local part must hold a separator or a digit, or be no English word.
            if re.fullmatch(r"[^\W\d_]+", local_plain) and local_plain.lower() in self._words:
                return None
            at = at[: -len(" the")]
        spaced = self._spaced_local_start(match.string, match)
        if at == "at" and re.fullmatch(r"[^\W_]+", local_plain) and spaced == match.start():
            low = local_plain.lower()
            if low in self._words and low not in self._first:
                return None  # "look it up at revenue dot ie"
        # A full stop is written after a word and before a space; a dot with a space on both
        # sides ("gmail . com") is a spelled-out dot, never the end of a sentence.
        if re.search(r"\S\.\s|\s\.\S", match["domain"]) and (
            at == "at" or re.search(r"\.\s+[A-Z]", match["domain"])
        ):
            return None  # "made at meetings. In the ...": a full stop, not a spaced dot
        domain = _DOT_ONLY.sub(".", match["domain"])
        if not self._extract("x@" + domain).suffix:
            return None
        return PiiFinding(EMAIL_ADDRESS, spaced, match.end(), 0.9)


def _digits_of(value: str) -> str:
    """The digits a written-out number spells ("double four" -> "44", "plus" -> "+")."""
    out: list[str] = []
    tokens = re.findall(r"\+|[^\W\d_]+|\d+", value)
    repeat = 1
    for n, token in enumerate(tokens):
        low = token.lower()
        if token == "+" or low == "plus":
            out.append("+")
        elif low in _TENS:
            following = tokens[n + 1].lower() if n + 1 < len(tokens) else ""
            unit = following in _DIGIT_WORDS and following not in ("zero", "oh", "o", "nought")
            out.append(_TENS[low] + ("" if unit else "0"))  # the unit word adds its digit
            repeat = 1
        elif low == "double":
            repeat = 2
        elif low in ("treble", "triple"):
            repeat = 3
        elif low in _DIGIT_WORDS:
            out.append(_DIGIT_WORDS[low] * repeat)
            repeat = 1
        elif token.isdigit():
            out.append(token[0] * repeat + token[1:])
            repeat = 1
    return "".join(out)


class SpelledPhoneRecogniser:
    """Irish and UK phone numbers written with digit words or odd separators."""

    def find(self, text: str) -> list[PiiFinding]:
        if _SPELLED_TRIGGER.search(text) is None:
            return []
        out: list[PiiFinding] = []
        for match in _PHONE.finditer(text):
            value = match.group().rstrip(" \t,.-/(")
            if _PLAIN.match(value) and len(_PLAIN_GROUPS.findall(value)) <= 4 and " " in value:
                if not re.search(r"(?:^|\s)\d(?:\s\d){4,}", value):
                    continue  # typed in the usual groups: PhoneRecogniser's
            if _DATE.fullmatch(value):
                continue  # "05/06/2023" is a day, whatever it dials
            digits = _digits_of(value)
            if _valid_phone(digits):
                start = match.start()
                out.append(PiiFinding(PHONE_NUMBER, start, start + len(value), 0.85))
        return out


def _valid_phone(digits: str) -> bool:
    """A number someone could dial: an IE or GB number from its trunk ``0`` (possible from
    nine digits on; valid for the eight-digit ones, "022 95080"), or one in international form
    that is possible in Ireland or the UK or valid in its own country's numbering plan."""
    plain = digits.replace("+", "")
    if not 8 <= len(plain) <= 15 or digits.count("+") > 1 or "+" in digits[1:]:
        return False
    if digits.startswith("+") or plain.startswith("00"):
        number = "+" + plain[2:] if plain.startswith("00") else digits
        regions: tuple[str | None, ...] = (None,)
    elif plain.startswith("0"):
        number, regions = plain, ("IE", "GB")
    else:
        return False
    for region in regions:
        try:
            parsed = phonenumbers.parse(number, region)
        except phonenumbers.NumberParseException:
            continue
        # Possible, not valid: a number read out digit by digit is a number whatever its range
        # (the plain recogniser also accepts a possible number in international form).
        if parsed.country_code in (353, 44) and len(plain) >= 9:
            if phonenumbers.is_possible_number(parsed):
                return True
        elif phonenumbers.is_valid_number(parsed):
            return True
    return False
