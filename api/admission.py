"""Admission control: a bounded number of chat turns in flight per worker (ADR 0030).

A worker that takes every turn it is offered slows all of them down: past its capacity each
turn's first token and every chunk wait behind the others. :class:`TurnAdmission` admits at
most ``limit`` turns at once; a turn beyond it waits, first come first served, for at most
``queue_timeout`` seconds for one to end, and is then refused with :class:`errors.Overloaded`
(503 ``overloaded`` with ``Retry-After``), before anything is read from the store or sent
upstream — so the turns that are admitted keep their latency and the others are told at once
to come back (or go to another worker behind the load balancer).

A slot is held from admission until the turn's response has ended (its stream closed,
whichever way); background work a turn leaves behind (its final save, a late capture) does
not hold one. :meth:`Admitted.release` is idempotent.

A count alone cannot know how many turns a worker can carry: that depends on the machine, the
answers' length and what else runs. So the gate also watches the worker itself: a
:class:`LoopLag` task measures how late the event loop wakes from its timers, and while it
runs later than ``max_lag`` a new turn is refused at once — every admitted turn's chunks are
waiting that long behind the others. Below ``lag_floor`` turns in flight the lag is not
consulted (a lone turn is never refused because an index rebuild made the loop late).

:class:`ChatAdmission` is where a turn takes its slot: a pure ASGI middleware, outermost, so
a refusal costs the worker almost nothing — no routing, body, authentication or rate limit
read first — when refusing is all it has the time for (ADR 0030, second addendum).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Protocol

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from api.errors import error_body
from errors import Overloaded

__all__ = ["Admitted", "ChatAdmission", "Lag", "LoopLag", "TurnAdmission"]


class Lag(Protocol):
    @property
    def current(self) -> float:
        """Seconds the event loop runs behind its timers, lately."""
        ...


class LoopLag:
    """How late this event loop runs: a task sleeps ``interval`` again and again and records by
    how much each wake-up came late; :attr:`current` is the largest of the last ``window``.

    A loop that has more ready work than one core runs every callback late — timers, a
    socket's data, a stream's next chunk — by about the same amount: this is that amount.
    """

    def __init__(self, interval: float = 0.02, window: int = 5) -> None:
        self.interval = interval
        self._recent: deque[float] = deque([0.0], maxlen=window)

    @property
    def current(self) -> float:
        return max(self._recent)

    async def run(self) -> None:
        """Measure until cancelled."""
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(self.interval)
            self._recent.append(max(0.0, loop.time() - start - self.interval))


class Admitted:
    """One admitted turn's slot; :meth:`release` it once the turn's response has ended."""

    __slots__ = ("_admission", "_released")

    def __init__(self, admission: TurnAdmission) -> None:
        self._admission = admission
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._admission._release()


class TurnAdmission:
    """At most ``limit`` turns in flight; a FIFO queue bounded in time, then ``Overloaded``."""

    def __init__(
        self,
        limit: int,
        queue_timeout: float,
        *,
        retry_after: int = 1,
        lag: Lag | None = None,
        max_lag: float = 0.0,
        lag_floor: int = 32,
    ) -> None:
        if limit < 1:
            raise ValueError("the turn limit must be at least 1")
        self.limit = limit
        self.queue_timeout = queue_timeout
        self.retry_after = retry_after
        self.lag, self.max_lag, self.lag_floor = lag, max_lag, lag_floor  # max_lag 0: not used
        self.refused = 0  # turns refused since start (a counter for metrics)
        self._in_flight = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def queued(self) -> int:
        return sum(1 for waiter in self._waiters if not waiter.done())

    async def admit(self) -> Admitted:
        """A slot now, or within ``queue_timeout``; else raises :class:`errors.Overloaded`.
        Refused at once while the loop runs later than ``max_lag`` (with ``lag_floor`` turns or
        more in flight)."""
        if self._lagging():
            raise self._overloaded(busy=True)
        if self._in_flight < self.limit and not self.queued:
            self._in_flight += 1
            return Admitted(self)
        if self.queue_timeout <= 0:
            raise self._overloaded()
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(self.queue_timeout):
                await waiter
        except TimeoutError:
            if _handed_over(waiter):  # the slot arrived as the time ran out: keep it
                return Admitted(self)
            raise self._overloaded() from None
        except BaseException:  # the client left while queued: pass a slot it got on
            if _handed_over(waiter):
                self._release()
            raise
        finally:
            if not waiter.done():
                waiter.cancel()
        return Admitted(self)

    def _release(self) -> None:
        """A turn ended: hand its slot to the longest-waiting turn, or free it."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot moves on; in_flight is unchanged
                return
        self._in_flight -= 1

    def _lagging(self) -> bool:
        if self.lag is None or self.max_lag <= 0 or self._in_flight < self.lag_floor:
            return False
        return self.lag.current > self.max_lag

    def _overloaded(self, *, busy: bool = False) -> Overloaded:
        self.refused += 1
        why = (
            f"this worker is saturated ({self._in_flight} chat turns in flight)"
            if busy
            else f"this worker has {self.limit} chat turns in flight"
        )
        return Overloaded(f"{why}; retry shortly", retry_after=self.retry_after)


class ChatAdmission:
    """Pure ASGI middleware: ``POST {path}`` runs only with a slot of the app's
    :class:`TurnAdmission`, held until the response has ended, however it ends.

    The slot is taken before anything reads the request, and released when the app's call
    returns — for the turn's SSE response that is when its stream has closed (completed, failed
    or the client gone); for a request refused further in (401, 422, 404...) at once. A refused
    turn gets 503 ``overloaded`` with ``Retry-After`` and the JSON error body; nothing else of
    the app has run. Other paths and methods pass through untouched.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        admission: Callable[[Scope], TurnAdmission | None],
        path: str = "/api/chat",
    ) -> None:
        self.app = app
        self._admission = admission  # the running app's gate, read per request (lifespan)
        self._path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self._path:
            await self.app(scope, receive, send)
            return
        gate = self._admission(scope)
        if gate is None:
            await self.app(scope, receive, send)
            return
        try:
            admitted = await gate.admit()
        except Overloaded as exc:
            refusal = JSONResponse(
                error_body(exc.code, exc.public_message),
                status_code=exc.status_code,
                headers={"Retry-After": str(exc.retry_after)},
            )
            await refusal(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            admitted.release()


def _handed_over(waiter: asyncio.Future[None]) -> bool:
    return waiter.done() and not waiter.cancelled()
