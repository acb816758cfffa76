"""The auto-ingestion gate's queue: jobs to enrich a concept that is missing or sparse.

In-process by default; Redis Streams with consumer groups in production (a later adapter of
the same port). Jobs name a concept id and a reason, nothing from the chat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


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
    jobs: list[IngestionJob] = field(default_factory=list)

    async def enqueue(self, job: IngestionJob) -> bool:
        if any(waiting.concept_id == job.concept_id for waiting in self.jobs):
            return False
        self.jobs.append(job)
        return True
