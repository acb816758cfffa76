"""Retry of self-population writes that failed because the graph was unavailable.

A chat turn never fails because the graph is slow or down: it finishes with a warning and the
captured concepts are handed here, to be written again with exponential back-off (tenacity).
Writes are idempotent upserts, so retrying is always safe. Rejections by the ingress guard
are final and are not retried. Pending retries live in memory (this process); a restart drops
them, which is logged — a Redis Streams queue is the production answer (DESIGN.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import structlog
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from engine.concepts import CapturedConcept
from engine.self_population import ResolvedConcept, SelfPopulation
from errors import StoreUnavailable

log = structlog.get_logger(__name__)


class GraphWriteRetry:
    def __init__(
        self,
        population: SelfPopulation,
        *,
        attempts: int = 6,
        first_delay: float = 1.0,
        max_delay: float = 60.0,
    ) -> None:
        self._population = population
        self._attempts = attempts
        self._first_delay = first_delay
        self._max_delay = max_delay
        self._tasks: set[asyncio.Task[None]] = set()
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
        log.warning("graph_write_deferred", concepts=[c.id for c in concepts])
        retry = asyncio.get_running_loop().create_task(self._retry(list(concepts)))
        self._tasks.add(retry)
        retry.add_done_callback(self._tasks.discard)

    async def _retry(self, concepts: list[CapturedConcept]) -> None:
        try:
            async for attempt in AsyncRetrying(
                retry=retry_if_exception_type(StoreUnavailable),
                wait=wait_exponential(multiplier=self._first_delay, max=self._max_delay),
                stop=stop_after_attempt(self._attempts),
                reraise=True,
            ):
                with attempt:
                    await self._population.resolve_all(concepts)
            self.completed += 1
            log.info("graph_write_recovered", concepts=[c.id for c in concepts])
        except Exception:
            self.abandoned += 1
            log.exception("graph_write_abandoned", concepts=[c.id for c in concepts])

    async def aclose(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
