"""Rule 4 with both channels (issue 22, ADR 0087): a question whose meaning nothing in the graph
is near needs more of its words found than the flat coverage bar."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.retrieval.gate import GateThresholds, RefusalReason, judge

pytestmark = pytest.mark.unit


def _verdict(confidence: float, similarity: float | None, trade: float | None = None) -> bool:
    thresholds = GateThresholds()  # the shipped bars
    if trade is not None:
        thresholds = replace(thresholds, similarity_trade=trade)
    verdict = judge(
        acts=(),
        places=(),
        explicit=False,
        confidence=confidence,
        similarity=similarity,
        thresholds=thresholds,
    )
    if not verdict.answerable:
        assert verdict.reason is RefusalReason.NO_EVIDENCE
    return verdict.answerable


def test_common_words_and_a_far_meaning_are_refused() -> None:
    # A third of the words found (above the flat 0.25) but nothing near in meaning (0.2).
    assert not _verdict(0.33, 0.2)


def test_off_the_flat_bar_lets_it_through() -> None:
    assert _verdict(0.33, 0.2, trade=0.0)


@pytest.mark.parametrize(
    ("confidence", "similarity"),
    [
        (0.33, 0.5),  # near enough in meaning: the flat bar
        (0.6, 0.2),  # most of the words found
        (0.33, None),  # no semantic channel: the flat bar
    ],
)
def test_a_near_meaning_or_strong_words_answer(confidence: float, similarity: float | None) -> None:
    assert _verdict(confidence, similarity)


def test_the_bar_rises_with_the_shortfall() -> None:
    # 0.25 + 1.0 * (0.45 - 0.35) = 0.35 needed at a cosine of 0.35.
    assert not _verdict(0.34, 0.35)
    assert _verdict(0.36, 0.35)
