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

:class:`ChatAdmission` is where a turn takes its slot: a pure ASGI middleware, outermost. A
slot is held only by an authenticated caller whose body has been read (ADR 0030, third
addendum): the middleware first checks cheaply that the gate has room (an overloaded worker
still refuses at once, holding nothing), then authenticates from the request head (no
credentials: 401 before a byte of the body is read), then reads the body under a budget of its
own — :class:`BodyReads`, a few reads per client address and a bounded number in all, each
with a short deadline — and only then takes the slot. A slow or anonymous client holds no
slot, and so cannot keep any tenant's turns out.

The limit itself adapts (ADR 0055): with an :class:`infra.adaptive_limit.AdaptiveLimit`, the
gate's :attr:`TurnAdmission.limit` is that limiter's, between a floor and the static limit
(``REGINTEL_MAX_TURNS_IN_FLIGHT``, now the ceiling). :meth:`TurnAdmission.adapt` runs after
every loop-lag sample and, once an interval, gives the limiter the lag, the chunk delay and the
start delay: :class:`ChatAdmission` times every SSE chunk a turn writes (from the call to
``send`` until the loop, having written it, comes back to run a callback queued then — how
long this stream's next chunk would wait), and how long each admitted turn takes to send its
response's start (preparing it; a turn still preparing counts with its age so far). A
refusal's ``Retry-After`` is drawn between ``retry_after`` and ``retry_after_max`` so refused
clients do not return together.

Slow start (ADR 0055, second addendum): a fresh worker's limit starts low and grows by one per
turn that starts on time (:meth:`infra.adaptive_limit.AdaptiveLimit.started`); until its first
cut a turn beyond it waits up to ``burst_queue_timeout`` rather than ``queue_timeout`` and the
lag gate is not consulted — a burst waits for the limit rather than being refused. The body's
deadline starts once the request has room (the wait for room is the worker's time), and a body
not read in time on a worker that itself ran late (:meth:`TurnAdmission.starved`) is refused
503 ``overloaded`` with ``Retry-After``, not 408.

:func:`turn_admission` builds the gate from the settings; :func:`admission_metrics` renders
what ``/metrics`` shows of it.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Protocol

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.body_limit import JsonNesting, first_header, parsed_as_json
from api.errors import CodedHTTPException, error_body
from api.settings import Settings
from errors import Overloaded, PayloadTooLarge, RateLimited, RegintelError
from infra.adaptive_limit import AdaptiveLimit, DelayWindow, LimitConfig

__all__ = [
    "PRINCIPAL_SCOPE_KEY",
    "TURN_PATHS",
    "Admitted",
    "BodyReads",
    "ChatAdmission",
    "Lag",
    "LoopLag",
    "TurnAdmission",
    "admission_metrics",
    "turn_admission",
]

TURN_PATHS = re.compile(r"/api/chat|/api/conversations/[^/]+/messages/[^/]+/(?:edit|regenerate)")
"""The requests that run a chat turn (ADR 0062): each takes an admission slot."""

PRINCIPAL_SCOPE_KEY = "regintel.principal"
"""Where :class:`ChatAdmission` leaves the principal it authenticated, for the route's
``authenticate`` dependency (no second verification of the same token)."""


class Lag(Protocol):
    @property
    def current(self) -> float:
        """Seconds the event loop runs behind its timers, lately."""
        ...


class LoopLag:
    """How late this event loop runs: a task sleeps ``interval`` again and again and records by
    how much each wake-up came late; :attr:`current` is the largest of the last ``window`` (0
    before the first sample).

    A loop that has more ready work than one core runs every callback late — timers, a
    socket's data, a stream's next chunk — by about the same amount: this is that amount.

    Timed with ``time.perf_counter``, not ``loop.time()``: uvloop's clock is libuv's cached
    ``uv_now``, in whole milliseconds, so most wake-ups would read a lag of exactly 0 — on
    time against any target, however small.
    """

    def __init__(self, interval: float = 0.02, window: int = 5) -> None:
        self.interval = interval
        self._recent: deque[float] = deque(maxlen=window)
        self.on_sample: Callable[[], None] | None = None  # after each sample (adaptation)

    @property
    def current(self) -> float:
        return max(self._recent, default=0.0)

    async def run(self) -> None:
        """Measure until cancelled."""
        while True:
            start = time.perf_counter()
            await asyncio.sleep(self.interval)
            self._recent.append(max(0.0, time.perf_counter() - start - self.interval))
            if self.on_sample is not None:
                self.on_sample()


class Admitted:
    """One admitted turn's slot; :meth:`release` it once the turn's response has ended."""

    __slots__ = ("_admission", "_released")

    def __init__(self, admission: TurnAdmission) -> None:
        self._admission = admission
        self._released = False
        admission._starting[self] = time.perf_counter()

    def started(self) -> None:
        """The turn's response has started (it is prepared): its start delay is measured (and,
        in slow start, a turn started on time lets the limit grow)."""
        since = self._admission._starting.pop(self, None)
        if since is not None:
            self._admission._started(time.perf_counter() - since)

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._admission._starting.pop(self, None)  # ended unstarted: nothing to measure
            self._admission._release()


class TurnAdmission:
    """At most ``limit`` turns in flight; a FIFO queue bounded in time, then ``Overloaded``.

    ``limit`` is the static limit; with a ``limiter`` it is the ceiling and :attr:`limit` is
    the limiter's current one."""

    def __init__(
        self,
        limit: int,
        queue_timeout: float,
        *,
        burst_queue_timeout: float = 0.0,
        retry_after: int = 1,
        retry_after_max: int | None = None,
        lag: Lag | None = None,
        max_lag: float = 0.0,
        lag_floor: int = 32,
        limiter: AdaptiveLimit | None = None,
    ) -> None:
        if limit < 1:
            raise ValueError("the turn limit must be at least 1")
        self.ceiling = limit
        self.limiter = limiter
        self.queue_timeout = queue_timeout
        self.burst_queue_timeout = burst_queue_timeout  # the wait while the limit is growing
        self.retry_after = retry_after
        self.retry_after_max = max(retry_after, retry_after_max or retry_after)
        self.chunk_delays = DelayWindow()
        self.start_delays = DelayWindow()  # admitted -> response started (Admitted.started)
        self._starting: dict[Admitted, float] = {}  # admitted, not started: since (in order)
        self.lag, self.max_lag, self.lag_floor = lag, max_lag, lag_floor  # max_lag 0: not used
        self.refused = 0  # turns refused since start (a counter for metrics)
        self.waits = 0  # times a turn waited for room or a slot (a counter for metrics)
        self._in_flight = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._room: list[asyncio.Future[None]] = []  # waiting for room, holding nothing

    @property
    def limit(self) -> int:
        return self.limiter.limit if self.limiter is not None else self.ceiling

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def queue_seconds(self) -> float:
        """How long a turn beyond the limit may wait for a slot: ``queue_timeout``, or while
        the adaptive limit is in slow start (still growing to meet its load, never cut, below
        the ceiling) up to ``burst_queue_timeout`` — a burst on a fresh worker waits for the
        limit to grow rather than being refused (ADR 0055, second addendum)."""
        limiter = self.limiter
        if limiter is not None and limiter.slow_start and limiter.limit < self.ceiling:
            return max(self.queue_timeout, self.burst_queue_timeout)
        return self.queue_timeout

    def starved(self, late: float, budget: float) -> bool:
        """The worker itself ran late against a client's ``budget`` (seconds): a timer meant
        for now fired ``late`` seconds after its time, or the loop lags, by a quarter of the
        budget or more (at least ``max_lag``, 25 ms when unset). A request not read within its
        budget on a starved worker is the worker's fault: 503, not 408 or 429. (A quarter: a
        loop a few hundred ms late now and then on a shared machine does not turn a client
        that trickles its body into an overload.)"""
        threshold = max(self.max_lag if self.max_lag > 0 else 0.025, budget / 4)
        lag = self.lag.current if self.lag is not None else 0.0
        return late >= threshold or lag >= threshold

    def too_busy_to_read(self) -> Overloaded:
        """The refusal of a request this worker was too busy to read in time."""
        self.refused += 1
        retry_after = random.randint(self.retry_after, self.retry_after_max)
        return Overloaded(
            "this worker is too busy to read the request in time; retry shortly",
            retry_after=retry_after,
        )

    def _started(self, seconds: float) -> None:
        self.start_delays.add(seconds)
        limiter = self.limiter
        if limiter is None or not limiter.slow_start:
            return
        in_use = self._in_flight >= limiter.config.used * self.limit
        demand = in_use or self.queued > 0 or any(not w.done() for w in self._room)
        if limiter.started(seconds, demand=demand):
            self._grant()

    def chunk_written(self, since: float) -> None:
        """A chunk handed to ``send`` at ``since`` (``time.perf_counter``) is behind us."""
        self.chunk_delays.add(time.perf_counter() - since)

    @property
    def preparing(self) -> int:
        """Admitted turns whose response has not started yet."""
        return len(self._starting)

    def oldest_start(self) -> float:
        """Seconds the longest-preparing admitted turn has waited for its response to start
        (0 when none is preparing)."""
        for since in self._starting.values():  # admission order: the first is the oldest
            return time.perf_counter() - since
        return 0.0

    def adapt(self) -> None:
        """Give the limiter the lag, the chunk delay and the start delay (the p90 of the turns
        that started in the interval, or the oldest still preparing if longer), once an
        interval (after each loop-lag sample); a limit that grew hands its new slots to the
        turns queued."""
        limiter = self.limiter
        if limiter is None or not limiter.due():
            return
        lag = self.lag.current if self.lag is not None else 0.0
        timed = len(self.chunk_delays) > 0  # no chunk in the interval: no evidence of time
        delay = self.chunk_delays.drain(0.9) if timed else None
        start = max(self.start_delays.drain(0.9), self.oldest_start())
        if limiter.update(lag=lag, delay=delay, start=start, in_flight=self._in_flight):
            self._grant()

    @property
    def queued(self) -> int:
        return sum(1 for waiter in self._waiters if not waiter.done())

    async def admit(self, until: float | None = None) -> Admitted:
        """A slot now, or within :meth:`queue_seconds` (or by ``until``, loop time); else
        raises :class:`errors.Overloaded`. Refused at once while the loop runs later than
        ``max_lag`` (with ``lag_floor`` turns or more in flight; not in slow start)."""
        if self._lagging():
            raise self._overloaded(busy=True)
        if self._in_flight < self.limit and not self.queued:
            self._in_flight += 1
            return Admitted(self)
        loop = asyncio.get_running_loop()
        if until is None:
            until = loop.time() + self.queue_seconds()
        if until <= loop.time():
            raise self._overloaded()
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiters.append(waiter)
        self.waits += 1
        try:
            async with asyncio.timeout_at(until):
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

    async def wait_for_room(self, until: float | None = None) -> None:
        """Return once a slot is free — at once, or within :meth:`queue_seconds` (or by
        ``until``, loop time) — without taking it; else raise :class:`errors.Overloaded` (at
        once while the loop lags).

        The cheap first check of :class:`ChatAdmission`: an overloaded worker refuses a request
        before authenticating or reading it, and the check holds nothing, so a caller that
        never gets further (anonymous, slow) keeps no slot from anybody."""
        if self._lagging():
            raise self._overloaded(busy=True)
        if self._in_flight < self.limit and not self.queued:
            return
        loop = asyncio.get_running_loop()
        if until is None:
            until = loop.time() + self.queue_seconds()
        if until <= loop.time():
            raise self._overloaded()
        waiter: asyncio.Future[None] = loop.create_future()
        self._room.append(waiter)
        self.waits += 1
        try:
            async with asyncio.timeout_at(until):
                await waiter
        except TimeoutError:
            raise self._overloaded() from None
        finally:
            if waiter in self._room:
                self._room.remove(waiter)

    def _release(self) -> None:
        """A turn ended: hand its slot to the longest-waiting turn, or free it (a limit that
        has shrunk below the turns in flight takes it back)."""
        if self._in_flight <= self.limit and self._hand_over():
            return  # the slot moves on; in_flight is unchanged
        self._in_flight -= 1
        self._grant()

    def _hand_over(self) -> bool:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return True
        return False

    def _grant(self) -> None:
        """Slots free under the limit go to the queued turns, then anybody waiting for room
        may try (admit() decides who gets a slot)."""
        while self._in_flight < self.limit and self._hand_over():
            self._in_flight += 1
        if self._in_flight < self.limit and not self.queued:
            room, self._room = self._room, []
            for waiter in room:
                if not waiter.done():
                    waiter.set_result(None)

    def _lagging(self) -> bool:
        if self.lag is None or self.max_lag <= 0 or self._in_flight < self.lag_floor:
            return False
        if self.limiter is not None and self.limiter.slow_start:
            return False  # a burst on a fresh worker waits for the limit, which watches lag
        return self.lag.current > self.max_lag

    def _overloaded(self, *, busy: bool = False) -> Overloaded:
        self.refused += 1
        why = (
            f"this worker is saturated ({self._in_flight} chat turns in flight)"
            if busy
            else f"this worker has {self.limit} chat turns in flight"
        )
        retry_after = random.randint(self.retry_after, self.retry_after_max)
        return Overloaded(f"{why}; retry shortly", retry_after=retry_after)


class BodyReads:
    """The budget for reading chat bodies before admission: at most ``per_client`` at once
    from one client address and ``total`` in all. A read beyond it waits (first come, first
    served among those woken) until one ends or its deadline passes, then is refused (429):
    a burst of prompt clients is served, an address trickling bodies holds only its share."""

    def __init__(self, *, per_client: int, total: int) -> None:
        self.per_client, self.total = per_client, total
        self.refused = 0
        self._by_client: Counter[str] = Counter()
        self._reading = 0
        self._waiting: list[asyncio.Future[None]] = []

    @property
    def reading(self) -> int:
        return self._reading

    def _free(self, client: str) -> bool:
        return self._reading < self.total and self._by_client[client] < self.per_client

    async def enter(self, client: str, deadline: float | None = None) -> bool:
        """Take one read for ``client``, waiting until ``deadline`` (loop time) for one to end
        if the budget is spent; False (and counted) when none did."""
        loop = asyncio.get_running_loop()
        while not self._free(client):
            if deadline is None or loop.time() >= deadline:
                self.refused += 1
                return False
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiting.append(waiter)
            try:
                async with asyncio.timeout_at(deadline):
                    await waiter
            except TimeoutError:
                pass
            finally:
                if waiter in self._waiting:
                    self._waiting.remove(waiter)
        self._reading += 1
        self._by_client[client] += 1
        return True

    def leave(self, client: str) -> None:
        self._reading -= 1
        self._by_client[client] -= 1
        if self._by_client[client] <= 0:
            del self._by_client[client]
        waiting, self._waiting = self._waiting, []
        for waiter in waiting:  # each checks the budget again; the others wait on
            if not waiter.done():
                waiter.set_result(None)


class ChatAdmission:
    """Pure ASGI middleware: ``POST {path}`` runs only with a slot of the app's
    :class:`TurnAdmission`, taken once the caller is authenticated and its body read, and held
    until the response has ended, however it ends.

    In order, each step cheap and holding nothing of the next:

    1. **room**: :meth:`TurnAdmission.wait_for_room` — an overloaded worker answers 503
       ``overloaded`` (``Retry-After``) before anything else runs;
    2. **who**: ``authenticate(scope)`` from the head alone — no or bad credentials end the
       request (401/403) with the body unread;
    3. **body**: read under :class:`BodyReads` (past the per-address or total budget a read
       waits for one to end, then 429 ``rate_limited``) within ``read_timeout`` of the
       request's start (408 ``request_timeout``), at most ``max_bytes`` (413);
    4. **slot**: :meth:`TurnAdmission.admit` (its short FIFO queue, then 503), and the app runs
       with the body replayed; the slot is released when the app's call returns — for the SSE
       response when its stream has closed, for a request refused further in (422, 404) at once.

    ``path``: the exact path, or a pattern the whole path matches (:data:`TURN_PATHS`: the chat
    turn, an edit's and a regeneration's). Other paths and methods pass through untouched.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        admission: Callable[[Scope], TurnAdmission | None],
        authenticate: Callable[[Scope], Awaitable[Any]] | None = None,
        body_reads: BodyReads | None = None,
        read_timeout: float = 5.0,
        max_bytes: int = 64 * 1024,
        max_json_depth: int = 32,
        path: str | re.Pattern[str] = "/api/chat",
    ) -> None:
        self.app = app
        self._admission = admission  # the running app's gate, read per request (lifespan)
        self._authenticate = authenticate
        self.body_reads = body_reads or BodyReads(per_client=16, total=128)
        self._read_timeout = read_timeout
        self._max_bytes = max_bytes
        self._max_json_depth = max_json_depth
        self._path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not self._runs_turn(scope):
            await self.app(scope, receive, send)
            return
        gate = self._admission(scope)
        if gate is None:
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        until = loop.time() + gate.queue_seconds()  # the wait for room and slot together
        try:
            await gate.wait_for_room(until)
            if self._authenticate is not None:
                scope[PRINCIPAL_SCOPE_KEY] = await self._authenticate(scope)
            # the client's time to send its body starts once the worker is ready to read it
            # (not while this request waited for room: that is the worker's, ADR 0055)
            body = await self._read_body(scope, receive, loop.time() + self._read_timeout, gate)
            if body is None:
                return  # the client left while sending its body: nothing to answer
            admitted = await gate.admit(max(until, loop.time() + gate.queue_timeout))
        except (RegintelError, CodedHTTPException) as exc:
            await _refusal(exc)(scope, receive, send)
            return
        try:
            await self.app(scope, _replay(body, receive), _timed(send, gate, admitted))
        finally:
            admitted.release()

    def _runs_turn(self, scope: Scope) -> bool:
        path = self._path
        if isinstance(path, str):
            return bool(scope["path"] == path)
        return path.fullmatch(scope["path"]) is not None

    async def _read_body(
        self, scope: Scope, receive: Receive, deadline: float, gate: TurnAdmission
    ) -> bytes | None:
        """The body, read under the :class:`BodyReads` budget by ``deadline`` (loop time). Past
        the budget or the deadline the client is told (429, 408) — unless the worker itself
        ran late (:meth:`TurnAdmission.starved`): then it is 503 ``overloaded`` with
        ``Retry-After``, as for any turn this worker has no room for."""
        loop = asyncio.get_running_loop()
        too_large = PayloadTooLarge(f"request body over {self._max_bytes} bytes")
        declared = first_header(scope, b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self._max_bytes):
            raise too_large
        client = (scope.get("client") or ("?", 0))[0]
        if not await self.body_reads.enter(client, deadline):
            if gate.starved(loop.time() - deadline, self._read_timeout):
                raise gate.too_busy_to_read()
            raise RateLimited("too many chat requests being sent from this address", retry_after=1)
        nesting = JsonNesting() if parsed_as_json(scope) else None
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout_at(deadline):
                while True:
                    event = await receive()
                    if event["type"] != "http.request":
                        return None  # http.disconnect
                    chunk = event.get("body", b"")
                    size += len(chunk)
                    if size > self._max_bytes:
                        raise too_large
                    if nesting is not None and nesting.feed(chunk) > self._max_json_depth:
                        raise CodedHTTPException(
                            400,
                            "json_too_deep",
                            f"JSON nested deeper than {self._max_json_depth} levels",
                        )
                    chunks.append(chunk)
                    if not event.get("more_body", False):
                        return b"".join(chunks)
        except TimeoutError:
            if gate.starved(loop.time() - deadline, self._read_timeout):
                raise gate.too_busy_to_read() from None
            raise CodedHTTPException(
                408, "request_timeout", f"request body not received within {self._read_timeout:g} s"
            ) from None
        finally:
            self.body_reads.leave(client)


def _refusal(exc: RegintelError | CodedHTTPException) -> JSONResponse:
    """The JSON error response of a refusal (outside the app's exception handlers here)."""
    if isinstance(exc, CodedHTTPException):
        return JSONResponse(error_body(exc.code, str(exc.detail)), status_code=exc.status_code)
    headers = (
        {"Retry-After": str(exc.retry_after)} if isinstance(exc, Overloaded | RateLimited) else None
    )
    return JSONResponse(
        error_body(exc.code, exc.public_message), status_code=exc.status_code, headers=headers
    )


def _timed(send: Send, gate: TurnAdmission, admitted: Admitted) -> Send:
    """``send`` that times the turn's start (its response's start, once prepared) and each
    streamed chunk into ``gate``: from the call until the loop, once the chunk is written,
    runs a callback queued then (:meth:`TurnAdmission.adapt`)."""
    loop = asyncio.get_running_loop()

    async def timed(message: Message) -> None:
        if message["type"] == "http.response.start":
            admitted.started()
        start = time.perf_counter()
        await send(message)
        if message["type"] == "http.response.body" and message.get("more_body", False):
            loop.call_soon(gate.chunk_written, start)

    return timed


def turn_admission(settings: Settings, lag: LoopLag | None = None) -> TurnAdmission:
    """The gate of the settings: static at ``max_turns_in_flight``, or (the default) adaptive
    below it as ceiling, adapting after each of ``lag``'s samples (ADR 0055)."""
    limiter = None
    if settings.admission_adaptive:
        config = LimitConfig(
            ceiling=settings.max_turns_in_flight,
            floor=settings.admission_min_turns_in_flight,
            initial=settings.admission_initial_turns_in_flight,
            target_lag=settings.admission_target_loop_lag_ms / 1000,
            target_delay=settings.admission_target_chunk_delay_ms / 1000,
            target_start=settings.admission_target_start_delay_ms / 1000,
        )
        limiter = AdaptiveLimit(config, time.monotonic)
    spread = settings.overloaded_retry_after_max_seconds
    gate = TurnAdmission(
        settings.max_turns_in_flight,
        settings.admission_queue_seconds,
        burst_queue_timeout=settings.admission_burst_queue_seconds,
        retry_after=settings.overloaded_retry_after_seconds,
        retry_after_max=spread or max(settings.overloaded_retry_after_seconds, 3),
        lag=lag,
        max_lag=settings.admission_max_loop_lag_ms / 1000,
        limiter=limiter,
    )
    if lag is not None and limiter is not None:
        lag.on_sample = gate.adapt
    return gate


class _AdmissionCollector(Collector):
    """The gate's live figures as Prometheus metric families, read at each scrape."""

    def __init__(self, gate: TurnAdmission) -> None:
        self._gate = gate

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        gate = self._gate
        yield GaugeMetricFamily(
            "regintel_admission_limit", "Chat turns admitted at once now", value=gate.limit
        )
        yield GaugeMetricFamily(
            "regintel_admission_ceiling",
            "The static limit (REGINTEL_MAX_TURNS_IN_FLIGHT)",
            value=gate.ceiling,
        )
        yield GaugeMetricFamily(
            "regintel_turns_in_flight", "Chat turns admitted and streaming", value=gate.in_flight
        )
        yield CounterMetricFamily(
            "regintel_admission_refused", "Chat turns refused 503 overloaded", value=gate.refused
        )
        yield CounterMetricFamily(
            "regintel_admission_waits",
            "Times a chat turn waited for room or a slot (queued, not refused at once)",
            value=gate.waits,
        )
        lag = gate.lag.current if gate.lag is not None else 0.0
        yield GaugeMetricFamily(
            "regintel_event_loop_lag_seconds", "How late the event loop runs, lately", value=lag
        )
        delay = GaugeMetricFamily(
            "regintel_chunk_delay_seconds",
            "Chunk delay of the last 100 ms interval with chunks (without a limiter: of the "
            "last chunks timed)",
            labels=["quantile"],
        )
        last = gate.chunk_delays.last
        if gate.limiter is None:  # nobody drains the window: read it as it is
            last = {q: gate.chunk_delays.percentile(q) for q in DelayWindow.QUANTILES}
        for q, seconds in last.items():
            delay.add_metric([f"{q:g}"], seconds)
        yield delay
        start = GaugeMetricFamily(
            "regintel_turn_start_delay_seconds",
            "Admitted turn to its response's start (preparing it), over the last 100 ms "
            "interval with starts (without a limiter: the last turns timed)",
            labels=["quantile"],
        )
        starts = gate.start_delays.last
        if gate.limiter is None:
            starts = {q: gate.start_delays.percentile(q) for q in DelayWindow.QUANTILES}
        for q, seconds in starts.items():
            start.add_metric([f"{q:g}"], seconds)
        yield start
        yield GaugeMetricFamily(
            "regintel_turns_preparing",
            "Admitted turns whose response has not started yet",
            value=gate.preparing,
        )
        if gate.limiter is not None:
            changes = CounterMetricFamily(
                "regintel_admission_limit_changes", "Limit changes by direction", labels=["way"]
            )
            changes.add_metric(["increase"], gate.limiter.increases)
            changes.add_metric(["decrease"], gate.limiter.decreases)
            yield changes


def admission_metrics(gate: TurnAdmission) -> bytes:
    """The Prometheus text of the gate's figures (appended to ``/metrics``)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_AdmissionCollector(gate))
    return generate_latest(registry)


def _replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` that hands the app the body already read, then the client's own events (a
    streaming response listens there for the disconnect)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def _handed_over(waiter: asyncio.Future[None]) -> bool:
    return waiter.done() and not waiter.cancelled()
