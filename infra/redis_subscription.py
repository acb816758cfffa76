"""One Redis pub/sub channel, listened to for a component's lifetime, reconnecting with backoff.

Shared by the graph change bus (``graph/bus_redis.py``) and the erasure notices
(``infra/erasure_notices.py``): subscribe, hand each message to ``on_message``, and on a
lost connection log once, clear ``subscribed``, wait (0.1 s doubling to 2 s) and subscribe again,
calling ``on_reconnect`` once the channel is back (so a caller can announce a gap).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

from infra.lifetime import Lifetime

__all__ = ["listen"]

log = structlog.get_logger(__name__)


async def listen(
    client: Redis,
    channel: str,
    *,
    lifetime: Lifetime,
    subscribed: asyncio.Event,
    on_message: Callable[[bytes | str], Awaitable[None]],
    event: str,
    on_reconnect: Callable[[], None] | None = None,
) -> None:
    """Listen until ``lifetime`` closes; ``event`` names the log lines (``<event>_reconnected``)."""
    delay, lost = 0.1, False
    while not lifetime.closed:
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(channel)
            subscribed.set()
            if lost:
                log.info(f"{event}_reconnected")
                if on_reconnect is not None:
                    on_reconnect()
            delay, lost = 0.1, False
            while not lifetime.closed:
                message = await pubsub.get_message(timeout=1.0)
                if message is not None and message.get("type") == "message":
                    await on_message(message["data"])
        except (RedisError, OSError) as exc:
            if not lost:
                log.warning(f"{event}_disconnected", error=type(exc).__name__)
            lost = True
            subscribed.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
        finally:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()  # type: ignore[no-untyped-call]
