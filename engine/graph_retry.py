"""Retry of self-population writes that failed because the graph was unavailable.

A chat turn never fails because the graph is slow or down: it finishes with a warning and the
captured concepts are handed here, to be written again with exponential back-off (tenacity).
Writes are idempotent upserts, so retrying is always safe. Rejections by the ingress guard
are final and are not retried. Deferred captures are kept in a :class:`GraphOutbox` until they
land, so neither giving up after the last attempt nor a restart loses them: ``resume`` retries
what the outbox still holds (at start-up).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import structlog
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from engine.concepts import CapturedConcept
from engine.graph_outbox import GraphOutbox
from engine.self_population import ResolvedConcept, SelfPopulation
from errors import GraphWriteRejected, StoreUnavailable

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
        self._persisting: set[asyncio.Future[str]] = set()
        self._closing = False
        self.completed = 0
        self.abandoned = 0

    @property
    def pending(self) -> int:
        return len(self._tasks)

    def on_population_done(
        self, task: asyncio.Task[list[ResolvedConcept]], concepts: Sequence[CapturedConcept]
    ) -> None:
        if task.cancelled() or not isinstance(task.exception(), StoreUnavailable):
            return
        try:
            self._population.screen(concepts)  # the outbox keeps only what the guard accepts
        except GraphWriteRejected as exc:
            log.warning("graph_write_dropped", code=exc.code, concepts=[c.id for c in concepts])
            return
        log.warning("graph_write_deferred", concepts=[c.id for c in concepts])
        persist = asyncio.ensure_future(self._outbox.add(list(concepts)))
        self._persisting.add(persist)
        persist.add_done_callback(self._persisting.discard)
        persist.add_done_callback(lambda done: self._persisted(done, list(concepts)))

    def _persisted(self, done: asyncio.Future[str], concepts: list[CapturedConcept]) -> None:
        if done.cancelled() or done.exception() is not None:
            log.error("graph_outbox_write_failed", concepts=[c.id for c in concepts])
            return
        self._schedule(done.result(), concepts)

    def resume(self) -> int:
        """Retry every capture the outbox still holds (call once at start-up)."""
        pending = self._outbox.pending()
        for entry_id, concepts in pending:
            self._schedule(entry_id, concepts)
        return len(pending)

    def _schedule(self, entry_id: str, concepts: list[CapturedConcept]) -> None:
        if self._closing:
            return  # it is in the outbox: the next start-up retries it
        retry = asyncio.get_running_loop().create_task(self._retry(entry_id, concepts))
        self._tasks.add(retry)
        retry.add_done_callback(self._tasks.discard)

    async def _retry(self, entry_id: str, concepts: list[CapturedConcept]) -> None:
        try:
            async for attempt in AsyncRetrying(
                retry=retry_if_exception_type(StoreUnavailable),
                wait=wait_exponential(multiplier=self._first_delay, max=self._max_delay),
                stop=stop_after_attempt(self._attempts),
                reraise=True,
            ):
                with attempt:
                    await self._population.resolve_all(concepts)
            await self._outbox.done(entry_id)
            self.completed += 1
            log.info("graph_write_recovered", concepts=[c.id for c in concepts])
        except GraphWriteRejected as exc:  # final: retrying cannot change the verdict
            await self._outbox.done(entry_id)
            log.warning("graph_write_dropped", code=exc.code, concepts=[c.id for c in concepts])
        except Exception:
            self.abandoned += 1  # still in the outbox: the next start-up tries again
            log.exception("graph_write_postponed", concepts=[c.id for c in concepts])

    async def aclose(self) -> None:
        """Finish writing deferred captures to the outbox, then stop retrying (they stay
        there for the next start-up)."""
        self._closing = True
        await asyncio.gather(*self._persisting, return_exceptions=True)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
