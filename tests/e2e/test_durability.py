"""Durability against a real server process: ``kill -9`` mid-stream, a PostgreSQL restart under
the pool, slow clients on a raw socket, and JSON too deep to parse.

The server is ``tests.support.paced_server`` (the real app, served like ``regintel serve``,
the extractive provider paced so an answer takes seconds), started as its own process.
"""

import asyncio
import json
import socket
import time
import uuid
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from tests.support.server import sse_events
from tests.support.server_process import ServerProcess, server_process

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
QUESTION = "What is the standard rate of VAT in Ireland?"
STREAMING = {
    "REGINTEL_ANSWER_WRITE_INTERVAL_SECONDS": "0.05",
    "REGINTEL_ANSWER_WRITE_MIN_CHARS": "1",
    "REGINTEL_STREAM_LEASE_SECONDS": "1.5",
}


@pytest.fixture(params=["sqlite", "postgres"])
def store_env(request, seeded_data_dir):
    env = {"REGINTEL_DATA_DIR": str(seeded_data_dir), **STREAMING}
    cluster = None
    if request.param == "postgres":
        cluster = request.getfixturevalue("postgres_cluster")
        name = f"kill_{uuid.uuid4().hex[:12]}"
        env |= {
            "REGINTEL_CONVERSATION_STORE": "postgres",
            "REGINTEL_POSTGRES_DSN": cluster.create_database(name),
        }
    return env, cluster


async def conversation(base: str, conversation_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
        response = await client.get(f"/api/conversations/{conversation_id}", headers=ALICE)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


async def test_kill_9_mid_stream_keeps_the_question_and_the_partial_answer_marked_interrupted(
    store_env, tmp_path
):
    env, cluster = store_env
    log = tmp_path / "server.log"
    received, events = "", []
    with server_process(env, log, pace=0.15) as server:
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            async with client.stream(
                "POST", "/api/chat", headers=ALICE, json={"message": QUESTION}
            ) as response:
                assert response.status_code == 200
                with pytest.raises(httpx.HTTPError):  # the connection drops with the process
                    with anyio.fail_after(60):
                        async for event in sse_events(response):
                            events.append(event.event)
                            if event.event == "metadata":
                                conversation_id = event.payload["conversationId"]
                            elif event.event == "text":
                                received += event.payload["delta"]
                                if len(received) > 40:
                                    saved = await wait_for_checkpoint(server, conversation_id)
                                    server.kill()
    assert "done" not in events and received
    assert saved["messages"][1]["status"] == "streaming"
    checkpointed = saved["messages"][1]["content"]

    with server_process(env, log) as restarted:  # the same data folder / database: a restart
        with anyio.fail_after(30):
            while True:
                messages = (await conversation(restarted.base, conversation_id))["messages"]
                if messages[-1]["status"] != "streaming":
                    break
                await asyncio.sleep(0.2)  # until the dead stream's lease has passed
        user, answer = messages
        assert (user["role"], user["content"], user["status"]) == ("user", QUESTION, "complete")
        assert answer["role"] == "assistant" and answer["status"] == "interrupted"
        assert answer["content"].startswith(checkpointed) and answer["content"]
        assert received.startswith(answer["content"]) or answer["content"].startswith(received)

        if cluster is not None:
            # the pool's connections die with a PostgreSQL restart; the next request succeeds
            await asyncio.to_thread(cluster.restart)
            for _ in range(3):
                again = await conversation(restarted.base, conversation_id)
                assert [m["status"] for m in again["messages"]] == ["complete", "interrupted"]


async def wait_for_checkpoint(server: ServerProcess, conversation_id: str) -> dict[str, Any]:
    """Read the conversation from the live server until the answer so far is in the store."""
    with anyio.fail_after(20):
        while True:
            body = await conversation(server.base, conversation_id)
            if len(body["messages"]) == 2 and body["messages"][1]["content"]:
                return body
            await asyncio.sleep(0.05)


# -- slow clients and deep JSON, on a raw socket -------------------------------------------

TIMEOUTS = {
    "REGINTEL_HEADER_READ_TIMEOUT_SECONDS": "1",
    "REGINTEL_BODY_READ_TIMEOUT_SECONDS": "1",
    "REGINTEL_MAX_JSON_DEPTH": "32",
}


@pytest.fixture(scope="module")
def guarded(tmp_path_factory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("guarded")
    env = {"REGINTEL_DATA_DIR": str(folder / "data"), **TIMEOUTS}
    with server_process(env, folder / "server.log") as server:
        yield server


def connect(server: ServerProcess) -> socket.socket:
    sock = socket.create_connection((server.host, server.port), timeout=15)
    sock.settimeout(15)
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def response_of(raw: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if b"transfer-encoding: chunked" in head.lower():
        size, _, rest = body.partition(b"\r\n")
        body = rest[: int(size, 16)]
    return status, json.loads(body)


def test_a_request_head_sent_a_byte_at_a_time_is_cut_off(guarded):
    head = b"POST /api/chat HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer dev-acme-alice\r\n"
    with connect(guarded) as sock:
        sent, closed = 0, False
        for byte in head:  # ~100 bytes at 0.1 s: ten seconds if nobody stops it
            try:
                sock.sendall(bytes([byte]))
            except OSError:  # reset: the server closed the connection
                closed = True
                break
            sent += 1
            time.sleep(0.1)
        if not closed:
            closed = sock.recv(1) == b""
    assert closed and sent < len(head)


def test_a_connection_that_sends_nothing_is_closed(guarded):
    with connect(guarded) as sock:
        assert sock.recv(1) == b""  # closed by the server (a hang would hit the socket timeout)


def test_a_body_that_trickles_gets_408(guarded):
    with connect(guarded) as sock:
        sock.sendall(
            b"POST /api/chat HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer dev-acme-alice\r\n"
            b"Content-Type: application/json\r\nConnection: close\r\nContent-Length: 100\r\n\r\n"
            b'{"message": '
        )
        status, body = response_of(read_all(sock))
    assert (status, body["error"]["code"]) == (408, "request_timeout")


def test_a_prompt_client_on_a_raw_socket_is_served(guarded):
    body = json.dumps({"message": "hi", "conversationId": "no-such-id"}).encode()
    with connect(guarded) as sock:
        sock.sendall(
            b"POST /api/chat HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer dev-acme-alice\r\n"
            b"Content-Type: application/json\r\nConnection: close\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        status, answer = response_of(read_all(sock))
    assert (status, answer["error"]["code"]) == (404, "not_found")


def test_json_too_deep_is_refused_before_the_body_is_even_complete(guarded):
    # 60,000 bytes declared; the first 2,000 are enough to know: no parser ever sees them
    with connect(guarded) as sock:
        sock.sendall(
            b"POST /api/chat HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer dev-acme-alice\r\n"
            b"Content-Type: application/json\r\nConnection: close\r\n"
            b"Content-Length: 60000\r\n\r\n" + b'{"message": ' + b"[" * 2000
        )
        status, body = response_of(read_all(sock))
    assert (status, body["error"]["code"]) == (400, "json_too_deep")


async def test_deep_json_in_a_whole_body_and_inside_strings(guarded):
    async with httpx.AsyncClient(base_url=guarded.base, timeout=30, headers=ALICE) as client:
        deep = b'{"message": ' + b"[" * 30_000 + b"]" * 30_000 + b"}"
        response = await client.post(
            "/api/chat", content=deep, headers={"Content-Type": "application/json"}
        )
        assert (response.status_code, response.json()["error"]["code"]) == (400, "json_too_deep")
        # brackets inside a string are text, not nesting: this one is merely unknown
        text = {"message": "[" * 5000 + '\\"{', "conversationId": "no-such-id"}
        response = await client.post("/api/chat", json=text)
        assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found")
        schema = (await client.get("/openapi.json")).json()
    responses = schema["paths"]["/api/chat"]["post"]["responses"]
    assert "json_too_deep" in responses["400"]["description"]
    assert "request_timeout" in responses["408"]["description"]
