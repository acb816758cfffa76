"""``GraphWriteService``: every write to the rules graph, seeds included, goes through here.

It runs the ingress guard, stamps one timestamp per call (so ``created_at`` / ``updated_at``
come from one clock), splits large writes into batches, and tells listeners what changed
(graph patches are built from those notifications).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from graph.ingress_guard import IngressGuard
from graph.models import EdgeWrite, NodeWrite, WriteOutcome, WriteResult, utc_timestamp
from graph.port import GraphWriter

ChangeListener = Callable[[Sequence[WriteResult], str], Awaitable[None]]


class GraphWriteService:
    def __init__(
        self,
        store: GraphWriter,
        guard: IngressGuard,
        *,
        clock: Callable[[], str] = utc_timestamp,
        batch_size: int = 500,
    ) -> None:
        self._store = store
        self._guard = guard
        self._clock = clock
        self._batch_size = batch_size
        self._listeners: list[ChangeListener] = []

    def subscribe(self, listener: ChangeListener) -> None:
        self._listeners.append(listener)

    async def upsert_nodes(self, nodes: Sequence[NodeWrite]) -> list[WriteResult]:
        checked = self._guard.check_nodes(nodes)
        now = self._clock()
        results: list[WriteResult] = []
        for start in range(0, len(checked), self._batch_size):
            results += await self._store.upsert_nodes(
                checked[start : start + self._batch_size], now
            )
        await self._notify(results, now)
        return results

    async def upsert_edges(self, edges: Sequence[EdgeWrite]) -> list[WriteResult]:
        checked = self._guard.check_edges(edges)
        now = self._clock()
        results: list[WriteResult] = []
        for start in range(0, len(checked), self._batch_size):
            results += await self._store.upsert_edges(
                checked[start : start + self._batch_size], now
            )
        await self._notify(results, now)
        return results

    async def _notify(self, results: Sequence[WriteResult], now: str) -> None:
        changed = [r for r in results if r.outcome is not WriteOutcome.UNCHANGED]
        if changed:
            for listener in self._listeners:
                await listener(changed, now)
