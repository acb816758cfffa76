"""Retry of self-population writes that failed because the graph was unavailable.

A chat turn never fails because the graph is slow or down: it finishes with a warning and the
captured concepts are handed here, to be written again with exponential back-off (tenacity).
Writes are idempotent upserts, so retrying is always safe. Rejections by the ingress guard
are final and are not retried. Deferred captures are kept in a :class:`GraphOutbox` until they
land, so neither giving up after the last attempt nor a restart loses them: ``resume`` retries
what the outbox still holds (at start-up), and :meth:`GraphWriteRetry.start_schedule` retries,
every ``interval`` seconds, each capture whose attempts ran out (``exhausted``) — a graph that
comes back after the last attempt gets its writes without waiting for a restart. ``/health``
reports both counts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import structlog
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from engine.concepts import CapturedConcept
from engine.graph_outbox import Deferred, GraphOutbox
from engine.self_population import ResolvedConcept, SelfPopulation
from errors import GraphWriteRejected, StoreUnavailable
from graph.ingress_guard import id_digest
from infra.lifetime import Lifetime

__all__ = ["GraphWriteRetry"]

log = structlog.get_logger(__name__)


class GraphWriteRetry:
    def __init__(
        self,
        population: SelfPopulation,
        outbox: GraphOutbox | None = None,
        *,
        attempts: int = 6,
        first_delay: float = 1.0,
        max_delay: float = 60.0,
    ) -> None:
        self._population = population
        self._outbox = outbox if outbox is not None else GraphOutbox()
        self._attempts = attempts
        self._first_delay = first_delay
        self._max_delay = max_delay
        self._tasks: set[asyncio.Task[None]] = set()
        self._retrying: set[str] = set()  # outbox entries with a retry under way
        self._persisting: set[asyncio.Future[str]] = set()
        self._schedule_task: asyncio.Task[None] | None = None
        self._lifetime = Lifetime("the graph write retry")
        self.completed = 0
        self.abandoned = 0

    @property
    def pending(self) -> int:
        """Captures not written yet: being retried, or waiting for the next round."""
        return len(self._outbox)

    @property
    def exhausted(self) -> int:
        """Captures whose attempts ran out, waiting in the outbox for the next round."""
        return sum(entry_id not in self._retrying for entry_id, _ in self._outbox.pending())

    def on_population_done(
        self,
        task: asyncio.Task[list[ResolvedConcept]],
        concepts: Sequence[CapturedConcept],
        jurisdictions: Sequence[str] | None = None,
    ) -> None:
        """A turn's capture ended; one the graph was down for is kept and retried, with the
        jurisdictions the turn knew (``None``: not checked)."""
        if task.cancelled() or not isinstance(task.exception(), StoreUnavailable):
            return
        try:
            self._population.screen(concepts)  # the outbox keeps only what the guard accepts
        except GraphWriteRejected as exc:
            log.warning("graph_write_dropped", code=exc.code, concepts=_digests(concepts))
            return
        log.warning("graph_write_deferred", concepts=[c.id for c in concepts])
        known = None if jurisdictions is None else tuple(jurisdictions)
        deferred = Deferred(list(concepts), known)
        persist = asyncio.ensure_future(self._outbox.add(deferred.concepts, known))
        self._persisting.add(persist)
        persist.add_done_callback(self._persisting.discard)
        persist.add_done_callback(lambda done: self._persisted(done, deferred))

    def _persisted(self, done: asyncio.Future[str], deferred: Deferred) -> None:
        if done.cancelled() or done.exception() is not None:
            log.error("graph_outbox_write_failed", concepts=[c.id for c in deferred.concepts])
            return
        self._schedule(done.result(), deferred)

    def resume(self) -> int:
        """Retry every capture the outbox holds that is not being retried (at start-up, and
        on every round of the schedule); how many were started."""
        self._lifetime.check()
        started = 0
        for entry_id, deferred in self._outbox.pending():
            if entry_id not in self._retrying:
                self._schedule(entry_id, deferred)
                started += 1
        return started

    def start_schedule(self, interval: float) -> None:
        """Every ``interval`` seconds, retry the captures whose attempts ran out."""
        self._lifetime.check()
        if self._schedule_task is None:
            loop = asyncio.get_running_loop()
            self._schedule_task = loop.create_task(self._every(interval))

    async def _every(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            if started := self.resume():
                log.info("graph_writes_rescheduled", captures=started)

    def _schedule(self, entry_id: str, deferred: Deferred) -> None:
        if self._lifetime.closed:
            return  # it is in the outbox: the next start-up retries it
        self._retrying.add(entry_id)
        retry = asyncio.get_running_loop().create_task(self._retry(entry_id, deferred))
        self._tasks.add(retry)
        retry.add_done_callback(self._tasks.discard)
        retry.add_done_callback(lambda _: self._retrying.discard(entry_id))

    async def _retry(self, entry_id: str, deferred: Deferred) -> None:
        concepts = deferred.concepts
        try:
            async for attempt in AsyncRetrying(
                retry=retry_if_exception_type(StoreUnavailable),
                wait=wait_exponential(multiplier=self._first_delay, max=self._max_delay),
                stop=stop_after_attempt(self._attempts),
                reraise=True,
            ):
                with attempt:
                    await self._population.resolve_all(concepts, deferred.jurisdictions)
            await self._outbox.done(entry_id)
            self.completed += 1
            log.info("graph_write_recovered", concepts=[c.id for c in concepts])
        except GraphWriteRejected as exc:  # final: retrying cannot change the verdict
            await self._outbox.done(entry_id)
            log.warning("graph_write_dropped", code=exc.code, concepts=_digests(concepts))
        except Exception:
            self.abandoned += 1  # still in the outbox: the next round of the schedule retries
            log.exception("graph_write_postponed", concepts=[c.id for c in concepts])

    async def aclose(self) -> None:
        """Finish writing deferred captures to the outbox, then stop retrying (they stay
        there for the next start-up). Afterwards :meth:`resume` and :meth:`start_schedule`
        raise :class:`errors.AdapterClosed`; a capture that still ends badly is kept in the
        outbox (:meth:`on_population_done`), never lost."""
        self._lifetime.close()
        if self._schedule_task is not None:
            self._schedule_task.cancel()
            await asyncio.gather(self._schedule_task, return_exceptions=True)
        await asyncio.gather(*self._persisting, return_exceptions=True)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def _digests(concepts: Sequence[CapturedConcept]) -> list[str]:
    """Concepts the guard rejected, named without their ids (an id may carry the value)."""
    return [id_digest(c.id) for c in concepts]
