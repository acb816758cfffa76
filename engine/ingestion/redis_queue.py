"""The ingestion job queue on Redis Streams, with one consumer group for every ingestion worker.

Keys (``<prefix>:jobs:ingestion`` is ``Q``):

- ``Q`` the stream of jobs (fields ``concept_id``, ``reason``, ``attempt``), read by the group
  ``workers`` with ``XREADGROUP``; a job is done when acked (``XACK`` + ``XDEL``);
- ``Q:queued`` the set of concept ids waiting or in progress (enqueue deduplicates on it);
- ``Q:delayed`` a sorted set of failed jobs waiting out their back-off (score: due time in ms),
  moved back to the stream by the next ``claim`` once due (one Lua script, atomic);
- ``Q:dead`` the dead-letter stream (the job, its attempts and the last error).

A worker that dies holds its jobs in the group's pending list; ``claim`` first takes over
those idle longer than ``claim_idle_s`` (``XAUTOCLAIM``), each such take-over counting as one
attempt (``XPENDING`` delivery count), so a poison job that kills every worker still ends in
the dead-letter stream after ``max_attempts``.
"""

from __future__ import annotations

import json
import time
from typing import Any

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError, ResponseError

from engine.ingestion.queue import IngestionJob, JobDelivery, QueueStats
from errors import StoreUnavailable
from infra.lifetime import Lifetime

__all__ = ["ENQUEUE_LUA", "GROUP", "PROMOTE_LUA", "RedisIngestionQueue"]

GROUP = "workers"

log = structlog.get_logger(__name__)

ENQUEUE_LUA = """
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('XADD', KEYS[1], '*', 'concept_id', ARGV[1], 'reason', ARGV[2], 'attempt', '1')
return 1
"""

PROMOTE_LUA = """
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 100)
for _, item in ipairs(due) do
  local job = cjson.decode(item)
  redis.call('XADD', KEYS[1], '*', 'concept_id', job.concept_id, 'reason', job.reason,
             'attempt', tostring(job.attempt))
  redis.call('ZREM', KEYS[2], item)
end
return #due
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisIngestionQueue:
    def __init__(
        self,
        client: Redis,
        prefix: str,
        *,
        max_attempts: int = 5,
        backoff_s: float = 2.0,
        claim_idle_s: float = 60.0,
    ) -> None:
        self._client = client
        self.stream = f"{prefix}:jobs:ingestion"
        self._queued = f"{self.stream}:queued"
        self._delayed = f"{self.stream}:delayed"
        self.dead_stream = f"{self.stream}:dead"
        self.max_attempts = max_attempts
        self.backoff_s = backoff_s
        self.claim_idle_ms = int(claim_idle_s * 1000)
        self._enqueue = client.register_script(ENQUEUE_LUA)
        self._promote = client.register_script(PROMOTE_LUA)
        self._group_ready = False
        self._lifetime = Lifetime("the Redis ingestion queue")

    async def aclose(self) -> None:
        """Every call after this raises ``errors.AdapterClosed``; the Redis client is the
        topology's, closed by it."""
        self._lifetime.close()

    async def _group(self) -> None:
        self._lifetime.check()
        if self._group_ready:
            return
        try:
            await self._client.xgroup_create(self.stream, GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._group_ready = True

    async def enqueue(self, job: IngestionJob) -> bool:
        """False when a job for the concept waits already, or when Redis does not answer: a
        turn never fails for the gate, which asks again the next time it meets the concept."""
        try:
            await self._group()
            keys = [self.stream, self._queued]
            return bool(await self._enqueue(keys=keys, args=[job.concept_id, job.reason]))
        except (RedisError, OSError) as exc:
            log.warning("ingestion_enqueue_failed", error=type(exc).__name__)
            return False

    async def claim(self, consumer: str, count: int = 1) -> list[JobDelivery]:
        try:
            await self._group()
            now_ms = int(time.time() * 1000)
            await self._promote(keys=[self.stream, self._delayed], args=[now_ms])
            out = await self._reclaim(consumer, count)
            if len(out) < count:
                read: Any = await self._client.xreadgroup(
                    GROUP, consumer, {self.stream: ">"}, count=count - len(out)
                )
                for _, entries in read or []:
                    out += [self._delivery(i, f, 0) for i, f in entries if f]
            return out
        except (RedisError, OSError) as exc:
            raise StoreUnavailable("the job queue (Redis) does not answer") from exc

    async def _reclaim(self, consumer: str, count: int) -> list[JobDelivery]:
        reply = await self._client.xautoclaim(
            self.stream, GROUP, consumer, min_idle_time=self.claim_idle_ms, count=count
        )
        out = []
        for entry_id, fields in reply[1]:
            if not fields:  # deleted meanwhile
                continue
            pending = await self._client.xpending_range(
                self.stream, GROUP, min=entry_id, max=entry_id, count=1
            )
            extra = int(pending[0]["times_delivered"]) - 1 if pending else 1
            delivery = self._delivery(entry_id, fields, extra)
            if delivery.attempt > self.max_attempts:
                await self._bury(delivery, "its worker died on every attempt")
                continue
            out.append(delivery)
        return out

    @staticmethod
    def _delivery(entry_id: Any, fields: dict[Any, Any], extra: int) -> JobDelivery:
        data = {_text(k): _text(v) for k, v in fields.items()}
        job = IngestionJob(data["concept_id"], data["reason"])
        return JobDelivery(_text(entry_id), job, int(data.get("attempt", "1")) + extra)

    async def ack(self, delivery: JobDelivery) -> None:
        self._lifetime.check()
        try:
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.xack(self.stream, GROUP, delivery.id)
                pipe.xdel(self.stream, delivery.id)
                pipe.srem(self._queued, delivery.job.concept_id)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable("the job queue (Redis) does not answer") from exc

    async def fail(self, delivery: JobDelivery, error: str) -> None:
        self._lifetime.check()
        try:
            if delivery.attempt >= self.max_attempts:
                await self._bury(delivery, error)
                return
            due_ms = int((time.time() + self.backoff_s * 2 ** (delivery.attempt - 1)) * 1000)
            job, attempt = delivery.job, delivery.attempt + 1
            item = json.dumps(
                {"concept_id": job.concept_id, "reason": job.reason, "attempt": attempt}
            )
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.zadd(self._delayed, {item: due_ms})
                pipe.xack(self.stream, GROUP, delivery.id)
                pipe.xdel(self.stream, delivery.id)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable("the job queue (Redis) does not answer") from exc

    async def _bury(self, delivery: JobDelivery, error: str) -> None:
        async with self._client.pipeline(transaction=True) as pipe:
            pipe.xadd(
                self.dead_stream,
                {
                    "concept_id": delivery.job.concept_id,
                    "reason": delivery.job.reason,
                    "attempts": str(delivery.attempt),
                    "error": error[:500],
                },
            )
            pipe.xack(self.stream, GROUP, delivery.id)
            pipe.xdel(self.stream, delivery.id)
            pipe.srem(self._queued, delivery.job.concept_id)
            await pipe.execute()

    async def stats(self) -> QueueStats:
        try:
            await self._group()
            summary = await self._client.xpending(self.stream, GROUP)
            in_progress = int(summary["pending"])
            total = int(await self._client.xlen(self.stream))
            delayed = int(await self._client.zcard(self._delayed))
            dead = int(await self._client.xlen(self.dead_stream))
        except (RedisError, OSError) as exc:
            raise StoreUnavailable("the job queue (Redis) does not answer") from exc
        return QueueStats(total - in_progress, in_progress, delayed, dead)

    async def dead_letters(self, limit: int = 100) -> list[tuple[IngestionJob, str]]:
        self._lifetime.check()
        try:
            entries: Any = await self._client.xrevrange(self.dead_stream, count=limit)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable("the job queue (Redis) does not answer") from exc
        out = []
        for _, fields in reversed(entries):
            data = {_text(k): _text(v) for k, v in fields.items()}
            out.append((IngestionJob(data["concept_id"], data["reason"]), data["error"]))
        return out
