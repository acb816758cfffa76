"""Erasure notices over Redis pub/sub (issue 27, ADR 0048 addendum): one channel,
``<prefix>:erasures``, so that every API worker cancels its own turns of an erased conversation
(``engine.turn.cancel.RunningTurns``).

A notice is ``{"t": tenant, "u": user, "c": conversation or null}``: ids only, never text. The
publishing worker hears its own notice like the others (one path). One listener task per
process holds the subscription and comes back with back-off (0.1 s doubling to 2 s) when Redis
goes away; a notice published meanwhile is lost (pub/sub keeps nothing): such a turn is not
cancelled, and the store refuses its saves as it always did. ``publish`` never raises.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

from infra.lifetime import Lifetime
from infra.redis_subscription import listen

__all__ = ["RedisErasureNotices"]

log = structlog.get_logger(__name__)

# (tenant_id, user_id, conversation_id or None): engine.turn.cancel.ErasureListener
_Listener = Callable[[str, str, str | None], Awaitable[object]]


class RedisErasureNotices:
    """:class:`engine.turn.cancel.ErasureNotices` shared by every worker through Redis."""

    def __init__(self, client: Redis, prefix: str) -> None:
        self._client = client
        self._channel = f"{prefix}:erasures"
        self._listeners: list[_Listener] = []
        self._listener: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self.publish_failures = 0
        self._lifetime = Lifetime("the Redis erasure notices")

    def subscribe(self, listener: _Listener) -> None:
        self._lifetime.check()
        self._listeners.append(listener)

    async def start(self, wait_s: float = 2.0) -> None:
        """Start listening; wait up to ``wait_s`` for the subscription (not at all fatal)."""
        self._lifetime.check()
        self._listener = asyncio.create_task(self._listen(), name="erasure-notices")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait_s):
                await self._subscribed.wait()

    async def publish(self, tenant_id: str, user_id: str, conversation_id: str | None) -> None:
        self._lifetime.check()
        notice = json.dumps({"t": tenant_id, "u": user_id, "c": conversation_id})
        try:
            await self._client.publish(self._channel, notice)
        except (RedisError, OSError) as exc:
            self.publish_failures += 1
            log.warning("erasure_notice_not_published", error=type(exc).__name__)

    async def _listen(self) -> None:
        await listen(
            self._client,
            self._channel,
            lifetime=self._lifetime,
            subscribed=self._subscribed,
            on_message=self._dispatch,
            event="erasure_notices",
        )

    async def _dispatch(self, data: bytes | str) -> None:
        try:
            notice = json.loads(data)
            tenant, user, conversation = notice["t"], notice["u"], notice["c"]
            if not isinstance(tenant, str) or not isinstance(user, str):
                raise TypeError("ids are strings")
            if conversation is not None and not isinstance(conversation, str):
                raise TypeError("ids are strings")
        except (ValueError, KeyError, TypeError):
            log.warning("erasure_notice_ignored")
            return
        for listener in list(self._listeners):
            try:
                await listener(tenant, user, conversation)
            except Exception:
                log.exception("erasure_listener_failed")

    async def aclose(self) -> None:
        self._lifetime.close()
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
