"""Nobody without a key can take chat down (issue 30, ADR 0030 third addendum), over real HTTP
against the server as ``regintel serve`` runs it.

A turn slot is held only by an authenticated caller whose body has been read: sockets that send
the head of ``POST /api/chat`` with ``Content-Length: 100`` and one byte, without credentials,
hold nothing (they get 401 from the head alone), so ten times the limit of them cannot keep two
tenants' turns out. A slow authenticated body is read under its own short deadline and
per-address budget, outside the slots; one address cannot hold more than its share of
connections; an oversized head is 431.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from tests.support.server import sse_events
from tests.support.server_process import ServerProcess, server_process

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

LIMIT = 2
ENV = {
    "REGINTEL_MAX_TURNS_IN_FLIGHT": str(LIMIT),
    "REGINTEL_ADMISSION_QUEUE_SECONDS": "0.3",
    "REGINTEL_CHAT_BODY_READ_TIMEOUT_SECONDS": "1.5",
    "REGINTEL_CHAT_BODY_READS_PER_CLIENT": "3",
    "REGINTEL_MAX_CONNECTIONS_PER_CLIENT": "12",
    "REGINTEL_MAX_HEAD_BYTES": "8192",
    "REGINTEL_HEADER_READ_TIMEOUT_SECONDS": "20",
}
SLOW_HEAD = (
    b"POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: 100\r\n"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory, seeded_template) -> Iterator[ServerProcess]:
    from tests.support.seeded import copy_data_dir

    folder = tmp_path_factory.mktemp("slow_clients")
    data = copy_data_dir(seeded_template, folder / "data")
    with server_process({"REGINTEL_DATA_DIR": str(data), **ENV}, folder / "log", pace=0.02) as s:
        yield s


def open_slow(server: ServerProcess, source: str, extra_head: bytes = b"") -> socket.socket:
    """A socket from ``source`` that sent a chat request's head and one byte of its body."""
    sock = socket.create_connection(
        (server.host, server.port), timeout=15, source_address=(source, 0)
    )
    sock.sendall(SLOW_HEAD + extra_head + b"\r\n{")
    return sock


def response_of(sock: socket.socket) -> tuple[int, dict[str, Any]]:
    """The one response the server sent on ``sock`` (read until its body is complete)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(head.split(b" ", 2)[1]), json.loads(body[:length])


async def turn(base: str, key: str, outcomes: list[tuple[str, int, str | None]]) -> None:
    async with (
        httpx.AsyncClient(base_url=base, timeout=30) as client,
        client.stream(
            "POST",
            "/api/chat",
            headers={"Authorization": f"Bearer {key}"},
            json={"message": "What is the VAT rate in Ireland?"},
        ) as response,
    ):
        if response.status_code != 200:
            await response.aread()
            outcomes.append((key, response.status_code, response.json()["error"]["code"]))
            return
        events = [e async for e in sse_events(response) if e.event]
        outcomes.append((key, 200, events[-1].payload.get("status")))


async def two_tenants_turns(base: str) -> list[tuple[str, int, str | None]]:
    outcomes: list[tuple[str, int, str | None]] = []
    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(turn, base, "dev-acme-alice", outcomes)
            group.start_soon(turn, base, "dev-globex-carol", outcomes)
    return sorted(outcomes)


def expected_complete() -> list[tuple[str, int, str | None]]:
    return [("dev-acme-alice", 200, "complete"), ("dev-globex-carol", 200, "complete")]


async def test_ten_times_the_limit_of_slow_anonymous_sockets_keep_no_tenant_out(server):
    sources = [f"127.0.0.{n}" for n in range(10, 14)]
    with contextlib.ExitStack() as held:
        sockets = [
            held.enter_context(open_slow(server, sources[n % len(sources)]))
            for n in range(10 * LIMIT)
        ]
        await anyio.sleep(0.3)  # every head is in; before the fix each one now held a slot for 30 s
        assert await two_tenants_turns(server.base) == expected_complete()
        # ...and the anonymous sockets were told 401 from their head alone
        for sock in sockets:
            status, body = response_of(sock)
            assert (status, body["error"]["code"]) == (401, "unauthenticated")


async def test_a_slow_authenticated_body_holds_no_slot_and_gets_408(server):
    bob = b"Authorization: Bearer dev-acme-bob\r\n"
    with contextlib.ExitStack() as held:
        slow = [held.enter_context(open_slow(server, f"127.0.0.{n}", bob)) for n in (20, 21, 22)]
        start = time.monotonic()
        assert await two_tenants_turns(server.base) == expected_complete()
        for sock in slow:
            status, body = response_of(sock)
            assert (status, body["error"]["code"]) == (408, "request_timeout")
        assert time.monotonic() - start < 10  # the chat body's own short deadline (1.5 s)


async def test_one_address_reads_only_its_share_of_chat_bodies_at_once(server):
    bob = b"Authorization: Bearer dev-acme-bob\r\n"
    with contextlib.ExitStack() as held:
        slow = [held.enter_context(open_slow(server, "127.0.0.30", bob)) for _ in range(3)]
        await anyio.sleep(0.3)
        extra = held.enter_context(open_slow(server, "127.0.0.30", bob))
        # other addresses' turns are served meanwhile
        assert await two_tenants_turns(server.base) == expected_complete()
        # it waited for a read to end: 429 at its deadline, or 408 when the slow reads ended
        # first (their deadlines came earlier) and its own body never came; never a turn
        status, body = response_of(extra)
        assert (status, body["error"]["code"]) in ((429, "rate_limited"), (408, "request_timeout"))
        for sock in slow:
            assert response_of(sock)[0] == 408


async def test_a_burst_of_turns_from_one_address_is_served_not_refused(server):
    """Twice as many turns from one address as it may have bodies read at once, each body
    arriving a moment after its head: the ones over the budget wait for a read to end and are
    served (refused at once, a busy worker turned a burst of ten turns into 429s)."""
    body = json.dumps({"message": "What is the VAT rate in Ireland?"}).encode()
    head = (
        b"POST /api/chat HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer dev-acme-alice\r\n"
        b"Content-Type: application/json\r\nConnection: close\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
    )
    with contextlib.ExitStack() as held:
        socks = []
        for _ in range(6):  # the per-address budget is 3
            sock = socket.create_connection(
                (server.host, server.port), timeout=30, source_address=("127.0.0.50", 0)
            )
            held.enter_context(sock)
            sock.sendall(head)
            socks.append(sock)
        await anyio.sleep(0.5)  # all six wait for their bodies (or for a read to end)
        for sock in socks:
            sock.sendall(body)
        statuses = [int(sock.recv(64).split(b" ", 2)[1]) for sock in socks]
    assert 429 not in statuses, statuses
    assert set(statuses) <= {200, 503}  # admitted, or over the turn limit (2)


async def test_one_address_cannot_hold_more_than_its_connections(server):
    source = "127.0.0.40"
    with contextlib.ExitStack() as held:
        for _ in range(12):
            sock = socket.create_connection(
                (server.host, server.port), timeout=15, source_address=(source, 0)
            )
            held.enter_context(sock)
        await anyio.sleep(0.2)
        over = held.enter_context(
            socket.create_connection(
                (server.host, server.port), timeout=15, source_address=(source, 0)
            )
        )
        status, body = response_of(over)
        assert (status, body["error"]["code"]) == (429, "too_many_connections")
        assert over.recv(1) == b""  # and closed
        # other addresses are not affected
        assert await two_tenants_turns(server.base) == expected_complete()
    await anyio.sleep(0.2)  # the twelve closed: the address may connect again
    async with httpx.AsyncClient(
        base_url=server.base, transport=httpx.AsyncHTTPTransport(local_address=source)
    ) as client:
        assert (await client.get("/health")).status_code in (200, 503)


def test_a_request_head_over_the_cap_gets_431(server):
    with socket.create_connection((server.host, server.port), timeout=15) as sock:
        sock.sendall(
            b"GET /api/conversations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
            + b"a" * 20_000
            + b"\r\n\r\n"
        )
        status, body = response_of(sock)
    assert (status, body["error"]["code"]) == (431, "header_too_large")
    with socket.create_connection((server.host, server.port), timeout=15) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 4000 + b"\r\n\r\n")
        assert response_of(sock)[0] in (200, 503)  # under the cap: served
