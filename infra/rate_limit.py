"""Per-tenant and per-user rate limits: token buckets, in process or shared through Redis.

A request takes one token from its tenant's bucket and one from its user's, both or neither:
a request refused by one bucket costs the other nothing. Buckets refill continuously
(``per_minute / 60`` tokens a second) up to ``burst_seconds`` worth of tokens.

:class:`RedisRateLimiter` does the whole check-and-take in ONE Lua script, on Redis's own clock
(``TIME``), so every worker shares the buckets and no two requests race between read and
write. Keys: ``<prefix>:rl:t:<tenant>`` and ``<prefix>:rl:u:<tenant>:<user>``, expiring once
full again. When Redis does not answer, ``when_down`` decides: ``open`` lets the request through
(logged and counted in ``rate_limiter_unavailable``), ``closed`` raises
:class:`errors.RateLimiterUnavailable` (503). Never a crash either way.

:class:`InProcessRateLimiter` is the default for one worker (several workers each count alone).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

from errors import RateLimited, RateLimiterUnavailable
from infra.lifetime import Lifetime

__all__ = [
    "TOKEN_BUCKET_LUA",
    "BucketLimits",
    "InProcessRateLimiter",
    "RateLimiter",
    "RedisRateLimiter",
]

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class BucketLimits:
    tenant_per_minute: int = 600
    user_per_minute: int = 120
    burst_seconds: float = 10.0

    def buckets(self) -> list[tuple[str, float, float]]:
        """(scope, tokens per second, capacity) of each bucket that limits anything."""
        out = []
        for scope, per_minute in (("t", self.tenant_per_minute), ("u", self.user_per_minute)):
            if per_minute > 0:
                rate = per_minute / 60.0
                out.append((scope, rate, max(1.0, rate * self.burst_seconds)))
        return out


class RateLimiter(Protocol):
    async def check(self, tenant_id: str, user_id: str) -> None:
        """Take a token for this request or raise :class:`errors.RateLimited`."""
        ...

    async def aclose(self) -> None:
        """Idempotent; a later :meth:`check` raises :class:`errors.AdapterClosed`."""
        ...


def _refused(wait_s: float) -> RateLimited:
    return RateLimited("too many requests; retry later", retry_after=max(1, math.ceil(wait_s)))


@dataclass
class InProcessRateLimiter:
    limits: BucketLimits = field(default_factory=BucketLimits)
    clock: Callable[[], float] = time.monotonic
    _levels: dict[str, tuple[float, float]] = field(default_factory=dict)
    _lifetime: Lifetime = field(
        default_factory=lambda: Lifetime("the in-process rate limiter"), repr=False
    )

    async def check(self, tenant_id: str, user_id: str) -> None:
        self._lifetime.check()
        now = self.clock()
        keys = {"t": f"t:{tenant_id}", "u": f"u:{tenant_id}:{user_id}"}
        levels: list[tuple[str, float]] = []
        wait = 0.0
        for scope, rate, capacity in self.limits.buckets():
            tokens, at = self._levels.get(keys[scope], (capacity, now))
            tokens = min(capacity, tokens + max(0.0, now - at) * rate)
            levels.append((keys[scope], tokens))
            if tokens < 1:
                wait = max(wait, (1 - tokens) / rate)
        for key, tokens in levels:
            self._levels[key] = (tokens - 1 if wait == 0 else tokens, now)
        if wait > 0:
            raise _refused(wait)

    async def aclose(self) -> None:
        self._lifetime.close()


TOKEN_BUCKET_LUA = """
-- KEYS: the buckets; ARGV: per bucket, tokens per millisecond and capacity.
-- All or none: a token is taken from every bucket only when each has one.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local levels = {}
local wait = 0
for i = 1, #KEYS do
  local rate = tonumber(ARGV[2 * i - 1])
  local capacity = tonumber(ARGV[2 * i])
  local stored = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local tokens = tonumber(stored[1]) or capacity
  local at = tonumber(stored[2]) or now
  tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
  levels[i] = tokens
  if tokens < 1 then wait = math.max(wait, (1 - tokens) / rate) end
end
for i = 1, #KEYS do
  local rate = tonumber(ARGV[2 * i - 1])
  local capacity = tonumber(ARGV[2 * i])
  local tokens = levels[i]
  if wait == 0 then tokens = tokens - 1 end
  redis.call('HSET', KEYS[i], 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[i], math.ceil((capacity - tokens) / rate) + 1000)
end
return math.ceil(wait)
"""


class RedisRateLimiter:
    def __init__(
        self,
        client: Redis,
        prefix: str,
        limits: BucketLimits,
        when_down: Literal["open", "closed"] = "open",
        on_unavailable: Callable[[], None] | None = None,
    ) -> None:
        self._client = client
        self._prefix = prefix
        self._limits = limits
        self._when_down = when_down
        self._script = client.register_script(TOKEN_BUCKET_LUA)
        self._on_unavailable = on_unavailable
        self.unavailable = 0
        self._lifetime = Lifetime("the Redis rate limiter")

    async def check(self, tenant_id: str, user_id: str) -> None:
        self._lifetime.check()
        keys, args = [], []
        for scope, rate, capacity in self._limits.buckets():
            owner = tenant_id if scope == "t" else f"{tenant_id}:{user_id}"
            keys.append(f"{self._prefix}:rl:{scope}:{owner}")
            args += [repr(rate / 1000.0), repr(capacity)]
        if not keys:
            return
        try:
            wait_ms = int(await self._script(keys=keys, args=args))
        except (RedisError, OSError) as exc:
            self.unavailable += 1
            if self._on_unavailable is not None:
                self._on_unavailable()
            log.warning("rate_limiter_unavailable", mode=self._when_down, error=type(exc).__name__)
            if self._when_down == "closed":
                raise RateLimiterUnavailable("the rate limiter is unavailable") from exc
            return
        if wait_ms > 0:
            raise _refused(wait_ms / 1000.0)

    async def aclose(self) -> None:
        self._lifetime.close()  # the Redis client is the composition root's to close
