"""The PostgreSQL pool's checkout check makes its round trip only where it can tell something
(ADR 0029, second pass); the restart itself is tested against a real server
(``tests/integration/test_postgres_store.py``)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import cast

import pytest

from conversations.postgres import CheckoutCheck, Connection

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


class FakeConnection:
    """What the check uses of a psycopg connection, over one end of a socket pair."""

    autocommit = True

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self.closed = False
        self.broken = False
        self.executed: list[str] = []

    def fileno(self) -> int:
        return self._sock.fileno()

    async def execute(self, query: str) -> None:
        self.executed.append(query)


@pytest.fixture
def pair() -> Iterator[tuple[FakeConnection, socket.socket]]:
    ours, server = socket.socketpair()
    with ours, server:
        yield FakeConnection(ours), server


async def test_a_connection_just_returned_with_nothing_to_read_is_not_queried(
    pair: tuple[FakeConnection, socket.socket],
) -> None:
    fake, _ = pair
    conn = cast(Connection, fake)
    check = CheckoutCheck(idle_seconds=60.0)
    await check.check(conn)  # never returned yet: checked
    check.returned(conn)
    await check.check(conn)
    assert fake.executed == [""] and check.round_trips == 1


async def test_a_connection_the_server_closed_is_queried(
    pair: tuple[FakeConnection, socket.socket],
) -> None:
    fake, server = pair
    conn = cast(Connection, fake)
    check = CheckoutCheck(idle_seconds=60.0)
    check.returned(conn)
    server.sendall(b"E")  # the server's FATAL message, then the end of the stream
    server.close()
    await check.check(conn)
    assert fake.executed == [""]


async def test_a_connection_idle_longer_than_the_window_is_queried(
    pair: tuple[FakeConnection, socket.socket],
) -> None:
    fake, _ = pair
    conn = cast(Connection, fake)
    check = CheckoutCheck(idle_seconds=0.0)
    check.returned(conn)
    await check.check(conn)
    assert fake.executed == [""]


async def test_a_broken_connection_is_queried(pair: tuple[FakeConnection, socket.socket]) -> None:
    fake, _ = pair
    conn = cast(Connection, fake)
    check = CheckoutCheck(idle_seconds=60.0)
    check.returned(conn)
    fake.broken = True
    await check.check(conn)
    assert fake.executed == [""]


async def test_a_connection_returned_after_an_error_is_queried(
    pair: tuple[FakeConnection, socket.socket],
) -> None:
    fake, _ = pair
    conn = cast(Connection, fake)
    check = CheckoutCheck(idle_seconds=60.0)
    check.returned(conn)
    check.forget(conn)
    await check.check(conn)
    assert fake.executed == [""]
