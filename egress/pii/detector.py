"""The PII detector: every recogniser, one pass each, on the canonical form, overlaps resolved.

Build it with :func:`build_pii_detector` (egress, recall first) or
:func:`build_ingress_detector` (graph ingress guard: same recognisers, stricter on names so that
concept labels and legal prose are not rejected). Construction reads the word lists and compiles
the patterns; the built detector holds no mutable state, so one instance serves every thread.

Every text is canonicalised first (:mod:`egress.pii.canonical`: format characters removed,
NFKC, confusables folded); the identifier recognisers with a checksum or a context also run on
the compact view (separators inside digit runs removed). Findings are spans of the text as
given, whatever view found them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from egress.pii.addresses import StreetAddressRecogniser
from egress.pii.anycase import AnyCaseNameRecogniser
from egress.pii.canonical import (
    canonicalise,
    compact_identifiers,
    confusable_fold_table,
    spoken_identifiers,
)
from egress.pii.contextual import compact_recognisers, contextual_recognisers
from egress.pii.findings import EMAIL_ADDRESS, PERSON, PHONE_NUMBER, PiiFinding, Recogniser
from egress.pii.identifiers import identifier_recognisers
from egress.pii.lexicon import Lexicon, load_lexicon
from egress.pii.names import PersonNameRecogniser
from egress.pii.signature import SignatureRecogniser
from egress.pii.standard import standard_recognisers

__all__ = [
    "PiiDetector",
    "build_ingress_detector",
    "build_pii_detector",
    "resolve_overlaps",
]


class PiiDetector:
    """Runs recognisers and returns non-overlapping findings ordered by position.

    ``recognisers`` search the canonical text; ``compact`` ones the compact identifier view
    (the canonical text itself when it has no separator inside a digit run). A person finding
    that is exactly a name of ``places`` right after a place preposition ("moved to london",
    "a job in Kerry", "near Victoria") is a place, not a person, and is dropped.
    """

    def __init__(
        self,
        recognisers: Sequence[Recogniser],
        *,
        threshold: float = 0.5,
        compact: Sequence[Recogniser] = (),
        places: frozenset[str] = frozenset(),
    ) -> None:
        self._recognisers = tuple(recognisers)
        self._places = places
        self._compact = tuple(compact)
        self._threshold = threshold
        confusable_fold_table()  # built now, not on the first request

    def detect(self, text: str) -> list[PiiFinding]:
        """Findings in ``text`` scoring at least the threshold, without overlaps."""
        if not text:
            return []
        canonical = canonicalise(text)
        if not canonical.text:
            return []
        findings: list[PiiFinding] = []
        views = [(canonical, self._recognisers)]
        if self._compact:
            views.append((compact_identifiers(canonical), self._compact))
            spoken = spoken_identifiers(canonical)
            if spoken is not None:
                views.append((compact_identifiers(spoken), self._compact))
        for view, recognisers in views:
            for recogniser in recognisers:
                for f in recogniser.find(view.text):
                    if f.score >= self._threshold and f.end > f.start:
                        start, end = view.original_span(f.start, f.end)
                        findings.append(PiiFinding(f.entity_type, start, end, f.score))
        if self._places:
            findings = [f for f in findings if not self._is_place(text, f)]
        return resolve_overlaps(findings)

    def _is_place(self, text: str, finding: PiiFinding) -> bool:
        """A person finding that is a known place name right after a place preposition."""
        if finding.entity_type != PERSON:
            return False
        name = " ".join(text[finding.start : finding.end].casefold().split())
        if name not in self._places or text[finding.end : finding.end + 1] in ("'", "’"):
            return False  # "in Mary's account" is a person
        before = max(0, finding.start - 40)
        if _PLACE_IN.search(text, before, finding.start) is not None:
            return True
        return _PLACE_TO.search(text, before, finding.start) is not None


# The preposition right before a place: "in Kerry", "near Victoria" alone; "to" and "from" only
# after a word of moving or living ("moved to london", "flew in from Paris", "back to Clare"),
# since "gave it to Clare" and "a letter from Mary" are people.
_PLACE_IN = re.compile(r"(?i)(?<![^\W\d_])(?:in|near)[ \t]+$")
_PLACE_TO = re.compile(
    r"(?i)(?<![^\W\d_])(?:mov(?:e|es|ed|ing)|relocat(?:e|es|ed|ing)|go|goes|going|gone|went"
    r"|came|come|comes|coming|travel(?:s|led|ling|ed|ing)?|fly|flies|flew|flying|flights?|trips?"
    r"|emigrat(?:e|es|ed|ing)|commut(?:e|es|ed|ing)|back|return(?:s|ed|ing)?|drive|drives|drove"
    r"|driving|way|road|train|bus|ferry|in|over|up|down|away|originally|home)[ \t]+"
    r"(?:to|from|into)[ \t]+$"
)

# Contact details whose written-out form holds a plain-looking part: "jane dot doe@mail.ie"
# holds "doe@mail.ie", which the plain recogniser scores higher. The whole value wins.
_CONTAINER_WINS = frozenset({EMAIL_ADDRESS, PHONE_NUMBER})


def resolve_overlaps(findings: Iterable[PiiFinding]) -> list[PiiFinding]:
    """Keep the best of overlapping findings: higher score, then longer span, then earlier.

    An e-mail address or phone number inside another of the same type is first absorbed by it
    (which takes the higher score), so the span is the whole written-out value."""
    ranked = sorted(
        _absorb_contained(list(findings)), key=lambda f: (-f.score, -(f.end - f.start), f.start)
    )
    kept: list[PiiFinding] = []
    ends: list[tuple[int, int]] = []  # kept spans, sorted by start (they never overlap)
    for finding in ranked:
        i = _bisect(ends, finding.start)
        before_ok = i == 0 or ends[i - 1][1] <= finding.start
        after_ok = i == len(ends) or finding.end <= ends[i][0]
        if before_ok and after_ok:
            ends.insert(i, (finding.start, finding.end))
            kept.append(finding)
    return sorted(kept, key=lambda f: f.start)


def _absorb_contained(findings: list[PiiFinding]) -> list[PiiFinding]:
    """Drop a contact finding inside a wider one of the same type, raising the wider one's
    score to the higher of the two (one sweep by start; the widest first at a start)."""
    out: list[PiiFinding] = []
    widest: dict[str, int] = {}  # entity type -> index in ``out`` of the widest so far
    for f in sorted(findings, key=lambda f: (f.start, -f.end)):
        k = widest.get(f.entity_type)
        if f.entity_type in _CONTAINER_WINS and k is not None and f.end <= out[k].end:
            if f.score > out[k].score:
                c = out[k]
                out[k] = PiiFinding(c.entity_type, c.start, c.end, f.score)
            continue
        if k is None or f.end > out[k].end:
            widest[f.entity_type] = len(out)
        out.append(f)
    return out


def _bisect(spans: list[tuple[int, int]], start: int) -> int:
    """Index of the first kept span starting after ``start``."""
    lo, hi = 0, len(spans)
    while lo < hi:
        mid = (lo + hi) // 2
        if spans[mid][0] <= start:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _recognisers(lexicon: Lexicon, *, name_score: float) -> list[Recogniser]:
    return [
        *standard_recognisers(),
        *identifier_recognisers(lexicon.english_words),
        *contextual_recognisers(lexicon.english_words, lexicon.first_names),
        PersonNameRecogniser(lexicon, min_score=name_score),
        AnyCaseNameRecogniser(lexicon, min_score=name_score),
        SignatureRecogniser(lexicon),
        StreetAddressRecogniser(lexicon.english_words),
    ]


def build_pii_detector(*, lexicon: Lexicon | None = None, threshold: float = 0.5) -> PiiDetector:
    """The egress detector: every recogniser, names and addresses included."""
    lexicon = lexicon if lexicon is not None else load_lexicon()
    return PiiDetector(
        _recognisers(lexicon, name_score=0.5),
        threshold=threshold,
        compact=compact_recognisers(),
        places=lexicon.places,
    )


def build_ingress_detector(*, lexicon: Lexicon | None = None) -> PiiDetector:
    """The graph ingress detector: the same recognisers, but only confident names count.

    Graph properties are labels and definitions; a weak name guess there would reject a
    legitimate concept, while a real name in them usually comes with a title or a known name.
    """
    lexicon = lexicon if lexicon is not None else load_lexicon()
    return PiiDetector(
        _recognisers(lexicon, name_score=0.8),
        threshold=0.5,
        compact=compact_recognisers(),
        places=lexicon.places,
    )
