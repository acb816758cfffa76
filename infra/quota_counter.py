"""A tenant's monthly tokens and cost, counted in Redis for the quota check (issue 27, ADR 0050
addendum): one round trip a turn instead of a read of the store's usage ledger, shared by
every API worker.

The store's ledger stays the record (``conversations.port.UsageLedger``); Redis holds a copy of
this month's totals per tenant, ``<prefix>:quota:<tenant>:<YYYY-MM>``, a hash with ``tokens``
and ``cost``:

- :meth:`RedisQuotaCounter.totals` reads it; when it is missing (not counted yet, or expired)
  it opens a **fill** in the same script, ``…:<YYYY-MM>:fill``, a hash that collects what is
  added until the copy is seeded, and returns ``None``: the caller reads the ledger, then seeds;
- :meth:`RedisQuotaCounter.add` adds a call's tokens and cost to the copy, or to the open fill
  when there is no copy (one Lua script, after the call was written to the ledger); with
  neither, nothing (the ledger has it, and a later fill reads it);
- :meth:`RedisQuotaCounter.seed` sets the copy to the ledger's totals plus what the fill
  collected, with an expiry (``refresh_seconds``, 300 by default), and deletes the fill, unless
  another worker seeded it since (then it returns that copy): one Lua script.

So a call recorded while another worker reads the ledger and seeds (ADR 0050, session 8
addendum: the "fill race") is never missed: it went to the ledger before that read (and is in
the totals read) or is added after the fill opened (and is in the fill). One that did both (its
ledger write before the read, its add after the fill opened, a few milliseconds apart) is
counted twice until the copy expires and is seeded again: the copy can run ahead of the
ledger by the calls in flight during a fill, never behind it. A fill that expired before its
seed (a ledger read longer than ``fill_seconds``) is not trusted: the seed returns the
ledger's totals without storing a copy; a fill whose seed never comes (the ledger read failed)
expires after ``fill_seconds`` (30). What the copy can still miss is a call whose ``add``
failed (Redis down after the ledger write), until it expires. Every Redis error becomes
:class:`errors.StoreUnavailable`; the caller (``api.usage.UsageTurns``) then reads the ledger,
as without Redis.
"""

from __future__ import annotations

from datetime import date

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

from errors import StoreUnavailable
from infra.lifetime import Lifetime

__all__ = ["ADD_LUA", "SEED_LUA", "TOTALS_LUA", "RedisQuotaCounter"]

log = structlog.get_logger(__name__)

TOTALS_LUA = """
local held = redis.call('HMGET', KEYS[1], 'tokens', 'cost')
if held[1] and held[2] then
  return held
end
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('HSET', KEYS[2], 'tokens', 0, 'cost', 0)
  redis.call('EXPIRE', KEYS[2], ARGV[1])
end
return false
"""

SEED_LUA = """
local held = redis.call('HMGET', KEYS[1], 'tokens', 'cost')
if held[1] and held[2] then
  return {held[1], held[2], 1}
end
local fill = redis.call('HMGET', KEYS[2], 'tokens', 'cost')
if not (fill[1] and fill[2]) then
  return {ARGV[1], ARGV[2], 0}
end
local tokens = tonumber(ARGV[1]) + tonumber(fill[1])
local cost = tonumber(ARGV[2]) + tonumber(fill[2])
redis.call('HSET', KEYS[1], 'tokens', tokens, 'cost', cost)
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('DEL', KEYS[2])
return {tokens, cost, 1}
"""

ADD_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'tokens', ARGV[1])
  redis.call('HINCRBY', KEYS[1], 'cost', ARGV[2])
  return 1
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HINCRBY', KEYS[2], 'tokens', ARGV[1])
  redis.call('HINCRBY', KEYS[2], 'cost', ARGV[2])
  return 2
end
return 0
"""


class RedisQuotaCounter:
    """This month's tokens and cost per tenant, in Redis (the module docstring)."""

    def __init__(
        self, client: Redis, prefix: str, *, refresh_seconds: int = 300, fill_seconds: int = 30
    ) -> None:
        self._client = client
        self._prefix = prefix
        self._refresh = max(int(refresh_seconds), 1)
        self._fill = max(int(fill_seconds), 1)
        self._totals = client.register_script(TOTALS_LUA)
        self._seed = client.register_script(SEED_LUA)
        self._add = client.register_script(ADD_LUA)
        self._lifetime = Lifetime("the Redis quota counter")

    def key(self, tenant_id: str, month: date) -> str:
        return f"{self._prefix}:quota:{tenant_id}:{month:%Y-%m}"

    def fill_key(self, tenant_id: str, month: date) -> str:
        return f"{self.key(tenant_id, month)}:fill"

    def _keys(self, tenant_id: str, month: date) -> list[str]:
        return [self.key(tenant_id, month), self.fill_key(tenant_id, month)]

    async def totals(self, tenant_id: str, month: date) -> tuple[int, int] | None:
        """``(tokens, cost_micros)`` counted this month, or ``None``: no copy, and a fill is
        open (read the ledger, then :meth:`seed`)."""
        self._lifetime.check()
        try:
            held = await self._totals(keys=self._keys(tenant_id, month), args=[self._fill])
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"quota counter: {type(exc).__name__}") from exc
        if not held:
            return None
        return int(held[0]), int(held[1])

    async def seed(self, tenant_id: str, month: date, tokens: int, cost: int) -> tuple[int, int]:
        """The copy set to the ledger's totals read since :meth:`totals` opened the fill, plus
        what the fill collected (unless another worker seeded it since): what it holds."""
        self._lifetime.check()
        try:
            held = await self._seed(
                keys=self._keys(tenant_id, month), args=[tokens, cost, self._refresh]
            )
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"quota counter: {type(exc).__name__}") from exc
        if not int(held[2]):
            log.info("quota_fill_expired", tenant_id=tenant_id)
        return int(held[0]), int(held[1])

    async def add(self, tenant_id: str, month: date, tokens: int, cost: int) -> bool:
        """Add a call's usage (written to the ledger already) to the month's copy, or to its
        open fill; ``True`` if either took it."""
        self._lifetime.check()
        try:
            added = await self._add(keys=self._keys(tenant_id, month), args=[tokens, cost])
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"quota counter: {type(exc).__name__}") from exc
        return bool(added)

    async def aclose(self) -> None:
        self._lifetime.close()  # the Redis client is the composition root's to close
