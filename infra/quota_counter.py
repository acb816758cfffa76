"""A tenant's monthly tokens and cost, counted in Redis for the quota check (issue 27, ADR 0050
addendum): one round trip a turn instead of a read of the store's usage ledger, shared by
every API worker.

The store's ledger stays the record (``conversations.port.UsageLedger``); Redis holds a copy of
this month's totals per tenant, ``<prefix>:quota:<tenant>:<YYYY-MM>``, a hash with ``tokens``
and ``cost``:

- :meth:`RedisQuotaCounter.totals` reads it (``None``: not counted yet, or expired);
- :meth:`RedisQuotaCounter.seed` sets it from the ledger's totals only if no worker did since
  (one Lua script), with an expiry (``refresh_seconds``, 300 by default), and returns what it
  holds then;
- :meth:`RedisQuotaCounter.add` adds a call's tokens and cost, only to a copy that exists (one
  Lua script: a usage recorded while no copy exists is in the ledger, which the next seed
  reads).

What the copy can miss: a call recorded between another worker's ledger read and its seed, or
whose ``add`` failed; the copy expires and is seeded again from the ledger after
``refresh_seconds``, so such a gap lasts that long at most. Every Redis error becomes
:class:`errors.StoreUnavailable`; the caller (``api.usage.UsageTurns``) then reads the
ledger, as without Redis.
"""

from __future__ import annotations

from datetime import date

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

from errors import StoreUnavailable
from infra.lifetime import Lifetime

__all__ = ["ADD_LUA", "SEED_LUA", "RedisQuotaCounter"]

log = structlog.get_logger(__name__)

SEED_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'tokens', ARGV[1], 'cost', ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
return redis.call('HMGET', KEYS[1], 'tokens', 'cost')
"""

ADD_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'tokens', ARGV[1])
  redis.call('HINCRBY', KEYS[1], 'cost', ARGV[2])
  return 1
end
return 0
"""


class RedisQuotaCounter:
    """This month's tokens and cost per tenant, in Redis (the module docstring)."""

    def __init__(self, client: Redis, prefix: str, *, refresh_seconds: int = 300) -> None:
        self._client = client
        self._prefix = prefix
        self._refresh = max(int(refresh_seconds), 1)
        self._seed = client.register_script(SEED_LUA)
        self._add = client.register_script(ADD_LUA)
        self._lifetime = Lifetime("the Redis quota counter")

    def key(self, tenant_id: str, month: date) -> str:
        return f"{self._prefix}:quota:{tenant_id}:{month:%Y-%m}"

    async def totals(self, tenant_id: str, month: date) -> tuple[int, int] | None:
        """``(tokens, cost_micros)`` counted this month, or ``None`` (seed it first)."""
        self._lifetime.check()
        try:
            tokens, cost = await self._client.hmget(self.key(tenant_id, month), ["tokens", "cost"])
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"quota counter: {type(exc).__name__}") from exc
        if tokens is None or cost is None:
            return None
        return int(tokens), int(cost)

    async def seed(self, tenant_id: str, month: date, tokens: int, cost: int) -> tuple[int, int]:
        """Set the month's totals from the ledger unless another worker did; what it holds."""
        self._lifetime.check()
        try:
            held = await self._seed(
                keys=[self.key(tenant_id, month)], args=[tokens, cost, self._refresh]
            )
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"quota counter: {type(exc).__name__}") from exc
        return int(held[0]), int(held[1])

    async def add(self, tenant_id: str, month: date, tokens: int, cost: int) -> bool:
        """Add a call's usage to the month's totals if they are counted; ``True`` if so."""
        self._lifetime.check()
        try:
            added = await self._add(keys=[self.key(tenant_id, month)], args=[tokens, cost])
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"quota counter: {type(exc).__name__}") from exc
        return bool(added)

    async def aclose(self) -> None:
        self._lifetime.close()  # the Redis client is the composition root's to close
