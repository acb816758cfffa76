"""The ingestion job queue in a local SQLite file: durable without Redis (the embedded default).

One table, one row per concept id (so enqueue deduplicates per concept):

- ``state`` is ``waiting`` (due at ``due_at``: now, or after a back-off), ``claimed`` (by
  ``consumer`` at ``claimed_at``) or ``dead`` (after ``max_attempts``, with the last error);
- a job is done when acked: its row is deleted, and a new job for the concept may be queued;
- ``claim`` first takes back jobs claimed longer than ``claim_idle_s`` ago (their worker died;
  each take-back counts as an attempt, so a job that kills its workers ends dead), then the due
  waiting ones, oldest first, in one ``BEGIN IMMEDIATE`` transaction (one claimer at a time,
  across processes).

The file survives restarts: a job queued before a crash is still there after it. SQLite calls
run in a worker thread, like the conversation store's.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final, TypeVar

from engine.ingestion.queue import IngestionJob, JobDelivery, QueueStats
from infra.lifetime import Lifetime

__all__ = ["SqliteIngestionQueue"]

_T = TypeVar("_T")
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS ingestion_jobs (
    concept_id TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('waiting', 'claimed', 'dead')),
    attempt INTEGER NOT NULL,
    due_at REAL NOT NULL,
    claimed_at REAL,
    consumer TEXT,
    error TEXT,
    seq INTEGER NOT NULL
)
"""


class SqliteIngestionQueue:
    def __init__(
        self,
        path: Path,
        *,
        max_attempts: int = 5,
        backoff_s: float = 2.0,
        claim_idle_s: float = 60.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self.max_attempts = max_attempts
        self.backoff_s = backoff_s
        self.claim_idle_s = claim_idle_s
        self._clock = clock
        self._lifetime = Lifetime("the SQLite ingestion queue")
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        return db

    async def aclose(self) -> None:
        """Every call after this raises ``errors.AdapterClosed`` (each call opens its own
        connection: nothing else to release)."""
        self._lifetime.close()

    async def _run(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        self._lifetime.check()

        def call() -> _T:
            db = self._connect()
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    result = work(db)
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
                return result
            finally:
                db.close()

        return await asyncio.to_thread(call)

    async def enqueue(self, job: IngestionJob) -> bool:
        now = self._clock()

        def work(db: sqlite3.Connection) -> bool:
            cursor = db.execute(
                "INSERT INTO ingestion_jobs (concept_id, reason, state, attempt, due_at, seq) "
                "VALUES (?, ?, 'waiting', 1, ?, "
                "(SELECT COALESCE(MAX(seq), 0) + 1 FROM ingestion_jobs)) "
                "ON CONFLICT (concept_id) DO NOTHING",
                (job.concept_id, job.reason, now),
            )
            return cursor.rowcount == 1

        return await self._run(work)

    async def claim(self, consumer: str, count: int = 1) -> list[JobDelivery]:
        now = self._clock()

        def work(db: sqlite3.Connection) -> list[JobDelivery]:
            out: list[JobDelivery] = []
            stale = db.execute(
                "SELECT concept_id, reason, attempt FROM ingestion_jobs WHERE state = 'claimed' "
                "AND claimed_at <= ? ORDER BY seq LIMIT ?",
                (now - self.claim_idle_s, count),
            ).fetchall()
            for concept_id, reason, attempt in stale:
                if attempt + 1 > self.max_attempts:
                    self._bury(db, concept_id, "worker died on every attempt")
                    continue
                out.append(self._hand_out(db, concept_id, reason, attempt + 1, consumer, now))
            due = db.execute(
                "SELECT concept_id, reason, attempt FROM ingestion_jobs WHERE state = 'waiting' "
                "AND due_at <= ? ORDER BY seq LIMIT ?",
                (now, count - len(out)),
            ).fetchall()
            for concept_id, reason, attempt in due:
                out.append(self._hand_out(db, concept_id, reason, attempt, consumer, now))
            return out

        return await self._run(work)

    @staticmethod
    def _hand_out(
        db: sqlite3.Connection, concept_id: str, reason: str, attempt: int, who: str, now: float
    ) -> JobDelivery:
        db.execute(
            "UPDATE ingestion_jobs SET state = 'claimed', attempt = ?, claimed_at = ?, "
            "consumer = ? WHERE concept_id = ?",
            (attempt, now, who, concept_id),
        )
        return JobDelivery(f"{concept_id}#{attempt}", IngestionJob(concept_id, reason), attempt)

    @staticmethod
    def _bury(db: sqlite3.Connection, concept_id: str, error: str) -> None:
        db.execute(
            "UPDATE ingestion_jobs SET state = 'dead', error = ?, consumer = NULL "
            "WHERE concept_id = ?",
            (error[:500], concept_id),
        )

    async def ack(self, delivery: JobDelivery) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "DELETE FROM ingestion_jobs WHERE concept_id = ? AND state = 'claimed' "
                "AND attempt = ?",
                (delivery.job.concept_id, delivery.attempt),
            )

        await self._run(work)

    async def fail(self, delivery: JobDelivery, error: str) -> None:
        now = self._clock()

        def work(db: sqlite3.Connection) -> None:
            row = db.execute(
                "SELECT attempt FROM ingestion_jobs WHERE concept_id = ? AND state = 'claimed'",
                (delivery.job.concept_id,),
            ).fetchone()
            if row is None or row[0] != delivery.attempt:
                return  # taken back by another worker meanwhile: theirs now
            if delivery.attempt >= self.max_attempts:
                self._bury(db, delivery.job.concept_id, error)
                return
            db.execute(
                "UPDATE ingestion_jobs SET state = 'waiting', attempt = ?, due_at = ?, "
                "claimed_at = NULL, consumer = NULL, error = ? WHERE concept_id = ?",
                (
                    delivery.attempt + 1,
                    now + self.backoff_s * 2 ** (delivery.attempt - 1),
                    error[:500],
                    delivery.job.concept_id,
                ),
            )

        await self._run(work)

    async def stats(self) -> QueueStats:
        now = self._clock()

        def work(db: sqlite3.Connection) -> QueueStats:
            count = {
                key: n
                for key, n in db.execute(
                    "SELECT CASE WHEN state = 'waiting' AND due_at > ? THEN 'delayed' "
                    "ELSE state END, COUNT(*) FROM ingestion_jobs GROUP BY 1",
                    (now,),
                )
            }
            return QueueStats(
                count.get("waiting", 0),
                count.get("claimed", 0),
                count.get("delayed", 0),
                count.get("dead", 0),
            )

        return await self._run(work)

    async def dead_letters(self, limit: int = 100) -> list[tuple[IngestionJob, str]]:
        def work(db: sqlite3.Connection) -> list[tuple[IngestionJob, str]]:
            rows = db.execute(
                "SELECT concept_id, reason, error FROM ingestion_jobs WHERE state = 'dead' "
                "ORDER BY seq DESC LIMIT ?",
                (limit,),
            ).fetchall()
            return [(IngestionJob(c, r), e or "") for c, r, e in rows]

        return await self._run(work)
