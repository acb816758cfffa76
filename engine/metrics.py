"""Process-wide counters of the chat engine (repairs, fallbacks, answer-only captures).

Plain integers on the engine, readable by whoever exposes metrics (``ChatEngine.counters``);
each increment is also logged, so a log pipeline can count without reading them.
"""

from __future__ import annotations

from collections import Counter

import structlog

__all__ = ["EngineCounters"]

log = structlog.get_logger(__name__)


class EngineCounters:
    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()

    def inc(self, name: str, amount: int = 1) -> None:
        self._counts[name] += amount
        log.info("counter", name=name, value=self._counts[name])

    def get(self, name: str) -> int:
        return self._counts[name]

    def snapshot(self) -> dict[str, int]:
        return dict(self._counts)
