"""The PII detector: every recogniser, one pass each, overlaps resolved.

Build it with :func:`build_pii_detector` (egress, recall first) or
:func:`build_ingress_detector` (graph ingress guard: same recognisers, stricter on names so that
concept labels and legal prose are not rejected). Construction reads the word lists and compiles
the patterns; the built detector holds no mutable state, so one instance serves every thread.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from egress.pii.addresses import StreetAddressRecogniser
from egress.pii.findings import PiiFinding, Recogniser
from egress.pii.identifiers import identifier_recognisers
from egress.pii.lexicon import Lexicon, load_lexicon
from egress.pii.names import PersonNameRecogniser
from egress.pii.standard import standard_recognisers

__all__ = [
    "PiiDetector",
    "build_ingress_detector",
    "build_pii_detector",
    "resolve_overlaps",
]


class PiiDetector:
    """Runs recognisers and returns non-overlapping findings ordered by position."""

    def __init__(self, recognisers: Sequence[Recogniser], *, threshold: float = 0.5) -> None:
        self._recognisers = tuple(recognisers)
        self._threshold = threshold

    def detect(self, text: str) -> list[PiiFinding]:
        """Findings in ``text`` scoring at least the threshold, without overlaps."""
        if not text:
            return []
        findings: list[PiiFinding] = []
        for recogniser in self._recognisers:
            findings.extend(f for f in recogniser.find(text) if f.score >= self._threshold)
        return resolve_overlaps(findings)


def resolve_overlaps(findings: Iterable[PiiFinding]) -> list[PiiFinding]:
    """Keep the best of overlapping findings: higher score, then longer span, then earlier."""
    ranked = sorted(findings, key=lambda f: (-f.score, -(f.end - f.start), f.start))
    kept: list[PiiFinding] = []
    for finding in ranked:
        if all(finding.end <= k.start or finding.start >= k.end for k in kept):
            kept.append(finding)
    return sorted(kept, key=lambda f: f.start)


def build_pii_detector(*, lexicon: Lexicon | None = None, threshold: float = 0.5) -> PiiDetector:
    """The egress detector: every recogniser, names and addresses included."""
    lexicon = lexicon if lexicon is not None else load_lexicon()
    recognisers: list[Recogniser] = [
        *standard_recognisers(),
        *identifier_recognisers(),
        PersonNameRecogniser(lexicon),
        StreetAddressRecogniser(lexicon.english_words),
    ]
    return PiiDetector(recognisers, threshold=threshold)


def build_ingress_detector(*, lexicon: Lexicon | None = None) -> PiiDetector:
    """The graph ingress detector: the same recognisers, but only confident names count.

    Graph properties are labels and definitions; a weak name guess there would reject a
    legitimate concept, while a real name in them usually comes with a title or a known name.
    """
    lexicon = lexicon if lexicon is not None else load_lexicon()
    recognisers: list[Recogniser] = [
        *standard_recognisers(),
        *identifier_recognisers(),
        PersonNameRecogniser(lexicon, min_score=0.8),
        StreetAddressRecogniser(lexicon.english_words),
    ]
    return PiiDetector(recognisers, threshold=0.5)
