"""The graph event bus over Redis pub/sub (one channel, ``<prefix>:graph:changes``).

One listener task per process holds the subscription. When Redis goes away the listener retries
with back-off (0.1 s doubling to 2 s) and, once subscribed again, calls every ``on_gap`` handler:
messages published meanwhile are gone (pub/sub keeps nothing), and the detector's timestamp
catch-up fetches what they described. ``publish`` never raises: a write is committed whether
or not the others hear of it now, and they catch up within ``graph_catch_up_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib

import structlog
from pydantic import ValidationError
from redis.asyncio import Redis
from redis.exceptions import RedisError

from errors import StoreUnavailable
from graph.bus import ChangeHandler, GapHandler, GraphChange, new_origin
from graph.fanout import call_each
from infra.lifetime import Lifetime
from infra.redis_subscription import listen

__all__ = ["RedisGraphBus"]

log = structlog.get_logger(__name__)


class RedisGraphBus:
    def __init__(self, client: Redis, prefix: str, origin: str | None = None) -> None:
        self.origin = origin or new_origin()
        self._client = client
        self._channel = f"{prefix}:graph:changes"
        self._handlers: list[ChangeHandler] = []
        self._gap_handlers: list[GapHandler] = []
        self._listener: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self.published = 0
        self.publish_failures = 0
        self._lifetime = Lifetime("the Redis graph bus")

    def subscribe(self, handler: ChangeHandler, on_gap: GapHandler | None = None) -> None:
        self._lifetime.check()
        self._handlers.append(handler)
        if on_gap is not None:
            self._gap_handlers.append(on_gap)

    async def start(self, wait_s: float = 2.0) -> None:
        """Start listening; wait up to ``wait_s`` for the subscription (not at all fatal)."""
        self._lifetime.check()
        self._listener = asyncio.create_task(self._listen(), name="graph-bus-listener")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait_s):
                await self._subscribed.wait()

    async def publish(self, change: GraphChange) -> None:
        self._lifetime.check()
        try:
            await self._client.publish(self._channel, change.model_dump_json())
            self.published += 1
        except (RedisError, OSError) as exc:
            self.publish_failures += 1
            log.warning("graph_bus_publish_failed", error=type(exc).__name__)

    async def ping(self) -> None:
        self._lifetime.check()
        try:
            await self._client.ping()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable("redis does not answer") from exc

    async def _listen(self) -> None:
        await listen(
            self._client,
            self._channel,
            lifetime=self._lifetime,
            subscribed=self._subscribed,
            on_message=self._dispatch,
            event="graph_bus",
            on_reconnect=self._announce_gap,
        )

    def _announce_gap(self) -> None:
        for on_gap in list(self._gap_handlers):
            on_gap()

    async def _dispatch(self, data: bytes | str) -> None:
        try:
            change = GraphChange.model_validate_json(data)
        except ValidationError:
            log.warning("graph_bus_message_ignored")
            return
        if change.origin == self.origin:
            return
        await call_each(self._handlers, change, failure="graph_bus_handler_failed")

    async def aclose(self) -> None:
        self._lifetime.close()
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
