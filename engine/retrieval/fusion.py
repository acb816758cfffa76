"""Reciprocal-rank fusion with a stable order.

Each channel (lexical over articles, over paragraphs, over recitals, citation expansion, focus
concepts) ranks ids on its own scale; RRF adds ``weight / (k + rank)`` over the channels an id
appears in (Cormack, Clarke and Büttcher, SIGIR 2009), so no channel's raw scores need
calibrating against another's. Ties, which RRF makes common (two ids with the same ranks in
mirrored channels), are broken by id, so the same question over the same graph always gives the
same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "Channel",
    "FusedItem",
    "reciprocal_rank_fusion",
]


@dataclass(frozen=True, slots=True)
class Channel:
    """One ranked list of ids (best first), its weight in the fusion and, when set, its own
    RRF constant (a larger ``k`` flattens the channel's ranks: its top matters less)."""

    name: str
    ranked: Sequence[str]
    weight: float = 1.0
    k: float | None = None


@dataclass(frozen=True, slots=True)
class FusedItem:
    """A fused id, its RRF score and the channels that contributed, in channel order."""

    id: str
    score: float
    channels: tuple[str, ...]


def reciprocal_rank_fusion(channels: Sequence[Channel], k: float = 60.0) -> list[FusedItem]:
    """Fuse ``channels`` (duplicates within one channel count at their best rank).

    Sorted by descending score, then by id.
    """
    if k <= 0:
        raise ValueError("the RRF constant k must be positive")
    scores: dict[str, float] = {}
    sources: dict[str, list[str]] = {}
    for channel in channels:
        seen: set[str] = set()
        constant = k if channel.k is None else channel.k
        if constant <= 0:
            raise ValueError("the RRF constant k must be positive")
        for rank, item in enumerate(channel.ranked, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + channel.weight / (constant + rank)
            sources.setdefault(item, []).append(channel.name)
    fused = [FusedItem(item, score, tuple(sources[item])) for item, score in scores.items()]
    fused.sort(key=lambda entry: (-entry.score, entry.id))
    return fused
