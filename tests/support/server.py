"""A real uvicorn server on a free loopback port, in a thread, for end-to-end tests."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn


@contextmanager
def running_server(app: Any) -> Iterator[str]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@dataclass
class SseEvent:
    event: str | None
    data: dict[str, Any] | None
    comment: str | None = None
    id: str | None = None  # the event's SSE ``id`` (a graph patch's, for ``Last-Event-ID``)

    @property
    def payload(self) -> dict[str, Any]:
        """``data``, for an event that must carry some."""
        assert self.data is not None, f"{self.event!r} event without data"
        return self.data


async def sse_events(response: httpx.Response) -> AsyncIterator[SseEvent]:
    """Parse an SSE body as it arrives; comment frames are yielded too."""
    event: str | None = None
    event_id: str | None = None
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith(":"):
            yield SseEvent(None, None, comment=line[1:].strip())
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif line == "" and (event or data):
            payload = json.loads("\n".join(data)) if data else None
            yield SseEvent(event, payload, id=event_id)
            event, event_id, data = None, None, []
