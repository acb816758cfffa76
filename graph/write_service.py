"""``GraphWriteService``: every write to the rules graph, seeds included, goes through here.

It runs the ingress guard, stamps one timestamp per call (so ``created_at`` / ``updated_at``
come from one clock), splits large writes into batches (the guard bounds one batch, not the
whole call), and tells listeners what changed (graph patches are built from those).

Listeners run off the write's path: a write returns as soon as the store committed it, and
what it changed is queued for one delivery task per service, which calls every listener for
one write before it starts on the next, so listeners see writes in the order they committed
(patches keep their ``seq`` order). A listener that raises is logged and skipped; the write it
was told about stays committed and successful. :meth:`GraphWriteService.drain` waits until the
listeners have seen every write so far (tests, and code that needs a listener's effect, await
it); :meth:`GraphWriteService.aclose` drains and then refuses further writes. The queue is not
bounded: a write never waits for a listener, and listeners only read, so the backlog is as
long as the writes of a burst (one entry per call, not per item).

Increments of relationship counters (:meth:`GraphWriteService.increment_edges`, ADR 0036) are
guarded and batched like writes but tell no listener: a count is for operators, not a change
of what the graph says, so it makes no patch.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import TypeVar

import structlog

from errors import GraphUnavailable
from graph.fanout import call_each
from graph.ingress_guard import IngressGuard
from graph.models import (
    EdgeIncrement,
    EdgeWrite,
    NodeWrite,
    WriteOutcome,
    WriteResult,
    utc_timestamp,
)
from graph.port import GraphWriter

__all__ = [
    "ChangeListener",
    "GraphWriteService",
]

ChangeListener = Callable[[Sequence[WriteResult], str], Awaitable[None]]
T = TypeVar("T")

log = structlog.get_logger(__name__)


def _batches(items: Sequence[T], size: int) -> list[Sequence[T]]:
    return [items[start : start + size] for start in range(0, len(items), size)]


class GraphWriteService:
    """The guarded writer of the rules graph; see the module docstring for notifications."""

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
        self._changes: deque[tuple[list[WriteResult], str]] = deque()
        self._delivery: asyncio.Task[None] | None = None
        self._closed = False

    def subscribe(self, listener: ChangeListener) -> None:
        """Call ``listener(changed results, timestamp)`` after every write that changed
        something, in the background (see the module docstring)."""
        self._listeners.append(listener)

    def check_nodes(self, nodes: Sequence[NodeWrite]) -> list[NodeWrite]:
        """Run the ingress guard only: the nodes as they would be written, or a rejection."""
        return [
            n for batch in _batches(nodes, self._batch_size) for n in self._guard.check_nodes(batch)
        ]

    async def upsert_nodes(self, nodes: Sequence[NodeWrite]) -> list[WriteResult]:
        """Guard all of the call before any of it is written, then upsert it batch by batch."""
        return await self._write(self._store.upsert_nodes, self.check_nodes(nodes))

    async def upsert_edges(self, edges: Sequence[EdgeWrite]) -> list[WriteResult]:
        """Guard all of the call before any of it is written, then upsert it batch by batch."""
        batches = _batches(edges, self._batch_size)
        checked = [e for batch in batches for e in self._guard.check_edges(batch)]
        return await self._write(self._store.upsert_edges, checked)

    async def delete_nodes(
        self, ids: Sequence[str], *, unseen: Collection[str] = ()
    ) -> list[WriteResult]:
        """Delete nodes with their relationships (the guard checks the ids), batch by batch:
        REMOVED per node deleted, UNCHANGED per id that was absent. Listeners are told, so
        patches report the removal, except for ``unseen`` ids (quarantined: tenants never
        saw them, so their removal must not reveal them either)."""
        batches = _batches(ids, self._batch_size)
        checked = [i for batch in batches for i in self._guard.check_ids(batch)]
        return await self._write(self._store.delete_nodes, checked, unseen)

    async def increment_edges(self, increments: Sequence[EdgeIncrement]) -> list[WriteResult]:
        """Guard all of the call, then add to the counters batch by batch (each batch atomic in
        the store): UPDATED per relationship counted, UNCHANGED per one that does not exist.
        No listener is told (see the module docstring)."""
        batches = _batches(increments, self._batch_size)
        checked = [i for batch in batches for i in self._guard.check_increments(batch)]
        if self._closed:
            raise GraphUnavailable("the graph write service is closed")
        results: list[WriteResult] = []
        for batch in _batches(checked, self._batch_size):
            results += await self._store.increment_edges(batch)
        return results

    async def _write(
        self,
        upsert: Callable[[Sequence[T], str], Awaitable[list[WriteResult]]],
        items: Sequence[T],
        unseen: Collection[str] = (),
    ) -> list[WriteResult]:
        if self._closed:
            raise GraphUnavailable("the graph write service is closed")
        now = self._clock()
        results: list[WriteResult] = []
        try:
            for batch in _batches(items, self._batch_size):
                results += await upsert(batch, now)
        finally:
            if unseen:
                hidden = set(unseen)
                results = [
                    r.model_copy(update={"unseen": True}) if r.node_id in hidden else r
                    for r in results
                ]
            self._publish(results, now)  # batches committed before a failure are still news
        return results

    # -- notifications ---------------------------------------------------------------------

    @property
    def pending_notifications(self) -> int:
        """Writes whose listeners have not all been called yet."""
        return len(self._changes)

    def _publish(self, results: Sequence[WriteResult], now: str) -> None:
        changed = [r for r in results if r.outcome is not WriteOutcome.UNCHANGED]
        if not changed or not self._listeners:
            return
        self._changes.append((changed, now))
        loop = asyncio.get_running_loop()
        if self._delivery is None or self._delivery.done() or self._delivery.get_loop() is not loop:
            self._delivery = loop.create_task(self._deliver(), name="graph-change-listeners")

    async def _deliver(self) -> None:
        # Ends when the queue is empty; _publish starts a new task for the next write.
        while self._changes:
            changed, now = self._changes[0]
            await call_each(
                self._listeners, changed, now, failure="graph_change_listener_failed", at=now
            )
            self._changes.popleft()

    async def drain(self) -> None:
        """Wait until every listener has been called for every write made so far."""
        loop = asyncio.get_running_loop()
        while self._delivery is not None and not self._delivery.done():
            if self._delivery.get_loop() is not loop:
                return  # left behind by a loop that has ended; _publish starts a new one
            # Shielded: a caller that gives up waiting must not cancel the delivery itself.
            await asyncio.shield(self._delivery)

    async def aclose(self, timeout_s: float = 10.0) -> None:
        """Refuse further writes, and give listeners ``timeout_s`` to catch up with the
        writes made so far; what they have not seen by then is dropped (and logged)."""
        self._closed = True
        try:
            async with asyncio.timeout(timeout_s):
                await self.drain()
        except TimeoutError:
            log.warning("graph_change_listeners_abandoned", pending=len(self._changes))
            if self._delivery is not None:
                self._delivery.cancel()
                await asyncio.gather(self._delivery, return_exceptions=True)
            self._changes.clear()
