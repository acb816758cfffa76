"""The auto-ingestion gate's queue: jobs to enrich a concept that is missing or sparse.

Two halves. Producers (self-population) only ``enqueue``. Ingestion workers ``claim`` jobs,
then ``ack`` one that is done or ``fail`` one that is not: a failed job is retried after a
back-off that doubles from ``backoff_s``, and lands in the dead-letter list after
``max_attempts`` tries. A job whose worker dies before acking is claimed again by another worker
once it has been idle ``claim_idle_s`` (and counts as a try, so a job that kills its workers ends
dead-lettered too). Jobs name a concept id and a reason, nothing from the chat.

:class:`InMemoryIngestionQueue` lives in one process and is lost on restart (tests, fakes);
the durable ones are ``engine.ingestion.sqlite_queue`` (one machine) and
``engine.ingestion.redis_queue`` (Redis Streams, consumer groups, ``XAUTOCLAIM``), for
ingestion workers in their own processes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from infra.lifetime import Lifetime

__all__ = [
    "InMemoryIngestionQueue",
    "IngestionJob",
    "IngestionQueue",
    "IngestionWorkQueue",
    "JobDelivery",
    "QueueStats",
]


@dataclass(frozen=True)
class IngestionJob:
    concept_id: str
    reason: str  # "missing" | "sparse"


@dataclass(frozen=True)
class JobDelivery:
    """One job handed to one worker: ``id`` is what ``ack`` and ``fail`` name."""

    id: str
    job: IngestionJob
    attempt: int


@dataclass(frozen=True)
class QueueStats:
    waiting: int
    in_progress: int
    delayed: int
    dead: int


class IngestionQueue(Protocol):
    async def enqueue(self, job: IngestionJob) -> bool:
        """Queue the job unless one for the same concept is already waiting."""
        ...

    async def aclose(self) -> None:
        """Refuse every later call with ``errors.AdapterClosed`` (idempotent)."""
        ...


@runtime_checkable
class IngestionWorkQueue(IngestionQueue, Protocol):
    async def claim(self, consumer: str, count: int = 1) -> list[JobDelivery]:
        """Jobs for this worker: stale ones of dead workers first, then new ones."""
        ...

    async def ack(self, delivery: JobDelivery) -> None: ...

    async def fail(self, delivery: JobDelivery, error: str) -> None:
        """Retry later (back-off), or dead-letter after the last attempt."""
        ...

    async def stats(self) -> QueueStats: ...

    async def dead_letters(self, limit: int = 100) -> list[tuple[IngestionJob, str]]: ...


@dataclass
class InMemoryIngestionQueue:
    """Bounded (jobs past ``limit`` are dropped, oldest first), deduplicated by concept id."""

    limit: int = 1000
    max_attempts: int = 5
    backoff_s: float = 2.0
    claim_idle_s: float = 60.0
    clock: Callable[[], float] = time.monotonic
    jobs: list[IngestionJob] = field(default_factory=list)
    _queued: set[str] = field(default_factory=set)
    _delayed: list[tuple[float, IngestionJob, int]] = field(default_factory=list)
    _claimed: dict[str, tuple[float, JobDelivery]] = field(default_factory=dict)
    _dead: list[tuple[IngestionJob, str]] = field(default_factory=list)
    _attempts: dict[str, int] = field(default_factory=dict)
    _ids: int = 0
    _lifetime: Lifetime = field(default_factory=lambda: Lifetime("the in-memory ingestion queue"))

    async def aclose(self) -> None:
        self._lifetime.close()

    async def enqueue(self, job: IngestionJob) -> bool:
        self._lifetime.check()
        if job.concept_id in self._queued:
            return False
        self.jobs.append(job)
        self._queued.add(job.concept_id)
        while len(self.jobs) > self.limit:
            self._queued.discard(self.jobs.pop(0).concept_id)
        return True

    async def claim(self, consumer: str, count: int = 1) -> list[JobDelivery]:
        self._lifetime.check()
        now = self.clock()
        due = [d for d in self._delayed if d[0] <= now]
        self._delayed = [d for d in self._delayed if d[0] > now]
        for _, job, attempt in due:
            self.jobs.append(job)
            self._attempts[job.concept_id] = attempt
        out: list[JobDelivery] = []
        for delivery_id, (at, delivery) in list(self._claimed.items()):
            if len(out) < count and now - at >= self.claim_idle_s:
                again = JobDelivery(delivery_id, delivery.job, delivery.attempt + 1)
                if again.attempt > self.max_attempts:
                    del self._claimed[delivery_id]
                    self._bury(delivery.job, "worker died on every attempt")
                    continue
                self._claimed[delivery_id] = (now, again)
                out.append(again)
        while self.jobs and len(out) < count:
            job = self.jobs.pop(0)
            self._ids += 1
            delivery = JobDelivery(str(self._ids), job, self._attempts.pop(job.concept_id, 1))
            self._claimed[delivery.id] = (now, delivery)
            out.append(delivery)
        return out

    async def ack(self, delivery: JobDelivery) -> None:
        self._lifetime.check()
        if self._claimed.pop(delivery.id, None) is not None:
            self._queued.discard(delivery.job.concept_id)

    async def fail(self, delivery: JobDelivery, error: str) -> None:
        self._lifetime.check()
        if self._claimed.pop(delivery.id, None) is None:
            return
        if delivery.attempt >= self.max_attempts:
            self._bury(delivery.job, error)
            return
        due = self.clock() + self.backoff_s * 2 ** (delivery.attempt - 1)
        self._delayed.append((due, delivery.job, delivery.attempt + 1))

    def _bury(self, job: IngestionJob, error: str) -> None:
        self._queued.discard(job.concept_id)
        self._dead.append((job, error))

    async def stats(self) -> QueueStats:
        self._lifetime.check()
        return QueueStats(len(self.jobs), len(self._claimed), len(self._delayed), len(self._dead))

    async def dead_letters(self, limit: int = 100) -> list[tuple[IngestionJob, str]]:
        self._lifetime.check()
        return self._dead[-limit:]
