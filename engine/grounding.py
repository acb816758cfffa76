"""Grounding of one answer: the refusal sentence, the citation check, and the confidence.

- :func:`refusal_sentence` is what a turn says when the relevance gate decided, before the
  model was called, that the graph holds no evidence that can answer the question.
- :func:`ground_answer` checks every ``[node-id]`` in the answer against the evidence of that
  turn: a citation of a node that was not retrieved is reported (the turn turns it into a
  ``warning``) and dropped; the valid ones become :class:`Citation` s with what a UI needs to
  render a chip (heading, instrument, deep link).
- The confidence (0–1) is ``retrieval × grounded``: ``retrieval`` is the gate's coverage (the
  IDF-weighted share of the question's terms found in the best evidence, ADR 0012) and
  ``grounded`` the share of the answer's sentences, the disclaimer left out, that carry at least
  one valid citation. A refusal, or an answer without a valid citation, has confidence 0.

A citation carries what makes a dated fact checkable (ADR 0031): the period the value is in
force (a provision: its act's), the source it came from and when that source was checked, and
the conflicts that dispute it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.evidence import Evidence
from engine.prompt import DISCLAIMER
from engine.retrieval import RefusalReason, RelevanceVerdict
from graph.models import GraphNode

__all__ = [
    "CITATION",
    "COVERAGE",
    "EURLEX",
    "INSTRUMENT_LABELS",
    "Citation",
    "Grounding",
    "ground_answer",
    "refusal_sentence",
]

CITATION = re.compile(r"\[([A-Za-z0-9_:.\-#/]+)\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
EURLEX = "https://eur-lex.europa.eu/"
INSTRUMENT_LABELS = frozenset({"EURegulation", "EUDirective", "EUDecision"})
COVERAGE = "Ireland, the United Kingdom (with Northern Ireland) and EU law"


def refusal_sentence(verdict: RelevanceVerdict) -> str:
    """The explicit "no evidence" sentence for a verdict that refuses."""
    subject = verdict.subject
    if verdict.reason is RefusalReason.OUT_OF_COVERAGE_JURISDICTION and subject:
        return f"The rules graph has no evidence on {subject}: it covers {COVERAGE}."
    if verdict.reason is RefusalReason.UNKNOWN_INSTRUMENT and subject:
        return f"The rules graph has no evidence on {subject}: that act is not in the graph."
    return "The rules graph has no evidence on this question."


@dataclass(frozen=True)
class Citation:
    """One cited node, as a UI renders it without another request."""

    id: str
    heading: str
    instrument: str | None
    url: str | None
    valid_from: str | None = None
    valid_to: str | None = None
    source: str | None = None
    source_checked_on: str | None = None
    conflicts: tuple[dict[str, Any], ...] = ()

    def data(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "heading": self.heading,
            "instrument": self.instrument,
            "url": self.url,
            "validFrom": self.valid_from,
            "validTo": self.valid_to,
            "source": self.source,
            "sourceCheckedOn": self.source_checked_on,
            "conflicts": list(self.conflicts),
        }


@dataclass(frozen=True)
class Grounding:
    cited: list[str]  # valid citations, in order of first appearance
    rejected: list[str]  # cited ids that were not evidence of this turn
    citations: list[Citation]
    confidence: float


def ground_answer(
    answer: str,
    evidence: Evidence,
    lookup: Callable[[str], GraphNode | None],
    conflicts_of: Callable[[str], Sequence[GraphNode]] | None = None,
) -> Grounding:
    """Check the answer's citations against ``evidence``; ``lookup`` finds a node for a chip
    (and a provision's act), ``conflicts_of`` the conflicts that dispute a cited value."""
    allowed = set(evidence.ids())
    candidates = list(dict.fromkeys(CITATION.findall(answer)))
    cited = [i for i in candidates if i in allowed]
    # Bracketed words without a colon ("[unverified]") are not citations at all.
    rejected = [i for i in candidates if ":" in i and i not in allowed]
    citations = [
        _citation(node, lookup, conflicts_of(i) if conflicts_of else ())
        for i in cited
        if (node := lookup(i)) is not None
    ]
    grounded = _cited_share(answer, set(cited))
    confidence = evidence.verdict.confidence * grounded if evidence.answerable else 0.0
    return Grounding(cited, rejected, citations, round(min(max(confidence, 0.0), 1.0), 3))


def _cited_share(answer: str, valid: set[str]) -> float:
    body = answer.replace(DISCLAIMER, " ")
    sentences = [s for s in _SENTENCE_END.split(body) if re.search(r"\w", s)]
    if not sentences or not valid:
        return 0.0
    carrying = sum(1 for s in sentences if set(CITATION.findall(s)) & valid)
    return carrying / len(sentences)


def _citation(
    node: GraphNode,
    lookup: Callable[[str], GraphNode | None],
    conflicts: Sequence[GraphNode] = (),
) -> Citation:
    props = node.properties
    heading = " — ".join(str(props[k]) for k in ("name", "title") if props.get(k)) or node.id
    urls: Sequence[str] = props.get("source_urls") or ()
    # The EUR-Lex page (with its #art_N anchor) before an ELI URI that only redirects there.
    url = next((u for u in urls if u.startswith(EURLEX)), urls[0] if urls else None)
    instrument = node.id if node.label in INSTRUMENT_LABELS else props.get("instrument")
    dated = props
    if not (props.get("valid_from") or props.get("valid_to")) and instrument:
        act = lookup(str(instrument)) if instrument != node.id else None
        dated = act.properties if act is not None else props  # a provision: its act's dates
    return Citation(
        id=node.id,
        heading=heading,
        instrument=str(instrument) if instrument else None,
        url=url,
        valid_from=_text(dated.get("valid_from")),
        valid_to=_text(dated.get("valid_to")),
        source=_text(dated.get("source")),
        source_checked_on=_text(dated.get("source_checked_on")),
        conflicts=tuple(
            {
                "id": c.id,
                "description": c.properties.get("description"),
                "validFrom": _text(c.properties.get("valid_from")),
                "validTo": _text(c.properties.get("valid_to")),
            }
            for c in conflicts
        ),
    )


def _text(value: object) -> str | None:
    return str(value) if value else None
