"""One summary call at a time per conversation across API workers, in Redis (issue 27, ADR 0065
session 8 addendum).

``<prefix>:summary-lease:<tenant>:<conversation>`` holds the holder's id, set with ``SET NX
PX`` (taken only when absent; it expires by itself), deleted on release by one Lua script only
if the holder still holds it (a lease that expired and was taken by another worker is left to
it). Ids only, never text. Every Redis error becomes :class:`errors.StoreUnavailable`; the
summariser (``engine.model_summary``) then makes its call as it did without a lease.
"""

from __future__ import annotations

from redis.asyncio import Redis
from redis.exceptions import RedisError

from errors import StoreUnavailable

__all__ = ["RELEASE_LUA", "RedisSummaryLeases"]

RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class RedisSummaryLeases:
    """:class:`conversations.port.SummaryLeases` in Redis (the module docstring)."""

    def __init__(self, client: Redis, prefix: str) -> None:
        self._client = client
        self._prefix = prefix
        self._release = client.register_script(RELEASE_LUA)

    def key(self, tenant_id: str, conversation_id: str) -> str:
        return f"{self._prefix}:summary-lease:{tenant_id}:{conversation_id}"

    async def acquire_summary_lease(
        self,
        tenant_id: str,
        conversation_id: str,
        holder: str,
        seconds: float,
        *,
        user_id: str,
    ) -> bool:
        try:
            taken = await self._client.set(
                self.key(tenant_id, conversation_id),
                holder,
                nx=True,
                px=max(int(seconds * 1000), 1),
            )
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"summary lease: {type(exc).__name__}") from exc
        return bool(taken)

    async def release_summary_lease(
        self, tenant_id: str, conversation_id: str, holder: str, *, user_id: str
    ) -> None:
        try:
            await self._release(keys=[self.key(tenant_id, conversation_id)], args=[holder])
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"summary lease: {type(exc).__name__}") from exc
