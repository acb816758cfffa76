"""The API as a real server process, for tests that kill it (``SIGKILL``) or talk to it over a
raw socket: ``python -m tests.support.paced_server`` (the real app, the extractive provider
paced to a slow stream), configured with ``REGINTEL_*`` variables like production.

    with server_process(env) as server:
        ... server.base ...
        server.kill()          # SIGKILL, no shutdown of any kind

A new process on the same data folder or DSN is a restart.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class ServerProcess:
    base: str
    host: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def kill(self) -> None:
        """``SIGKILL``: the process gets no chance to save anything."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def server_process(
    env: Mapping[str, str],
    log: Path,
    *,
    pace: float = 0.0,
    startup_s: float = 90.0,
    record: Path | None = None,
    gate: Path | None = None,
) -> Iterator[ServerProcess]:
    """Start the server with ``env`` on top of this process's environment; wait for /health.
    ``record``: a file the provider appends every request it gets to (one JSON line each);
    ``gate``: a folder where answers to questions starting "Hold…" wait half-way
    (``tests.support.paced_server``)."""
    port = free_port()
    command = [
        sys.executable, "-m", "tests.support.paced_server",
        "--port", str(port), "--pace", str(pace),
    ]  # fmt: skip
    if record is not None:
        command += ["--record", str(record)]
    if gate is not None:
        command += ["--gate", str(gate)]
    full_env = {**os.environ, "REGINTEL_LOG_JSON": "false", **env}
    with log.open("ab") as out:
        process = subprocess.Popen(
            command, cwd=ROOT, env=full_env, stdout=out, stderr=subprocess.STDOUT
        )
    server = ServerProcess(f"http://127.0.0.1:{port}", "127.0.0.1", port, process, log)
    try:
        deadline = time.monotonic() + startup_s
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited at start-up:\n{server.log_tail()}")
            try:
                if httpx.get(f"{server.base}/health", timeout=2).status_code in (200, 503):
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start:\n{server.log_tail()}")
            time.sleep(0.1)
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=30)
