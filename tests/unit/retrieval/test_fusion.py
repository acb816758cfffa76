"""Reciprocal-rank fusion: scores, weights and a stable order."""

from __future__ import annotations

import pytest

from engine.retrieval.fusion import Channel, reciprocal_rank_fusion

pytestmark = pytest.mark.unit


def test_an_id_in_two_channels_beats_ids_in_one() -> None:
    fused = reciprocal_rank_fusion([Channel("a", ["x", "y", "z"]), Channel("b", ["z", "w"])], k=60)
    assert next(item.id for item in fused) == "z"
    assert fused[0].channels == ("a", "b")
    assert fused[0].score == pytest.approx(1 / 63 + 1 / 61)


def test_ties_break_by_id_whatever_the_channel_order() -> None:
    one = reciprocal_rank_fusion([Channel("a", ["b", "a"]), Channel("b", ["a", "b"])])
    two = reciprocal_rank_fusion([Channel("b", ["a", "b"]), Channel("a", ["b", "a"])])
    assert [i.id for i in one] == [i.id for i in two] == ["a", "b"]


def test_weights_scale_a_channel() -> None:
    fused = reciprocal_rank_fusion([Channel("a", ["x"]), Channel("b", ["y"], weight=2.0)], k=1)
    assert [item.id for item in fused] == ["y", "x"]


def test_duplicates_in_one_channel_count_once_at_their_best_rank() -> None:
    fused = reciprocal_rank_fusion([Channel("a", ["x", "x", "y"])], k=1)
    assert [(i.id, i.score) for i in fused] == [("x", 0.5), ("y", pytest.approx(1 / 4))]


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        reciprocal_rank_fusion([], k=0)


def test_a_channel_with_its_own_k_flattens_its_ranks() -> None:
    fused = reciprocal_rank_fusion([Channel("a", ["x", "y"]), Channel("b", ["y"], k=99.0)], k=1)
    assert [(i.id, i.score) for i in fused] == [
        ("x", 0.5),
        ("y", pytest.approx(1 / 3 + 1 / 100)),
    ]
    with pytest.raises(ValueError, match="positive"):
        reciprocal_rank_fusion([Channel("a", ["x"], k=0.0)], k=1)
