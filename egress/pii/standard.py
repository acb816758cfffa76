"""Presidio's own pattern recognisers (email, payment card, IP, US SSN), run without an NLP engine.

Presidio's ``AnalyzerEngine`` with every predefined recogniser costs ~19 ms per 2,000 characters
and brings recognisers that misfire on legal text (``US_DRIVER_LICENSE`` on "D02"). We call the
few recognisers we want directly (``PatternRecognizer.analyze`` applies their checksum
validation, e.g. Luhn for cards) and add a small context boost of our own instead of Presidio's
lemma-based enhancer, which needs NLP artefacts we do not compute.

``tldextract`` is built with no suffix-list URLs and no cache, so the email validator reads the
snapshot bundled in the wheel and never attempts a network request.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import tldextract
from presidio_analyzer import Pattern, PatternRecognizer
from presidio_analyzer.predefined_recognizers import (
    CreditCardRecognizer,
    EmailRecognizer,
    IpRecognizer,
    UsSsnRecognizer,
)

from egress.pii.findings import CREDIT_CARD, EMAIL_ADDRESS, IP_ADDRESS, US_SSN, PiiFinding

__all__ = [
    "CARD_PATTERN",
    "CONTEXT_BOOST",
    "CONTEXT_WINDOW",
    "OfflineEmailRecognizer",
    "PresidioPatternRecogniser",
    "WindowedPatternRecogniser",
    "offline_tld_extractor",
    "standard_recognisers",
]

CONTEXT_WINDOW = 40  # characters before a match searched for context words
CONTEXT_BOOST = 0.35
# Presidio's card pattern knows only some issuer prefixes and at most 16 digits; Luhn decides.
CARD_PATTERN = Pattern("Any card number (Luhn decides)", r"\b\d(?:[ -]?\d){11,18}\b", 0.3)


def offline_tld_extractor() -> tldextract.TLDExtract:
    """A ``TLDExtract`` that only reads the public suffix list bundled with the package."""
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, fallback_to_snapshot=True)


class OfflineEmailRecognizer(EmailRecognizer):
    """Presidio's email recogniser, validating the domain against the bundled suffix list."""

    def __init__(self, extractor: tldextract.TLDExtract) -> None:
        super().__init__()
        self._extract = extractor

    def validate_result(self, pattern_text: str) -> bool:
        return self._extract(pattern_text).fqdn != ""


class PresidioPatternRecogniser:
    """Adapts one Presidio ``PatternRecognizer`` to :class:`~egress.pii.findings.Recogniser`."""

    def __init__(
        self,
        recognizer: PatternRecognizer,
        entity_type: str,
        *,
        context: Sequence[str] = (),
        min_score: float = 0.0,
    ) -> None:
        self._recognizer = recognizer
        self._entity_type = entity_type
        self._min_score = min_score
        self._context = (
            re.compile(r"\b(?:" + "|".join(map(re.escape, context)) + r")", re.IGNORECASE)
            if context
            else None
        )

    def find(self, text: str) -> list[PiiFinding]:
        return self._find(text, 0)

    def _find(self, text: str, offset: int) -> list[PiiFinding]:
        out: list[PiiFinding] = []
        for result in self._recognizer.analyze(text, [self._recognizer.supported_entities[0]]):
            score = float(result.score)
            if self._context is not None and self._context.search(
                text, max(0, result.start - CONTEXT_WINDOW), result.start
            ):
                score = min(1.0, score + CONTEXT_BOOST)
            if score >= self._min_score:
                start, end = result.start + offset, result.end + offset
                out.append(PiiFinding(self._entity_type, start, end, score))
        return out


class WindowedPatternRecogniser(PresidioPatternRecogniser):
    """Runs the recogniser only on windows around an anchor character (``@`` for email).

    Presidio's email pattern is the slowest regex we run (~1.4 ms per 2,000 characters); most
    text has no ``@`` at all, and an address is never far from its ``@``.
    """

    def __init__(
        self,
        recognizer: PatternRecognizer,
        entity_type: str,
        anchor: str,
        *,
        before: int = 100,
        after: int = 160,
    ) -> None:
        super().__init__(recognizer, entity_type)
        self._anchor = anchor
        self._before = before
        self._after = after

    def find(self, text: str) -> list[PiiFinding]:
        windows: list[list[int]] = []
        at = text.find(self._anchor)
        while at != -1:
            start, end = max(0, at - self._before), min(len(text), at + self._after)
            if windows and start <= windows[-1][1]:
                windows[-1][1] = end
            else:
                windows.append([start, end])
            at = text.find(self._anchor, at + 1)
        out: list[PiiFinding] = []
        for start, end in windows:
            # widen to whitespace so a window never cuts an address in two
            while start > 0 and not text[start - 1].isspace():
                start -= 1
            while end < len(text) and not text[end].isspace():
                end += 1
            out.extend(self._find(text[start:end], start))
        return out


def standard_recognisers() -> list[PresidioPatternRecogniser]:
    """Email, payment card (Luhn), IPv4/IPv6 and US SSN recognisers from Presidio."""
    return [
        WindowedPatternRecogniser(
            OfflineEmailRecognizer(offline_tld_extractor()), EMAIL_ADDRESS, "@"
        ),
        PresidioPatternRecogniser(
            CreditCardRecognizer(patterns=[CARD_PATTERN]),
            CREDIT_CARD,
            context=("card", "visa", "mastercard", "amex"),
        ),
        PresidioPatternRecogniser(IpRecognizer(), IP_ADDRESS, context=("ip", "address", "host")),
        PresidioPatternRecogniser(
            UsSsnRecognizer(),
            US_SSN,
            context=("ssn", "social security", "social sec"),
            min_score=0.4,  # the bare nine-digit and 5-4 patterns score 0.05
        ),
    ]
