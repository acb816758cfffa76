"""The relevance gate: can the retrieved evidence answer the question at all?

Decided before the model is called, from what the question names and how well the best evidence
covers it, in this order:

1. **An act the graph does not hold** (``unknown_instrument``): the question names an act
   (by citation, number, a well-known name such as DORA, or any "... Act/Directive/Regulation")
   that is not in the graph, and names no act that is. Comparisons with a covered act go through.
2. **An explicit reference that resolved** ("Article 17 GDPR"): answerable, whatever the words.
3. **A place outside coverage** (``out_of_coverage_jurisdiction``): the question names a country
   or US state whose law the graph does not hold, and neither a covered place (Ireland, the UK,
   the EU...) nor a covered act. Only EU law can speak to another country (it applies in the
   member states and governs dealings with third countries), so the best evidence must be EU
   law, and it must cover the question strongly (``strong_coverage``): such a question is
   usually about that country's own law (France's wealth tax), which the graph does not hold.
   A **member state** named with a cue of national law ("under Polish law", "Spain's tax",
   "the Czech Civil Code") and no EU act or covered place is refused at once: the question asks
   for that state's own law (``member_state_is_national``, issue 22).
4. **Weak evidence** (``no_evidence``): the IDF-weighted share of the question's terms that the
   best of the top evidence units contains is below ``min_coverage``, and the semantic
   channel's best cosine (when there is one) is below ``min_similarity``: a question in
   everyday words may share few words with the provision that answers it, but not its meaning.
   When that cosine is below ``far_similarity`` too (the question means nothing the graph holds:
   "How many calories are in a slice of pizza?"), the coverage needed rises with the shortfall
   (``similarity_trade``): common words shared with some act do not make it answerable
   (ADR 0087).

5. **Not settled** (``no_evidence``, issue 22): the question asks for something by name ("what
   minimum password length ...", "which programming languages ...": ``focus.py``) and a word of
   it that the acts use elsewhere is in none of the best evidence units (``unsettled``): the
   evidence is about the question's subject, not about what it asks, and the act does not
   settle it. On only when ``refuse_unsettled``.

Coverage, not the raw BM25 score, is the confidence: it is normalised to [0, 1] whatever the
question's length, and a question about something the acts never mention ("speed limit",
"wealth tax") scores low because its rarest, most informative words are missing. Both thresholds
are calibrated on the dev set by ``bench/retrieval_bench.py --calibrate`` (see ADR 0012).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine.retrieval.acts import ActMention
from engine.retrieval.places import Place, PlaceKind

__all__ = [
    "GateThresholds",
    "RefusalReason",
    "RelevanceVerdict",
    "judge",
]


class RefusalReason(StrEnum):
    NO_EVIDENCE = "no_evidence"
    OUT_OF_COVERAGE_JURISDICTION = "out_of_coverage_jurisdiction"
    UNKNOWN_INSTRUMENT = "unknown_instrument"


@dataclass(frozen=True, slots=True)
class RelevanceVerdict:
    """Whether to answer; when not, why and what the question named (for the refusal text)."""

    answerable: bool
    reason: RefusalReason | None = None
    subject: str | None = None
    confidence: float = 0.0


@dataclass(frozen=True, slots=True)
class GateThresholds:
    """Coverage bars of the gate (see the module docstring and ADR 0012)."""

    # Youden's J (refusal minus false refusal) on the broad dev set over a grid of both bars
    # (ADR 0045): 0.25 with min_similarity 0.55 (the old set alone had chosen 0.30).
    min_coverage: float = 0.25
    strong_coverage: float = 0.5  # set by principle: half the question's information
    # The semantic channel's best cosine that answers on its own when coverage is low
    # (a question in everyday words shares few words with the act that answers it).
    min_similarity: float = 0.55
    # A member state named with a cue of national law ("Polish law", "Spain's tax") and no EU
    # act: its national law (refused, rule 3).
    member_state_is_national: bool = True
    # Rule 4 with both channels (ADR 0087): a question whose meaning nothing in the graph is
    # near (the semantic channel's best cosine under ``far_similarity``) needs more of its words
    # found: the coverage needed rises by ``similarity_trade`` for each unit of cosine short of
    # that bar ("How many calories are in a slice of pizza?" shares "slice"-like common words
    # with some act, but no act means anything like it). 0: a flat ``min_coverage``.
    far_similarity: float = 0.45
    similarity_trade: float = 1.0
    # Rule 5: refuse a question whose asked-for words the best evidence never uses (ADR 0058,
    # eighth-pass addendum; the depth it reads is ``RetrievalConfig.asked_depth``).
    refuse_unsettled: bool = True


def _coverage_needed(similarity: float | None, thresholds: GateThresholds) -> float:
    """The coverage under which rule 4 refuses: ``min_coverage``, raised by
    ``similarity_trade`` times the shortfall of ``similarity`` from ``far_similarity`` (none
    without a semantic channel)."""
    if similarity is None:
        return thresholds.min_coverage
    shortfall = max(0.0, thresholds.far_similarity - similarity)
    return thresholds.min_coverage + thresholds.similarity_trade * shortfall


def judge(
    *,
    acts: Sequence[ActMention],
    places: Sequence[Place],
    explicit: bool,
    confidence: float,
    thresholds: GateThresholds,
    evidence_jurisdiction: str | None = None,
    similarity: float | None = None,
    national_cue: bool = False,
    unsettled: Sequence[str] = (),
) -> RelevanceVerdict:
    """Apply the gate's rules in order (see the module docstring)."""
    known = [act for act in acts if act.instrument_id is not None]
    unknown = [act for act in acts if act.instrument_id is None]
    if unknown and not known:
        return RelevanceVerdict(
            False, RefusalReason.UNKNOWN_INSTRUMENT, unknown[0].name, confidence
        )
    if explicit:
        return RelevanceVerdict(True, confidence=confidence)
    covered = known or any(place.kind is PlaceKind.COVERED for place in places)
    foreign = [place for place in places if place.kind is not PlaceKind.COVERED]
    national = [p for p in foreign if p.kind is PlaceKind.MEMBER_STATE]
    if national and national_cue and not covered and thresholds.member_state_is_national:
        # "Under Polish law ...", "Spain's digital services tax": EU law applies there too,
        # but a question that names a member state and no EU act asks for its national law.
        return RelevanceVerdict(
            False, RefusalReason.OUT_OF_COVERAGE_JURISDICTION, national[0].name, confidence
        )
    if foreign and not covered:
        # Only EU law can speak to another country (third-country transfers, EU law in a member
        # state); Irish or UK rules never answer for France or California. Such a question is
        # usually about that country's own law, so EU evidence must cover it strongly.
        if evidence_jurisdiction != "EU" or confidence < thresholds.strong_coverage:
            return RelevanceVerdict(
                False, RefusalReason.OUT_OF_COVERAGE_JURISDICTION, foreign[0].name, confidence
            )
    semantic = similarity is not None and similarity >= thresholds.min_similarity
    if confidence < _coverage_needed(similarity, thresholds) and not semantic:
        return RelevanceVerdict(False, RefusalReason.NO_EVIDENCE, None, confidence)
    if unsettled and thresholds.refuse_unsettled:
        # "What VAT rate applies to trading crypto-assets under MiCA?": MiCA's best provisions
        # never say "VAT" or "rate", words the acts use elsewhere: MiCA does not settle it.
        return RelevanceVerdict(False, RefusalReason.NO_EVIDENCE, None, confidence)
    return RelevanceVerdict(True, confidence=confidence)
