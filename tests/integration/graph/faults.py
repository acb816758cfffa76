"""Fault injection for the conformance suite: real failures of a real store, mid-write.

Each backend gets a :class:`StoreFault` that breaks its real connection at a chosen moment:

- Bolt: :class:`BoltProxy`, a TCP proxy between the driver and the ArcadeDB server. Armed, it
  cuts the connection when the client sends ``COMMIT``, so every statement of the transaction
  ran on the server and none was committed; ``refuse`` drops every connection and accepts no
  new one (a server gone away).
- Ladybug: :class:`BreakingConnection` wraps the store's real writer connection and *closes*
  it when the second write statement of a transaction arrives, so the driver itself raises its
  own error (``RuntimeError: Connection is closed.``) with the first row already written inside
  the open transaction; ``refuse`` closes the real database underneath the store.

The Ladybug fault reaches into the store's private connection attributes: that is the one
place a test can stand between the store and its embedded database (there is no socket).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Protocol
from urllib.parse import urlsplit

# A Bolt COMMIT message: chunk header (2 bytes), tiny struct with no fields, signature 0x12,
# end-of-message marker. Parameters of the tests never contain these bytes.
_BOLT_COMMIT = b"\x00\x02\xb0\x12\x00\x00"
_WRITE_WORDS = ("CREATE", " SET ")


class StoreFault(Protocol):
    def break_next_write(self) -> None:
        """The connection breaks inside the next write transaction, after part of it reached
        the store and before it commits. Later transactions run normally."""

    def refuse(self) -> None:
        """From now on the store cannot be reached at all."""

    @property
    def cuts(self) -> int:
        """How many times a write was broken."""


class BoltProxy:
    """A loopback TCP proxy in front of a Bolt server that can cut its connections."""

    def __init__(self, upstream_uri: str) -> None:
        parts = urlsplit(upstream_uri)
        self._upstream = (parts.hostname or "127.0.0.1", parts.port or 7687)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._cut_at_commit = False
        self._refusing = False
        self.cuts = 0

    async def start(self) -> str:
        """Listen on a free loopback port; the ``bolt://`` URI to give the driver."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"bolt://127.0.0.1:{port}"

    def break_next_write(self) -> None:
        self._cut_at_commit = True

    def refuse(self) -> None:
        self._refusing = True
        self._close_all()

    async def aclose(self) -> None:
        self._close_all()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _close_all(self) -> None:
        for writer in list(self._writers):
            writer.close()
        self._writers.clear()

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        if self._refusing:
            client_w.close()
            return
        try:
            server_r, server_w = await asyncio.open_connection(*self._upstream)
        except OSError:
            client_w.close()
            return
        self._writers |= {client_w, server_w}
        for pipe in (
            self._client_to_server(client_r, server_w, client_w),
            self._pipe(server_r, client_w),
        ):
            task = asyncio.get_running_loop().create_task(pipe)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _client_to_server(
        self,
        source: asyncio.StreamReader,
        server: asyncio.StreamWriter,
        client: asyncio.StreamWriter,
    ) -> None:
        tail = b""
        with contextlib.suppress(OSError, ConnectionError):
            while data := await source.read(65536):
                seen = tail + data
                if self._cut_at_commit and _BOLT_COMMIT in seen:
                    self._cut_at_commit = False
                    self.cuts += 1
                    # COMMIT never reaches the server: the transaction dies with its connection.
                    client.close()
                    server.close()
                    return
                tail = seen[-(len(_BOLT_COMMIT) - 1) :]
                server.write(data)
                await server.drain()
        server.close()

    @staticmethod
    async def _pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, ConnectionError):
            while data := await source.read(65536):
                target.write(data)
                await target.drain()
        target.close()


class BreakingConnection:
    """Wraps a real ``ladybug.Connection``; armed, it closes that connection when the second
    write statement of a transaction arrives (or its ``COMMIT``, if there is only one)."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self._armed = False
        self._writes = 0
        self.cuts = 0

    def arm(self) -> None:
        self._armed = True
        self._writes = 0

    def execute(self, query: str, parameters: dict[str, Any] | None = None) -> Any:
        if self._armed:
            is_write = any(word in query for word in _WRITE_WORDS)
            self._writes += is_write
            if (is_write and self._writes == 2) or query == "COMMIT":
                self._armed = False
                self.cuts += 1
                self._real.close()  # the driver raises its own error on the call below
        return self._real.execute(query, parameters or {})

    def close(self) -> None:
        self._real.close()


class LadybugFault:
    """:class:`StoreFault` for a ``LadybugGraphStore`` (see the module docstring)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._connections: list[BreakingConnection] = []

    @property
    def cuts(self) -> int:
        return sum(connection.cuts for connection in self._connections)

    def break_next_write(self) -> None:
        self._store._open()
        connection = BreakingConnection(self._store._writer)
        connection.arm()
        self._store._writer = connection
        self._connections.append(connection)

    def refuse(self) -> None:
        self._store._open()
        self._store._db.close()
