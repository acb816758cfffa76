"""Change detection for graph UIs: one detector per process, however many subscribers
(ADR 0027), in three parts:

- :mod:`graph.detector.feed`: what the detector hears of (this process's writes, the bus, a
  timestamp catch-up), each version taken once, into the batch being collected;
- :mod:`graph.detector.batch`: a batch becomes one patch, with what tenants may see decided by
  :mod:`graph.quarantine` alone (ADR 0020, 0034);
- :mod:`graph.detector.patch_log`: the numbered log behind ``Last-Event-ID``, its replay, and
  the subscribers with their filters and bounded queues.

:class:`~graph.detector.change_detector.ChangeDetector` runs them: a batch timer and the
catch-up timer. Work per patch is one or two graph reads whatever the subscriber count.
"""

from graph.detector.change_detector import ChangeDetector
from graph.detector.feed import CATCH_UP_OVERLAP_S
from graph.detector.patch_log import PatchEvent, Resync, StreamEvent

__all__ = [
    "CATCH_UP_OVERLAP_S",
    "ChangeDetector",
    "PatchEvent",
    "Resync",
    "StreamEvent",
]
