"""Auto-ingestion: the job queue port, its adapters and the worker that enriches concepts.

Self-population enqueues a job for a concept that is missing or sparse (``queue``: the port and
the in-memory queue); ``sqlite_queue`` and ``redis_queue`` are the durable queues (ADR 0026);
``worker`` claims jobs and writes what it found. The package face hands on the port only, so
importing it pulls in neither Redis nor SQLite.
"""

from engine.ingestion.queue import (
    IngestionJob,
    IngestionQueue,
    IngestionWorkQueue,
    InMemoryIngestionQueue,
    JobDelivery,
    QueueStats,
)

__all__ = [
    "InMemoryIngestionQueue",
    "IngestionJob",
    "IngestionQueue",
    "IngestionWorkQueue",
    "JobDelivery",
    "QueueStats",
]
