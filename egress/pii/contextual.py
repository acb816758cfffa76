"""Identifiers that need their context, and obfuscated e-mail addresses.

A bare nine-digit number is a reference, an amount or a phone number; after "passport" it is a
passport number. Each recogniser here matches a shape and accepts it when a context phrase
stands within a few words before (or just after) it, or when the value carries its own proof (a
``GB``/``IE`` VAT prefix with a valid check digit). With context the checksum no longer decides:
a PPSN-shaped value the user calls a PPSN is one, even if its check letter is wrong.

* ``PPSN``: seven digits and one or two letters in PPSN context;
* ``PASSPORT``: Irish and UK passport numbers (two letters and seven digits, or nine digits);
* ``UK_UTR``: ten digits (optionally ``K``) after "UTR" / "unique taxpayer reference";
* ``VAT_NUMBER``: IE and GB VAT numbers, validated by ``stdnum`` when prefixed, by context
  otherwise (a sole trader's VAT number is their PPSN with an ``IE`` in front);
* ``UK_BANK_ACCOUNT``: a sort code and an eight-digit account number, in context;
* ``EMAIL_ADDRESS``: ``name (at) example (dot) ie``, ``name [at] example [dot] ie``,
  ``name @ example.ie``: the domain must end in a public suffix.

Every pattern has bounded repetitions and the context is searched in a bounded window around
each candidate, so the cost stays linear in the length of the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from stdnum.gb import vat as gb_vat
from stdnum.ie import vat as ie_vat

from egress.pii.findings import (
    EMAIL_ADDRESS,
    PASSPORT,
    PPSN,
    UK_BANK_ACCOUNT,
    UK_NINO,
    UK_UTR,
    VAT_NUMBER,
    PiiFinding,
    Recogniser,
)
from egress.pii.identifiers import (
    NINO_PATTERN,
    PPSN_PATTERN,
    IbanRecogniser,
    RegexRecogniser,
    valid_nino,
    valid_ppsn,
)
from egress.pii.spelled import SpelledEmailRecogniser, SpelledPhoneRecogniser
from egress.pii.standard import offline_tld_extractor

__all__ = [
    "ContextRecogniser",
    "ObfuscatedEmailRecogniser",
    "compact_recognisers",
    "contextual_recognisers",
]

_BEFORE = 48  # characters before a candidate searched for its context
_AFTER = 24  # and after it ("5260181E is my PPSN")


class ContextRecogniser:
    """``pattern`` matches accepted when ``context`` occurs near them (or ``proof`` holds).

    ``keywords`` (lower case) must include a substring of every ``context`` match;
    ``proof_trigger`` finds what ``proof`` could accept without context.
    """

    def __init__(
        self,
        entity_type: str,
        pattern: str,
        context: str,
        score: float,
        *,
        proof: Callable[[str], bool] | None = None,
        keywords: tuple[str, ...] = (),
        proof_trigger: str | None = None,
    ) -> None:
        self._keywords = keywords
        self._proof_trigger = re.compile(proof_trigger) if proof_trigger else None
        self._entity_type = entity_type
        self._pattern = re.compile(pattern)
        self._context = re.compile(context, re.IGNORECASE)
        self._score = score
        self._proof = proof

    def find(self, text: str) -> list[PiiFinding]:
        # The common case: no context word anywhere (a substring test on the lower-cased
        # text is ~10x cheaper than the context pattern) and nothing that could prove itself.
        lowered = text.lower()
        if not any(k in lowered for k in self._keywords) and (
            self._proof_trigger is None or self._proof_trigger.search(text) is None
        ):
            return []
        out: list[PiiFinding] = []
        for match in self._pattern.finditer(text):
            start, end = match.span()
            if (
                (self._proof is not None and self._proof(match.group()))
                or self._context.search(text, max(0, start - _BEFORE), start) is not None
                or self._context.search(text[end : end + _AFTER]) is not None
            ):
                out.append(PiiFinding(self._entity_type, start, end, self._score))
        return out


def _valid_vat(value: str) -> bool:
    compact = re.sub(r"[\s.\-]", "", value).upper()
    if compact.startswith("GB"):
        return bool(gb_vat.is_valid(compact))
    return compact.startswith("IE") and bool(ie_vat.is_valid(compact))


_PPSN_CONTEXT = r"\bpps\s*n\b|\bpps\b|\bppsn?\s*(?:no|number)|personal\s+public\s+service"
_PPSN_SHAPE = r"(?<![\w.-])\d{7}[ .\-]?[A-Wa-w](?:[ .\-]?[A-IWa-iw])?(?![\w-])"
_PASSPORT_CONTEXT = r"passport"
_PASSPORT_SHAPE = r"(?<![\w-])(?:[A-Za-z]{2}[ ]?\d{7}|\d{9})(?![\w-])"
_UTR_CONTEXT = (
    r"\butr\b|unique\s+tax(?:payer)?(?:'?s)?\s+ref|self[\s-]?assessment\s+(?:ref|no|number)"
)
_UTR_SHAPE = r"(?<![\w-])\d{5}[ ]?\d{5}[Kk]?(?![\w-])"
_VAT_CONTEXT = r"\bvat\b|value[\s-]added\s+tax\s+(?:no|number|reg)"
_VAT_SHAPE = (
    r"(?<![\w-])(?:(?:IE|GB|ie|gb)[ ]?)?"
    r"(?:\d{7}[A-Wa-w][A-IWa-iw]?|\d[A-Za-z+*]\d{5}[A-Wa-w]"
    r"|\d{3}[ ]?\d{4}[ ]?\d{2}(?:[ ]?\d{3})?|(?:GD|HA|gd|ha)\d{3})(?![\w-])"
)
_VAT_PREFIX = r"(?:IE|GB|ie|gb) ?\d"
_SORT_CODE_CONTEXT = r"sort[\s-]*code|\bs/c\b"
_SORT_CODE_SHAPE = r"(?<![\w-])\d{2}[-\s]\d{2}[-\s]\d{2}(?![\w-])|(?<![\w-])\d{6}(?![\w-])"
_ACCOUNT_CONTEXT = r"\baccount\b|\bacc(?:t|ount)?\.?\s*(?:no|number|#)|\ba/c\b|sort[\s-]*code"
_ACCOUNT_SHAPE = r"(?<![\w-])\d{8}(?![\w-])"


class ObfuscatedEmailRecogniser:
    """E-mail addresses with the ``@`` and dots written out or spaced (see the module
    docstring). Searched only around an "at" marker, like Presidio's e-mail pattern."""

    _AT = re.compile(r"[\[({<]\s{0,3}(?i:at)\s{0,3}[\])}>]|\s@|@\s")
    _EMAIL = re.compile(
        r"(?<![\w.+-])(?P<local>[\w.+-]{1,64})"
        r"\s{0,3}(?:[\[({<]\s{0,3}(?i:at)\s{0,3}[\])}>]|@)\s{0,3}"
        r"(?P<domain>[\w-]{1,63}(?:\s{0,3}(?:[\[({<]\s{0,3}(?i:dot)\s{0,3}[\])}>]|\.)"
        r"\s{0,3}[\w-]{1,63}){1,4})"
    )
    _DOT = re.compile(r"\s*(?:[\[({<]\s*(?i:dot)\s*[\])}>]|\.)\s*")

    def __init__(self) -> None:
        self._extract = offline_tld_extractor()

    def find(self, text: str) -> list[PiiFinding]:
        windows: list[list[int]] = []
        for marker in self._AT.finditer(text):
            start, end = max(0, marker.start() - 80), min(len(text), marker.end() + 300)
            if windows and start <= windows[-1][1]:
                windows[-1][1] = end
            else:
                windows.append([start, end])
        out: list[PiiFinding] = []
        for start, end in windows:
            for match in self._EMAIL.finditer(text, start, end):
                if not self._AT.search(match.group()):
                    continue  # a plain address: Presidio's pattern finds it
                domain = self._DOT.sub(".", match["domain"])
                if self._extract("x@" + domain).suffix:
                    out.append(PiiFinding(EMAIL_ADDRESS, match.start(), match.end(), 0.9))
        return out


def contextual_recognisers(
    words: frozenset[str] = frozenset(), first_names: frozenset[str] = frozenset()
) -> list[Recogniser]:
    """What searches the canonical text: e-mail addresses and phone numbers written out
    (:mod:`egress.pii.spelled`; ``words`` and ``first_names`` from the name lexicon)."""
    return [
        ObfuscatedEmailRecogniser(),
        SpelledEmailRecogniser(words, first_names),
        SpelledPhoneRecogniser(),
    ]


def compact_recognisers() -> list[Recogniser]:
    """What searches the compact identifier view (the canonical text with separators inside
    digit runs removed): identifiers with a checksum or a context — PPSN, IBAN and the context
    recognisers of this module — never phone numbers or amounts."""
    return [
        RegexRecogniser(PPSN, PPSN_PATTERN, 0.95, validate=valid_ppsn),
        RegexRecogniser(UK_NINO, NINO_PATTERN, 0.85, validate=valid_nino),
        IbanRecogniser(),
        ContextRecogniser(
            PPSN, _PPSN_SHAPE, _PPSN_CONTEXT, 0.9, keywords=("pps", "personal public")
        ),
        ContextRecogniser(
            PASSPORT, _PASSPORT_SHAPE, _PASSPORT_CONTEXT, 0.9, keywords=("passport",)
        ),
        ContextRecogniser(
            UK_UTR, _UTR_SHAPE, _UTR_CONTEXT, 0.9, keywords=("utr", "unique tax", "assessment")
        ),
        ContextRecogniser(
            VAT_NUMBER,
            _VAT_SHAPE,
            _VAT_CONTEXT,
            0.9,
            proof=_valid_vat,
            keywords=("vat", "value added", "value-added"),
            proof_trigger=_VAT_PREFIX,
        ),
        ContextRecogniser(
            UK_BANK_ACCOUNT,
            _SORT_CODE_SHAPE,
            _SORT_CODE_CONTEXT,
            0.9,
            keywords=("sort", "s/c"),
        ),
        ContextRecogniser(
            UK_BANK_ACCOUNT,
            _ACCOUNT_SHAPE,
            _ACCOUNT_CONTEXT,
            0.85,
            keywords=("acc", "a/c", "sort"),
        ),
    ]
