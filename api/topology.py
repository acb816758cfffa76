"""The parts that make several API workers one system, built from settings for the composition
root: the Redis client, the graph event bus, the rate limiter and the ingestion job queue.

With ``REGINTEL_REDIS_URL`` unset every part is its in-process default (one worker, ``make
demo``); with it set they share Redis (ADR 0026, 0027, 0028). Nothing connects here: the first
command does, and every Redis adapter survives Redis being away (see each adapter).
"""

from __future__ import annotations

from redis.asyncio import Redis

from api.settings import Settings
from engine.ingestion import IngestionWorkQueue
from engine.ingestion.redis_queue import RedisIngestionQueue
from engine.ingestion.sqlite_queue import SqliteIngestionQueue
from graph.bus import GraphBus, InProcessGraphBus
from graph.bus_redis import RedisGraphBus
from infra.metrics import Metrics
from infra.rate_limit import BucketLimits, InProcessRateLimiter, RateLimiter, RedisRateLimiter
from infra.redis_client import connect_redis

__all__ = ["build_bus", "build_ingestion_queue", "build_rate_limiter", "build_redis"]


def build_redis(settings: Settings) -> Redis | None:
    if not settings.redis_url:
        return None
    return connect_redis(settings.redis_url.get_secret_value(), settings.redis_timeout_seconds)


def build_bus(settings: Settings, redis: Redis | None) -> GraphBus:
    if redis is None:
        return InProcessGraphBus()
    return RedisGraphBus(redis, settings.redis_prefix)


def _limits(settings: Settings) -> BucketLimits:
    return BucketLimits(
        tenant_per_minute=settings.rate_limit_tenant_per_minute,
        user_per_minute=settings.rate_limit_user_per_minute,
        burst_seconds=settings.rate_limit_burst_seconds,
    )


def build_rate_limiter(settings: Settings, redis: Redis | None, metrics: Metrics) -> RateLimiter:
    if redis is None:
        return InProcessRateLimiter(_limits(settings))
    return RedisRateLimiter(
        redis,
        settings.redis_prefix,
        _limits(settings),
        when_down=settings.rate_limit_when_redis_down,
        on_unavailable=metrics.rate_limiter_unavailable.inc,
    )


def build_ingestion_queue(settings: Settings, redis: Redis | None) -> IngestionWorkQueue:
    if redis is None:  # durable without Redis: a SQLite file beside the embedded stores
        return SqliteIngestionQueue(
            settings.data_dir / "ingestion_jobs.db",
            max_attempts=settings.job_max_attempts,
            backoff_s=settings.job_backoff_seconds,
            claim_idle_s=settings.job_claim_idle_seconds,
        )
    return RedisIngestionQueue(
        redis,
        settings.redis_prefix,
        max_attempts=settings.job_max_attempts,
        backoff_s=settings.job_backoff_seconds,
        claim_idle_s=settings.job_claim_idle_seconds,
    )
