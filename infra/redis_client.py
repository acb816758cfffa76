"""One ``redis.asyncio`` client per process, built from ``REGINTEL_REDIS_URL``.

The bus, the rate limiter and the job queue share it (a connection pool). Short socket and
connect timeouts: a Redis that does not answer must cost a request milliseconds, not the
driver's default of never. Keys are ``<prefix>:<what>:…``; whatever is per tenant carries the
tenant in the key (docs/architecture.md, "Invariants").
"""

from __future__ import annotations

from redis.asyncio import Redis

__all__ = ["connect_redis"]


def connect_redis(url: str, timeout_s: float = 2.0) -> Redis:
    """A client on ``url``; nothing connects until the first command."""
    return Redis.from_url(
        url,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        health_check_interval=15,
        retry_on_timeout=False,
    )
