"""The evidence of a question, kept for the next turn that asks it again (ADR 0029, third pass).

The evidence search (BM25, fusion and the quoted passages) is the largest piece of a turn's
own work before the call, and its result depends only on the question, the search's arguments
and the in-memory index. :class:`EvidenceCache` keeps the last results, least recently used
out first, keyed by all of those and by the index's generation: any rebuild or remembered node
(:attr:`engine.evidence.EvidenceIndex.generation`) empties it, so nothing stale is served.

The key holds the (sanitised) question, a tenant's text, so it also holds the tenant: one
tenant's question never finds, or times, another tenant's entry. Each caller gets its own
list of hits (a turn may add to it, ADR 0033), never the cached one.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

from engine.evidence import Evidence

__all__ = ["EvidenceCache", "EvidenceKey"]

EvidenceKey = tuple[str, str, int, tuple[str, ...], tuple[str, ...], tuple[str, str] | None]


class EvidenceCache:
    def __init__(self, max_entries: int = 256) -> None:
        self._max = max_entries
        self._entries: OrderedDict[EvidenceKey, Evidence] = OrderedDict()
        self._generation: int | None = None
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def search(
        self,
        generation: int,
        tenant_id: str,
        query: str,
        k: int,
        jurisdictions: Sequence[str],
        focus: Sequence[str],
        as_at: tuple[str, str] | None,
        run: Callable[[], Evidence],
    ) -> Evidence:
        """The cached evidence for these arguments at this index ``generation``, or ``run()``'s
        (then kept)."""
        key: EvidenceKey = (tenant_id, query, k, tuple(jurisdictions), tuple(focus), as_at)
        with self._lock:  # turns search in threads (ADR 0080); run() is outside the lock
            if generation != self._generation:  # the index changed: nothing kept is valid
                self._entries.clear()
                self._generation = generation
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self.hits += 1
            else:
                self.misses += 1
        if found is None:
            found = run()
            with self._lock:
                if self._max > 0 and generation == self._generation:
                    self._entries[key] = found
                    while len(self._entries) > self._max:
                        self._entries.popitem(last=False)
        return Evidence(hits=list(found.hits), verdict=found.verdict)
