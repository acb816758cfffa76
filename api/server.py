"""How the API is served: uvicorn on uvloop and httptools, with a deadline for every request's
head.

uvicorn bounds the size of a request head and closes a keep-alive connection that stays idle
(``timeout_keep_alive``), but it waits forever for a head that arrives a byte at a time, and
for a connection that sends nothing at all: a handful of slow clients hold every connection
slot. The protocols here close a connection whose request head is not complete within
``header_read_timeout_seconds`` of the connection opening (or of the previous response
ending). The body has its own deadline in :class:`api.body_limit.BodySizeLimit`, where the app
reads it.

Two parsers, one deadline (ADR 0019, ADR 0029): :class:`TimedHttpToolsProtocol` over
``httptools`` (the C parser, the default) and :class:`TimedH11Protocol` over the pure-Python
``h11`` (``parser="h11"``, e.g. to compare). The
event loop is ``uvloop`` when installed. ``regintel serve`` builds the server with
:func:`server_config`; the Docker image runs ``uvicorn ... --loop uvloop --http
api.server:TimedHttpToolsProtocol``, where the deadline comes from the same setting
(``REGINTEL_HEADER_READ_TIMEOUT_SECONDS``), read once. ``regintel serve --workers N``
(:func:`serve_workers`) runs N such processes on one socket, the same way, and only on stores
the processes can share (:func:`workers_refusal`, ADR 0056).

Two more guards live here, where they cost least (ADR 0030, third addendum):

- **head size**: a request head over ``max_head_bytes`` (``REGINTEL_MAX_HEAD_BYTES``) is
  answered 431 ``header_too_large`` and the connection closed (httptools sets no limit of its
  own; an 8 MB ``Authorization`` header was accepted);
- **connections per client address**: past ``max_connections_per_client``
  (``REGINTEL_MAX_CONNECTIONS_PER_CLIENT``) open connections from one peer address, a new one
  is answered 429 ``too_many_connections`` and closed before anything is parsed. The peer is
  the socket's: behind a reverse proxy every client shares the proxy's address — raise the cap
  or set 0 (off) there and let the proxy cap per client.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from collections import Counter
from typing import Any, ClassVar, Literal

import h11
import structlog
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from api.settings import Settings

__all__ = [
    "PRODUCTION_TOPOLOGY",
    "TimedH11Protocol",
    "TimedHttpToolsProtocol",
    "event_loop",
    "serve",
    "serve_workers",
    "server_config",
    "timed_protocol",
    "unshared_stores",
    "workers_refusal",
]

log = structlog.get_logger(__name__)


def _raw_error(status: str, code: str, message: str) -> bytes:
    """A whole HTTP/1.1 error response with our JSON body, written before/without the app."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class _ConnectionGuards:
    """The head size cap and the per-address connection cap, shared by both protocols. Each
    protocol class counts its own open connections (a server uses one class)."""

    max_head_bytes: ClassVar[int | None] = None  # None: the setting, read once
    max_connections_per_client: ClassVar[int | None] = None
    _open: ClassVar[Counter[str]]

    _peer: str | None = None
    _head_bytes = 0
    _refused = False  # refused at connection_made: the base protocol never saw it
    transport: asyncio.Transport

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._open = Counter()

    @classmethod
    def _limits(cls) -> tuple[int, int]:
        if cls.max_head_bytes is None or cls.max_connections_per_client is None:
            settings = Settings()
            if cls.max_head_bytes is None:
                cls.max_head_bytes = settings.max_head_bytes
            if cls.max_connections_per_client is None:
                cls.max_connections_per_client = settings.max_connections_per_client
        return cls.max_head_bytes, cls.max_connections_per_client

    def _admit_connection(self, transport: asyncio.Transport) -> bool:
        """Count the connection against its peer's cap; False: refused and closed."""
        peer = transport.get_extra_info("peername")
        address = peer[0] if isinstance(peer, tuple) and peer else None
        cap = self._limits()[1]
        if address is None or cap <= 0:
            return True
        if self._open[address] >= cap:
            log.info("connection_cap_reached", client=address, open=self._open[address])
            transport.write(
                _raw_error(
                    "429 Too Many Requests",
                    "too_many_connections",
                    f"more than {cap} open connections from this address",
                )
            )
            transport.close()
            self._refused = True
            return False
        self._open[address] += 1
        self._peer = address
        return True

    def _forget_connection(self) -> None:
        if self._peer is not None:
            self._open[self._peer] -= 1
            if self._open[self._peer] <= 0:
                del self._open[self._peer]
            self._peer = None

    def _head_too_large(self, data: bytes) -> bool:
        """Count what of ``data`` belongs to the pending head (up to its blank line); True
        (answered 431, closed) past the cap — checked before the parser sees ``data``."""
        end = data.find(b"\r\n\r\n")
        self._head_bytes += end + 4 if end >= 0 else len(data)
        cap = self._limits()[0]
        if self._head_bytes <= cap:
            return False
        if not self.transport.is_closing():
            log.info("request_head_too_large", bytes=self._head_bytes)
            self.transport.write(
                _raw_error(
                    "431 Request Header Fields Too Large",
                    "header_too_large",
                    f"request head over {cap} bytes",
                )
            )
            self.transport.close()
        return True


class TimedH11Protocol(_ConnectionGuards, H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request head is late."""

    header_timeout: ClassVar[float | None] = None  # None: the setting, read once

    _head_deadline: asyncio.TimerHandle | None = None

    @classmethod
    def _timeout(cls) -> float:
        if cls.header_timeout is None:
            cls.header_timeout = Settings().header_read_timeout_seconds
        return cls.header_timeout

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if not self._admit_connection(transport):
            return
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self.conn.their_state is h11.IDLE and self._head_too_large(data):
            self._disarm()
            return
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._head_bytes = 0
            self._disarm()  # the head is in; the body's deadline is the app's

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # the next request's head, on a kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._forget_connection()
        if not self._refused:
            super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._head_deadline = self.loop.call_later(self._timeout(), self._head_timed_out)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_timed_out(self) -> None:
        self._head_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            log.info("request_head_timeout", client=self.client, seconds=self._timeout())
            self.transport.close()


class TimedHttpToolsProtocol(_ConnectionGuards, HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection whose request head is late.

    httptools calls ``on_message_begin`` at a request's first byte and
    ``on_headers_complete`` when its head is in: the deadline runs from the connection
    (or the previous response) to the latter.
    """

    header_timeout: ClassVar[float | None] = None  # None: the setting, read once

    _head_deadline: asyncio.TimerHandle | None = None
    _head_pending = True
    _parsing_head = True  # the parser is between messages or inside a head (for the size cap)

    @classmethod
    def _timeout(cls) -> float:
        if cls.header_timeout is None:
            cls.header_timeout = Settings().header_read_timeout_seconds
        return cls.header_timeout

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if not self._admit_connection(transport):
            return
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._parsing_head and self._head_too_large(data):
            self._disarm()
            return
        super().data_received(data)

    def on_message_complete(self) -> None:
        self._parsing_head = True
        super().on_message_complete()

    def on_headers_complete(self) -> None:
        self._head_bytes = 0
        self._parsing_head = False
        self._head_pending = False
        self._disarm()  # the head is in; the body's deadline is the app's
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # the next request's head, on a kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._forget_connection()
        if not self._refused:
            super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._head_pending = True
        self._head_deadline = self.loop.call_later(self._timeout(), self._head_timed_out)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_timed_out(self) -> None:
        self._head_deadline = None
        if self._head_pending and not self.transport.is_closing():
            log.info("request_head_timeout", client=self.client, seconds=self._timeout())
            self.transport.close()


def timed_protocol(
    header_timeout: float,
    *,
    parser: Literal["httptools", "h11"] = "httptools",
    max_head_bytes: int = 32 * 1024,
    max_connections_per_client: int = 64,
) -> type[asyncio.Protocol]:
    """The timed protocol of ``parser`` with its deadline and caps fixed (no settings read)."""
    base: type[Any] = TimedHttpToolsProtocol if parser == "httptools" else TimedH11Protocol
    return type(
        base.__name__,
        (base,),
        {
            "header_timeout": header_timeout,
            "max_head_bytes": max_head_bytes,
            "max_connections_per_client": max_connections_per_client,
        },
    )


def event_loop() -> str:
    """``uvloop`` when installed, else asyncio's own loop."""
    return "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"


def server_config(
    app: Any,
    settings: Settings,
    *,
    parser: Literal["httptools", "h11"] = "httptools",
    **options: Any,
) -> uvicorn.Config:
    """The uvicorn configuration of ``regintel serve``: uvloop (when installed) and httptools
    with the head deadline, and the keep-alive timeout of the settings. ``options`` go to
    :class:`uvicorn.Config` as they are (``host``, ``port``, ``log_level``, ...)."""
    return uvicorn.Config(
        app,
        http=timed_protocol(
            settings.header_read_timeout_seconds,
            parser=parser,
            max_head_bytes=settings.max_head_bytes,
            max_connections_per_client=settings.max_connections_per_client,
        ),
        loop=options.pop("loop", event_loop()),
        timeout_keep_alive=settings.keep_alive_timeout_seconds,
        **options,
    )


def serve(app: Any, settings: Settings, *, host: str, port: int) -> None:
    """Serve ``app`` until interrupted."""
    uvicorn.Server(server_config(app, settings, host=host, port=port, log_level="info")).run()


PRODUCTION_TOPOLOGY = (
    "PostgreSQL + Redis + a Bolt graph server: REGINTEL_CONVERSATION_STORE=postgres, "
    "REGINTEL_REDIS_URL, REGINTEL_GRAPH_BACKEND=bolt"
)


def unshared_stores(settings: Settings) -> list[str]:
    """What of ``settings`` one process alone may use: the embedded, single-writer stores and
    the in-process bus and rate limits (no Redis). Empty: several workers may share them."""
    found = []
    if settings.graph_backend == "ladybug":
        found.append("the embedded Ladybug graph")
    if settings.conversation_store == "sqlite":
        found.append("SQLite conversations")
    if settings.redis_url is None:
        found.append("no Redis (in-process bus and rate limits)")
    return found


def workers_refusal(settings: Settings, workers: int) -> str | None:
    """The one-line reason ``workers`` processes cannot share ``settings``, or None."""
    unshared = unshared_stores(settings) if workers > 1 else []
    if not unshared:
        return None
    return (
        f"--workers {workers} needs stores the workers can share, but this configuration has "
        f"{', '.join(unshared)} (single-writer, one process); run one worker, or use "
        f"{PRODUCTION_TOPOLOGY}"
    )


def serve_workers(settings: Settings, *, host: str, port: int, workers: int) -> None:
    """Serve the app in ``workers`` processes on one socket (uvicorn's supervisor, which
    restarts a worker that dies) until interrupted. Each process builds the app from the same
    ``REGINTEL_*`` settings (``api.app:create_app``) and reads its head deadline and caps in
    :class:`TimedHttpToolsProtocol`; stores, bus and rate limits are the shared ones of the
    settings (:func:`workers_refusal` must say None). The admission limit is each worker's."""
    uvicorn.run(
        "api.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http="api.server:TimedHttpToolsProtocol",
        loop=event_loop(),
        timeout_keep_alive=settings.keep_alive_timeout_seconds,
        log_level="info",
    )
