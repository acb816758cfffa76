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
(``REGINTEL_HEADER_READ_TIMEOUT_SECONDS``), read once.
"""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any, ClassVar, Literal

import h11
import structlog
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from api.settings import Settings

__all__ = [
    "TimedH11Protocol",
    "TimedHttpToolsProtocol",
    "event_loop",
    "serve",
    "server_config",
    "timed_protocol",
]

log = structlog.get_logger(__name__)


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request head is late."""

    header_timeout: ClassVar[float | None] = None  # None: the setting, read once

    _head_deadline: asyncio.TimerHandle | None = None

    @classmethod
    def _timeout(cls) -> float:
        if cls.header_timeout is None:
            cls.header_timeout = Settings().header_read_timeout_seconds
        return cls.header_timeout

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()  # the head is in; the body's deadline is the app's

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # the next request's head, on a kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
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


class TimedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection whose request head is late.

    httptools calls ``on_message_begin`` at a request's first byte and
    ``on_headers_complete`` when its head is in: the deadline runs from the connection
    (or the previous response) to the latter.
    """

    header_timeout: ClassVar[float | None] = None  # None: the setting, read once

    _head_deadline: asyncio.TimerHandle | None = None
    _head_pending = True

    @classmethod
    def _timeout(cls) -> float:
        if cls.header_timeout is None:
            cls.header_timeout = Settings().header_read_timeout_seconds
        return cls.header_timeout

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_headers_complete(self) -> None:
        self._head_pending = False
        self._disarm()  # the head is in; the body's deadline is the app's
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # the next request's head, on a kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
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
    header_timeout: float, *, parser: Literal["httptools", "h11"] = "httptools"
) -> type[asyncio.Protocol]:
    """The timed protocol of ``parser`` with its deadline fixed (no settings read)."""
    base: type[Any] = TimedHttpToolsProtocol if parser == "httptools" else TimedH11Protocol
    return type(base.__name__, (base,), {"header_timeout": header_timeout})


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
        http=timed_protocol(settings.header_read_timeout_seconds, parser=parser),
        loop=options.pop("loop", event_loop()),
        timeout_keep_alive=settings.keep_alive_timeout_seconds,
        **options,
    )


def serve(app: Any, settings: Settings, *, host: str, port: int) -> None:
    """Serve ``app`` until interrupted."""
    uvicorn.Server(server_config(app, settings, host=host, port=port, log_level="info")).run()
