"""An adaptive concurrency limit: additive increase while the worker keeps time, multiplicative
decrease when it does not (ADR 0055; addenda: the start delay, slow start).

How many streams one worker can carry depends on the machine, the answers' length and what
else runs on its cores; a static limit is either too low (the worker idles while clients are
refused) or too high (every stream stutters). :class:`AdaptiveLimit` finds the limit from two
signals the worker measures of itself (in the manner of Netflix's concurrency-limits AIMD and
Envoy's adaptive concurrency filter):

- **loop lag**: how late the event loop wakes from its timers (every stream's next chunk waits
  about that long);
- **chunk delay**: how long a chunk just written waits before the loop can attend to the next
  one (a percentile over the last interval);
- **start delay**: how long an admitted turn takes to start its response (preparing it: the
  conversation store, retrieval, the egress scan; the p90 of the last interval, or the age of
  the oldest turn still preparing if that is longer). Preparation waits on threads (the SQLite
  writer, the PII detector) as well as on the loop, so it can queue for seconds while the loop
  itself keeps time: every admitted turn's first token then waits that long.

Every ``interval`` seconds :meth:`AdaptiveLimit.update` looks at all three. Over target (any,
``patience`` intervals in a row: a single late timer — a collection, another process taking the
core for a moment — is not a trend) and with at least ``cut_above`` of the limit in flight
(with fewer, the limit is not what lets the load in: cutting it to the few turns in flight
would refuse the next burst for what other work did), the limit drops to ``backoff`` x the
turns in flight (or the limit, if lower), at most once per ``cooldown`` — streams end one by
one, so the load falls only over the following seconds and a second cut before then would
overshoot. On target for ``stable`` intervals in a row, each with chunks timed (evidence that
streams are served on time: an interval without a chunk is not judged on time, fourth
addendum) and the limit in use (``in_flight >= used * limit``): it grows by ``increase``. It
never grows while idle (a burst after a quiet hour would otherwise meet a limit nothing tested;
on-time intervals while not in use do not count) and stays within ``[floor, ceiling]``.

**Slow start** (second addendum): the limit starts low (``initial``, what any worker carries)
and, until its first cut, grows by one for every admitted turn that started its response within
``target_start`` while there was demand (turns waiting, or the limit in use) and the last
interval was judged on target (not before the first interval is judged) — as TCP's congestion
window grows by one per acknowledgement, and as it at most doubling between two judgements
(a start beyond that, or before the first judgement, is credited to the next one, which adds it
if on time and forgets it if late; fourth addendum). A burst on a fresh worker is let in as
fast as the worker shows it starts turns on time: a lean worker doubles its limit every
interval (100 ms), a worker whose turns start late does not grow, and the turns beyond the
limit wait (briefly, in the gate's queue) instead of all preparing at once. The first cut ends
slow start (:attr:`AdaptiveLimit.slow_start`); growth is additive after it.

Pure: the clock is passed in, nothing here sleeps or measures; :class:`DelayWindow` keeps the
recent chunk delays for a percentile.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["AdaptiveLimit", "DelayWindow", "LimitConfig"]

_EPSILON = 1e-9  # a clock read at the interval exactly is due


@dataclass(frozen=True)
class LimitConfig:
    ceiling: int  # the static limit (REGINTEL_MAX_TURNS_IN_FLIGHT): never above
    floor: int = 8  # never below (a lone turn is never refused for lag)
    initial: int = 8  # at start; slow start grows it by one per turn started on time
    interval: float = 0.1  # seconds between decisions
    target_lag: float = 0.015  # seconds
    target_delay: float = 0.015  # seconds, the chunk-delay percentile
    target_start: float = 0.05  # seconds, the start-delay percentile (admitted -> response)
    increase: float = 2.0  # turns added per stable interval
    backoff: float = 0.9  # x in-flight on congestion
    deepest: float = 0.5  # the deepest cut, when the start delay is far over target
    cooldown: float = 1.0  # seconds between two decreases
    stable: int = 2  # intervals on target before an increase
    patience: int = 2  # intervals over target before a cut (one late timer is not a trend)
    used: float = 0.8  # grow only when in_flight >= used * limit
    cut_above: float = 0.5  # cut only when in_flight >= cut_above * limit
    slow_start: bool = True  # +1 per turn started on time, until the first cut

    def bounded(self) -> LimitConfig:
        """Floor and initial within the ceiling (a ceiling of 2 is a static limit of 2)."""
        floor = max(1, min(self.floor, self.ceiling))
        initial = min(max(self.initial, floor), self.ceiling)
        return LimitConfig(**{**self.__dict__, "floor": floor, "initial": initial})


class AdaptiveLimit:
    """The current limit of turns in flight; :meth:`update` it with the signals as they come."""

    def __init__(self, config: LimitConfig, clock: Callable[[], float]) -> None:
        self.config = config.bounded()
        self._clock = clock
        self._limit = float(self.config.initial)
        self._next = clock() + self.config.interval
        self._last_cut = -math.inf
        self._good = self._bad = 0
        self._judged = False  # an interval has been judged (slow start waits for the first)
        self._grown_from = self._limit  # the limit at the last judgement (slow start: x2 max)
        self._credit = 0  # starts on time not yet added (slow start: before a judgement)
        self.increases = 0
        self.decreases = 0
        self.slow_start = self.config.slow_start  # until the first congestion cut

    def started(self, seconds: float, *, demand: bool) -> bool:
        """An admitted turn started its response ``seconds`` after its admission. In slow
        start, with ``demand`` (turns waiting, or the limit in use) and the last interval
        judged on target, one started on time adds one to the limit; True when the limit
        changed. The limit at most doubles between two judgements (as TCP's window per round
        trip): a start beyond that, or before the first interval has been judged (a fresh
        worker does not know yet whether its loop keeps time), is credited to the next
        judgement, which adds it if on time and forgets it if late."""
        c = self.config
        if not self.slow_start or not demand or seconds > c.target_start or self._bad:
            return False
        if not self._judged or self._limit >= 2 * self._grown_from:
            self._credit += 1
            return False
        before = self.limit
        self._limit = min(c.ceiling, self._limit + 1)
        self.increases += self.limit > before
        return self.limit != before

    @property
    def limit(self) -> int:
        return int(self._limit)

    def due(self) -> bool:
        """An interval has passed since the last decision: :meth:`update` would decide."""
        return self._clock() >= self._next - _EPSILON

    def update(
        self, *, lag: float, delay: float | None, in_flight: int, start: float = 0.0
    ) -> bool:
        """Decide, if an interval has passed since the last decision; True when the limit
        changed. ``lag``, ``delay`` and ``start`` in seconds (``delay`` None: no chunk was
        timed in the interval); ``in_flight`` the turns now admitted.

        Late is any signal over its target. On time needs evidence (fourth addendum): chunks
        timed in the interval, every signal within target. An interval without chunks and not
        late is not judged: it neither counts towards an increase nor ends a run of late ones
        (a quiet interval, or turns still waiting for the model, says nothing of how streams
        are served; a lag reading of 0 is what a busy uvloop loop's cached clock can show)."""
        now, c = self._clock(), self.config
        if now < self._next - _EPSILON:
            return False
        self._next = now + c.interval
        before = self.limit
        late = lag > c.target_lag or start > c.target_start
        late = late or (delay is not None and delay > c.target_delay)
        if late:
            self._judged = True
            self._grown_from = self._limit
            self._credit = 0
            self._good = 0
            self._bad += 1
            mine = in_flight >= c.cut_above * self._limit  # the limit lets this load in
            if mine and self._bad >= c.patience and now - self._last_cut >= c.cooldown:
                self._last_cut = now
                self.slow_start = False
                factor = c.backoff
                if start > c.target_start:
                    factor = min(factor, max(c.deepest, c.target_start / start))
                self._limit = max(c.floor, min(self._limit, in_flight) * factor)
                self.decreases += self.limit < before
        elif delay is not None:
            self._judged = True
            self._grown_from = self._limit  # slow start may double from here until the next
            if self.slow_start and self._credit:
                self._limit = min(c.ceiling, self._limit + self._credit, 2 * self._grown_from)
                self._credit = 0
            self._bad = 0
            in_use = in_flight >= c.used * self._limit
            self._good = self._good + 1 if in_use else 0  # stable intervals *in use*
            if self._good >= c.stable:
                self._good = 0
                self._limit = min(c.ceiling, self._limit + c.increase)
            self.increases += self.limit > before
        return self.limit != before


class DelayWindow:
    """The last ``size`` chunk delays (seconds); :meth:`percentile` of them, 0 when empty.
    :meth:`drain` returns one percentile and forgets them (one interval's worth), keeping the
    p50, p90 and p99 of the last interval that had chunks in :attr:`last` (for metrics)."""

    QUANTILES = (0.5, 0.9, 0.99)

    def __init__(self, size: int = 4096) -> None:
        self._values: deque[float] = deque(maxlen=size)
        self.last: dict[float, float] = dict.fromkeys(self.QUANTILES, 0.0)

    def add(self, seconds: float) -> None:
        self._values.append(seconds)

    def __len__(self) -> int:
        return len(self._values)

    def percentile(self, q: float) -> float:
        return _percentile(sorted(self._values), q)

    def drain(self, q: float = 0.9) -> float:
        ordered = sorted(self._values)
        self._values.clear()
        if ordered:  # an interval without chunks keeps the last figures shown
            self.last = {p: _percentile(ordered, p) for p in self.QUANTILES}
        return _percentile(ordered, q)


def _percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0
