"""Start a throwaway ``redis-server`` for the tests of the Redis adapters.

The machine's ``redis-server`` binary (``make system-deps`` installs Debian's package when it
is missing; ``$REGINTEL_REDIS_SERVER`` overrides the path) runs as a plain child process on a
free loopback port, in a temporary directory, with persistence off. It is never a server that
happens to run already. ``stop()`` and ``start()`` take it down and bring it back on the same
port, for the tests of what happens while Redis is away::

    with running_redis() as server:
        url = server.url(db=3)
        server.stop(); ...; server.start()
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

START_TIMEOUT_S = 20.0


class RedisStartError(RuntimeError):
    """redis-server could not be started; the message says why."""


def find_redis_server() -> str:
    override = os.environ.get("REGINTEL_REDIS_SERVER")
    found = override or shutil.which("redis-server")
    if not found or not Path(found).exists():
        raise RedisStartError(
            "no redis-server binary: `make system-deps` installs it (apt-get install "
            "redis-server), or point REGINTEL_REDIS_SERVER at one"
        )
    return found


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@dataclass
class RedisServer:
    binary: str
    port: int
    root: Path
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        """Start (or restart, on the same port) and wait until it answers PING."""
        if self.process is not None and self.process.poll() is None:
            return
        log = (self.root / "redis.log").open("ab")
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.root), "--protected-mode", "no"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _answers(self.port):
            if self.process.poll() is not None:
                raise RedisStartError(f"redis-server exited: {self._log_tail()}")
            if time.monotonic() > deadline:
                raise RedisStartError(f"redis-server did not answer: {self._log_tail()}")
            time.sleep(0.02)

    def stop(self) -> None:
        """SIGTERM and wait: every client connection drops, the data goes (no persistence)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)

    def _log_tail(self) -> str:
        try:
            return (self.root / "redis.log").read_text(errors="replace")[-2000:]
        except OSError:
            return "(no log)"


@contextlib.contextmanager
def running_redis() -> Iterator[RedisServer]:
    binary = find_redis_server()
    with tempfile.TemporaryDirectory(prefix="regintel-redis-") as tmp:
        server = RedisServer(binary, _free_port(), Path(tmp))
        try:
            server.start()
            yield server
        finally:
            server.stop()
