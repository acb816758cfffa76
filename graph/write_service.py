"""``GraphWriteService``: every write to the rules graph, seeds included, goes through here.

It runs the ingress guard, stamps one timestamp per call (so ``created_at`` / ``updated_at``
come from one clock), splits large writes into batches (the guard bounds one batch, not the
whole call), and tells listeners what changed (graph patches are built from those).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from graph.ingress_guard import IngressGuard
from graph.models import EdgeWrite, NodeWrite, WriteOutcome, WriteResult, utc_timestamp
from graph.port import GraphWriter

ChangeListener = Callable[[Sequence[WriteResult], str], Awaitable[None]]
T = TypeVar("T")


def _batches(items: Sequence[T], size: int) -> list[Sequence[T]]:
    return [items[start : start + size] for start in range(0, len(items), size)]


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

    def check_nodes(self, nodes: Sequence[NodeWrite]) -> list[NodeWrite]:
        """Run the ingress guard only: the nodes as they would be written, or a rejection."""
        return [
            n for batch in _batches(nodes, self._batch_size) for n in self._guard.check_nodes(batch)
        ]

    async def upsert_nodes(self, nodes: Sequence[NodeWrite]) -> list[WriteResult]:
        checked = self.check_nodes(nodes)  # all of the call, before any of it is written
        now = self._clock()
        results: list[WriteResult] = []
        for batch in _batches(checked, self._batch_size):
            results += await self._store.upsert_nodes(batch, now)
        await self._notify(results, now)
        return results

    async def upsert_edges(self, edges: Sequence[EdgeWrite]) -> list[WriteResult]:
        batches = _batches(edges, self._batch_size)
        checked = [e for batch in batches for e in self._guard.check_edges(batch)]
        now = self._clock()
        results: list[WriteResult] = []
        for batch in _batches(checked, self._batch_size):
            results += await self._store.upsert_edges(batch, now)
        await self._notify(results, now)
        return results

    async def _notify(self, results: Sequence[WriteResult], now: str) -> None:
        changed = [r for r in results if r.outcome is not WriteOutcome.UNCHANGED]
        if changed:
            for listener in self._listeners:
                await listener(changed, now)
