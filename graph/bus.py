"""The graph event bus: tells the other API workers (and is told by them, and by the CLI) what a
write changed, so every process keeps its evidence index, lexicon and patch stream in step.

A :class:`GraphChange` is an invalidation: the write's timestamp and what it changed (node ids,
edge keys, outcomes), never property values. Each process reads the shared graph itself and
applies the quarantine (ADR 0020) before anything reaches a tenant, so the bus never decides
what a tenant sees. It may name a provisional node's id: the bus is between our own processes.

Delivery is at most once (pub/sub): a message published while a worker is disconnected is lost
to it, which the timestamp catch-up of :class:`graph.detector.ChangeDetector` covers, and
``on_gap`` tells the detector to run that catch-up at once when the connection comes back.

:class:`InProcessGraphBus` is the default (one worker: nobody to tell). Buses that share one
:class:`InProcessHub` deliver to each other, which lets tests run several containers in one
process. :class:`graph.bus_redis.RedisGraphBus` is the production adapter.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from pydantic import BaseModel, Field

from graph.fanout import call_each
from graph.models import WriteResult
from infra.lifetime import Lifetime

__all__ = [
    "ChangeHandler",
    "GapHandler",
    "GraphBus",
    "GraphChange",
    "InProcessGraphBus",
    "InProcessHub",
    "announcer",
    "new_origin",
]

ChangeHandler = Callable[["GraphChange"], Awaitable[None]]
GapHandler = Callable[[], None]


def announcer(bus: GraphBus) -> Callable[[Sequence[WriteResult], str], Awaitable[None]]:
    """A write-service listener that tells the other processes what this one wrote."""

    async def announce(results: Sequence[WriteResult], timestamp: str) -> None:
        await bus.publish(
            GraphChange(origin=bus.origin, timestamp=timestamp, results=list(results))
        )

    return announce


def new_origin() -> str:
    """A name for this process on the bus (its own messages come back to it and are skipped)."""
    return secrets.token_hex(6)


class GraphChange(BaseModel):
    origin: str
    timestamp: str
    results: list[WriteResult] = Field(default_factory=list)


class GraphBus(Protocol):
    origin: str

    async def publish(self, change: GraphChange) -> None:
        """Send to the other processes; never raises (a lost message is caught up later),
        except :class:`errors.AdapterClosed` after :meth:`aclose`, like every method."""
        ...

    def subscribe(self, handler: ChangeHandler, on_gap: GapHandler | None = None) -> None:
        """``handler`` gets other processes' changes; ``on_gap`` is called when messages
        may have been lost (a reconnect)."""
        ...

    async def start(self) -> None:
        """Start receiving other processes' changes (after the handlers subscribed). Waits a
        little for the connection; a bus that cannot connect yet keeps trying and says
        ``on_gap`` once it does, so a start never fails."""
        ...

    async def ping(self) -> None: ...

    async def aclose(self) -> None:
        """Stop for good; idempotent. Any later call raises :class:`errors.AdapterClosed`."""
        ...


class InProcessHub:
    """Connects the :class:`InProcessGraphBus` instances made with it."""

    def __init__(self) -> None:
        self.buses: list[InProcessGraphBus] = []


class InProcessGraphBus:
    def __init__(self, hub: InProcessHub | None = None, origin: str | None = None) -> None:
        self.origin = origin or new_origin()
        self._hub = hub or InProcessHub()
        self._hub.buses.append(self)
        self._handlers: list[ChangeHandler] = []
        self._lifetime = Lifetime("the in-process graph bus")

    async def publish(self, change: GraphChange) -> None:
        self._lifetime.check()
        for bus in list(self._hub.buses):
            if bus is not self:
                await call_each(bus._handlers, change, failure="graph_bus_handler_failed")

    def subscribe(self, handler: ChangeHandler, on_gap: GapHandler | None = None) -> None:
        self._lifetime.check()
        self._handlers.append(handler)

    async def start(self) -> None:
        self._lifetime.check()  # delivery is a call from the publishing bus: nothing to connect

    async def ping(self) -> None:
        self._lifetime.check()

    async def aclose(self) -> None:
        self._lifetime.close()
        if self in self._hub.buses:
            self._hub.buses.remove(self)
