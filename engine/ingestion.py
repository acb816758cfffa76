"""The auto-ingestion gate's queue: jobs to enrich a concept that is missing or sparse.

In-process by default; Redis Streams with consumer groups in production (a later adapter of
the same port). Jobs name a concept id and a reason, nothing from the chat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

__all__ = [
    "InMemoryIngestionQueue",
    "IngestionJob",
    "IngestionQueue",
]


@dataclass(frozen=True)
class IngestionJob:
    concept_id: str
    reason: str  # "missing" | "sparse"


class IngestionQueue(Protocol):
    async def enqueue(self, job: IngestionJob) -> bool:
        """Queue the job unless one for the same concept is already waiting."""
        ...


@dataclass
class InMemoryIngestionQueue:
    """Bounded, deduplicated by concept id. Nothing consumes it yet: ingestion workers (Redis
    Streams in production) are future work, so jobs past ``limit`` are dropped, oldest first."""

    limit: int = 1000
    jobs: list[IngestionJob] = field(default_factory=list)
    _queued: set[str] = field(default_factory=set)

    async def enqueue(self, job: IngestionJob) -> bool:
        if job.concept_id in self._queued:
            return False
        self.jobs.append(job)
        self._queued.add(job.concept_id)
        while len(self.jobs) > self.limit:
            self._queued.discard(self.jobs.pop(0).concept_id)
        return True
