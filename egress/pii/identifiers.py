"""Irish and UK identifiers, IBANs, phone numbers, secrets and dates of birth.

Checksums decide where one exists: a PPSN must carry its check character
(``stdnum.ie.pps``) and an IBAN must pass mod-97 and its country's format (``stdnum.iban``), so a
checksum-invalid number is never flagged. Phone numbers are found by ``phonenumbers``'
``PhoneNumberMatcher`` for the IE and GB numbering plans (every written form it accepts), plus a
cheaper shape regex for numbers written in other countries' styles, which must parse as a
possible number for one of a few regions or in international form. Digits that run on into a
percentage, or that are an amount ("EUR 35 000 000", "10 000 000 EUR", "1 500 000 euros") and
carry no trunk or international prefix, are a quantity, not a phone number.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import phonenumbers
from stdnum import iban as stdnum_iban
from stdnum.ie import pps as stdnum_pps

from egress.pii.findings import (
    DATE_OF_BIRTH,
    IBAN_CODE,
    PHONE_NUMBER,
    SECRET,
    PiiFinding,
    Recogniser,
)
from egress.pii.postcodes import PostcodeRecogniser

__all__ = [
    "ID_SEP",
    "NINO_PATTERN",
    "PPSN_PATTERN",
    "SECRET_PATTERNS",
    "IbanRecogniser",
    "PhoneRecogniser",
    "RegexRecogniser",
    "identifier_recognisers",
    "valid_nino",
    "valid_ppsn",
]


class RegexRecogniser:
    """Matches ``pattern``; the finding is ``group`` of the match if ``validate`` accepts it."""

    def __init__(
        self,
        entity_type: str,
        pattern: str,
        score: float,
        *,
        flags: int = 0,
        group: int | str = 0,
        validate: Callable[[str], bool] | None = None,
    ) -> None:
        self._entity_type = entity_type
        self._pattern = re.compile(pattern, flags)
        self._score = score
        self._group = group
        self._validate = validate

    def find(self, text: str) -> list[PiiFinding]:
        out: list[PiiFinding] = []
        for match in self._pattern.finditer(text):
            value = match.group(self._group)
            if not value or (self._validate is not None and not self._validate(value)):
                continue
            start, end = match.span(self._group)
            out.append(PiiFinding(self._entity_type, start, end, self._score))
        return out


#: Seven digits and a check letter (and an optional second letter), a separator allowed before
#: each letter ("1234567-T", "1234567.TA", "1234567 t a"); the checksum decides.
PPSN_PATTERN = r"(?<![\w.\-])\d{7}[ .\-]?[A-Wa-w](?:[ .\-]?[A-IWa-iw])?(?![\w\-])"


def valid_ppsn(value: str) -> bool:
    """``value`` carries a valid PPSN check character (separators ignored, any case)."""
    return bool(stdnum_pps.is_valid(re.sub(r"[ .\-]", "", value).upper()))


#: What people put between the characters of an identifier: a space (or two), a dot or a
#: hyphen, or nothing ("AB 12 34 56 C", "ab.12.34.56.c", "a b 1 2 3 4 5 6 c").
ID_SEP = r"[ .\-]{0,2}"
_NINO_BAD_PREFIXES = frozenset({"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"})
#: HMRC's National Insurance number: two prefix letters (the first never D F I Q U V, the
#: second never D F I O Q U V), six digits, a suffix A-D; in any case, with any separators.
NINO_PATTERN = (
    rf"(?i)(?<![\w.\-])[A-CEGHJ-PR-TW-Z]{ID_SEP}[A-CEGHJ-NPR-TW-Z]{ID_SEP}\d(?:{ID_SEP}\d){{5}}"
    rf"{ID_SEP}[A-D](?![\w\-])"
)


def valid_nino(value: str) -> bool:
    """Not one of the prefixes HMRC never issues."""
    return re.sub(r"[ .\-]", "", value)[:2].upper() not in _NINO_BAD_PREFIXES


class IbanRecogniser:
    """IBANs of every country, compact or in groups of four; mod-97 and country format checked.

    A grouped IBAN may be followed by more alphanumeric words, so a candidate is shortened a
    group at a time until it validates.
    """

    _CANDIDATE = re.compile(
        r"\b[A-Za-z]{2}\d{2}(?:[ .\-]?[A-Za-z0-9]{4}){2,7}(?:[ .\-]?[A-Za-z0-9]{1,3})?\b"
    )
    _LAST_SEP = re.compile(r"[ .\-][^ .\-]*$")

    def find(self, text: str) -> list[PiiFinding]:
        out: list[PiiFinding] = []
        for match in self._CANDIDATE.finditer(text):
            candidate = match.group()
            while len(compact := re.sub(r"[ .\-]", "", candidate)) >= 15:
                if stdnum_iban.is_valid(compact):
                    start = match.start()
                    out.append(PiiFinding(IBAN_CODE, start, start + len(candidate), 1.0))
                    break
                last = self._LAST_SEP.search(candidate)
                candidate = candidate[: last.start()] if last else ""
        return out


# Currency symbols and ISO 4217 codes of the currencies Regintel's users and legal texts write
# amounts in (EU and EEA members, the UK, Switzerland, the US and a few other major ones).
_CURRENCY = (
    r"[€£$¥]|EUR|GBP|USD|CHF|JPY|CNY|CAD|AUD|SEK|DKK|NOK|ISK|PLN|CZK|HUF|RON|BGN|HRK"
    r"|Euro|euro|EURO|Stg|IR£|US\$|C\$|A\$"
)


_VALIDATION_BUDGET = 8
_VALIDATION_PER_CHARS = 500


class PhoneRecogniser:
    """Phone numbers: IE and GB numbering plans via ``PhoneNumberMatcher``, others by shape."""

    # Seven to fifteen digits with the separators people write; optional extension.
    _SHAPE = re.compile(
        r"(?<![\w+.-])(?:\+|00)?\(?\d[\d().\- ]{5,18}\d(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w:-])"
    )
    _DATE_LIKE = re.compile(r"^(?:\d{4}-\d{2}-\d{2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})(?:\s|$)")
    _IBAN_GROUP_BEFORE = re.compile(r"(?:[A-Z]{4}|[A-Z]{2}\d{2}|[A-Z0-9]{4}) $")
    # A rate, not a number to dial: "11.05%", "13.8 per cent", "2024 (11.05% before)".
    _PERCENT_AFTER = re.compile(r"\d*(?:[.,]\d+)?\s?(?:%|per\s?cent\b|percent\b)", re.IGNORECASE)
    # An amount: a currency right before the digits ("EUR 35 000 000", "€15 000 000") or a
    # currency or magnitude right after them ("10 000 000 EUR", "1 500 000 euros").
    _CURRENCY_BEFORE = re.compile(rf"(?<![A-Za-z])(?:{_CURRENCY}) ?$")
    _CURRENCY_AFTER = re.compile(
        rf"\s?(?:(?:{_CURRENCY})(?![A-Za-z])"
        r"|(?i:euros?|pounds?|dollars?|francs?|million|billion|thousand)\b)"
    )
    # A decimal amount: one point and one or two digits after it ("11200.00", "60000.5"); no
    # one writes a phone number so (its digits are grouped by spaces, hyphens or several dots).
    _DECIMAL = re.compile(r"\d+\.\d{1,2}")
    # An amount written the continental way: thousands grouped by dots, a decimal comma after
    # ("1.234.567,89 €"); a phone number's dots never end in a comma and one or two digits.
    _THOUSANDS_DOTS = re.compile(r"\d{1,3}(?:\.\d{3})+")
    _DECIMAL_COMMA_AFTER = re.compile(r",\d{1,2}(?!\d)")
    _OTHER_REGIONS = ("US", "DE", "FR", "CH", "DK", "NO", "IS", "ES", "IT", "NL", "PL")

    def __init__(self, regions: Sequence[str] = ("IE", "GB")) -> None:
        self._regions = tuple(regions)

    def find(self, text: str) -> list[PiiFinding]:
        out: list[PiiFinding] = []
        shapes = [m for m in self._SHAPE.finditer(text) if self._plausible(m.group())]
        # Validation (PhoneNumberMatcher, parsing for other regions) costs ~0.5 ms a candidate:
        # only the first `budget` candidates get it, which is more than any ordinary message
        # has. Past it (a message made of digit groups) a candidate that passes the cheap
        # checks is redacted unvalidated: under attack, redact rather than spend.
        budget = _VALIDATION_BUDGET + len(text) // _VALIDATION_PER_CHARS
        validated = shapes[:budget]
        # PhoneNumberMatcher is authoritative for IE/GB but scans slowly; run it only on
        # windows around phone-shaped text.
        windows: list[list[int]] = []
        for match in validated:
            start, end = max(0, match.start() - 8), min(len(text), match.end() + 8)
            if windows and start <= windows[-1][1]:
                windows[-1][1] = end
            else:
                windows.append([start, end])
        for start, end in windows:
            for region in self._regions:
                for number in phonenumbers.PhoneNumberMatcher(
                    text[start:end], region, leniency=phonenumbers.Leniency.VALID
                ):
                    if self._amount(text, start + number.start, start + number.end):
                        continue
                    out.append(
                        PiiFinding(PHONE_NUMBER, start + number.start, start + number.end, 0.9)
                    )
        for n, match in enumerate(shapes):
            value = match.group().strip()
            if not self._balanced(value) or self._amount(text, match.start(), match.end()):
                continue  # "from 1 October 2024 (11.05% before)": a year, then a rate
            digits = re.sub(r"\D", "", value.split("x")[0].split("ext")[0])
            if not 7 <= len(digits) <= 15 or self._DATE_LIKE.match(value):
                continue
            if self._DECIMAL.fullmatch(value):
                continue  # "Income tax: 11200.00": an amount, not a number to dial
            if " " not in value and "-" not in value and "." not in value and "(" not in value:
                if not value.startswith("+"):
                    continue  # a bare digit run is more often an amount or a reference
            if self._IBAN_GROUP_BEFORE.search(text, max(0, match.start() - 6), match.start()):
                continue  # digit groups of an IBAN or account number, not a phone
            if n >= len(validated) or self._possible(value):
                out.append(PiiFinding(PHONE_NUMBER, match.start(), match.end(), 0.6))
        return out

    @staticmethod
    def _plausible(value: str) -> bool:
        """People group a phone number's digits in twos to fours (a country or area code may
        stand alone): "1 2 3 4 5 6 7" is not a number anyone dials."""
        groups = re.findall(r"\d+", value)
        return sum(len(g) == 1 for g in groups) <= 2

    def _amount(self, text: str, start: int, end: int) -> bool:
        """``text[start:end]`` is a quantity, not a phone number: the digits run on into a
        percentage, or they are an amount (a currency before or after them, or "million")."""
        if self._PERCENT_AFTER.match(text, end) is not None:
            return True
        if (
            self._DECIMAL_COMMA_AFTER.match(text, end) is not None
            and self._THOUSANDS_DOTS.fullmatch(text, start, end) is not None
        ):
            return True
        if text[start] in "0+(":
            return False  # a trunk or international prefix: dialled, never an amount
        return (
            self._CURRENCY_AFTER.match(text, end) is not None
            or self._CURRENCY_BEFORE.search(text, max(0, start - 6), start) is not None
        )

    @staticmethod
    def _balanced(value: str) -> bool:
        """Parentheses in a phone number close around an area code or trunk prefix."""
        depth = 0
        for char in value:
            depth += (char == "(") - (char == ")")
            if depth < 0 or depth > 1:
                return False
        return depth == 0

    def _possible(self, value: str) -> bool:
        number = re.split(r"\s?(?:x|ext\.?)\s?\d", value)[0]
        regions: tuple[str | None, ...] = (None,) if number.startswith("+") else self._OTHER_REGIONS
        for region in regions:
            try:
                parsed = phonenumbers.parse(number, region)
            except phonenumbers.NumberParseException:
                continue
            if phonenumbers.is_possible_number(parsed):
                return True
        return False


_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_DATE = (
    r"(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}-\d{2}-\d{2}"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}"
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}})"
)

SECRET_PATTERNS: tuple[str, ...] = (
    r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bgh[pousr]_[A-Za-z0-9]{30,}\b",
    r"\bgithub_pat_[A-Za-z0-9_]{30,}",
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}",
    r"\bAIza[0-9A-Za-z_-]{35}",
    r"\b(?:sk|pk|rk)_(?:live|test)_[0-9A-Za-z]{16,}",
    r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
)


def identifier_recognisers(words: frozenset[str] = frozenset()) -> list[Recogniser]:
    """Eircodes and UK postcodes, phone numbers, secrets and dates of birth in context
    (``words``: the English words an Eircode typed in lower case must not end with).

    PPSNs, UK NINOs and IBANs are searched in the compact identifier views instead
    (:func:`egress.pii.contextual.compact_recognisers`).
    """
    recognisers: list[Recogniser] = [
        PostcodeRecogniser(words),
        PhoneRecogniser(),
        RegexRecogniser(
            SECRET,
            r"(?i)\b(?:password|passwd|pwd|passphrase|secret|api[_-]?key|access[_-]?key"
            r"|auth[_-]?token|token|client[_-]?secret)\s*[:=]\s*[\"']?(?P<value>[^\s\"',;]{4,})",
            0.9,
            group="value",
        ),
        RegexRecogniser(
            SECRET, r"\bBearer\s+(?P<value>[A-Za-z0-9._~+/=-]{20,})", 0.9, group="value"
        ),
        RegexRecogniser(
            DATE_OF_BIRTH,
            r"(?i:\b(?:born(?:\s+on)?|date\s+of\s+birth|d\.?o\.?b\.?|birthday)\b)"
            rf"[:\s]*(?:(?i:is|was|on)\s+)?(?P<value>{_DATE})",
            0.9,
            group="value",
        ),
    ]
    recognisers.append(RegexRecogniser(SECRET, "|".join(SECRET_PATTERNS), 0.95))
    return recognisers
