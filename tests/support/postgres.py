"""Start a throwaway PostgreSQL cluster for the tests of the PostgreSQL conversation store.

Uses the server binaries of the machine (``/usr/lib/postgresql/<version>/bin``, Debian's layout;
``$REGINTEL_PG_BIN`` overrides, the newest version wins otherwise). The cluster lives in a fresh
temporary directory: ``initdb -A trust --no-sync``, a free loopback port, the unix socket in the
same directory, ``fsync=off``; it is stopped with ``pg_ctl -m fast stop`` and the directory is
removed on exit. ``initdb`` refuses to run as root, so as root every server command runs as the
``postgres`` user (``runuser``, or ``su`` where there is no ``runuser``) in a directory it owns.

Used by ``tests/integration/conftest.py``::

    with running_postgres() as cluster:
        dsn = cluster.create_database("t1")

``as_app_role`` runs one raw query the way the adapter does (app role, the caller's JWT claims
in ``request.jwt.claims``) but without the adapter and its ``tenant_id`` / ``user_id`` filters:
what the tests of row-level security need.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import pwd
import re
import shlex
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from conversations.postgres import APP_ROLE

BIN_GLOB = "/usr/lib/postgresql/*/bin"
SUPERUSER = "postgres"
OS_USER = "postgres"
START_ATTEMPTS = 3


class PostgresStartError(RuntimeError):
    """The cluster could not be started; the message says why (and carries the log tail)."""


@dataclass(frozen=True)
class PostgresCluster:
    host: str
    port: int
    socket_dir: Path
    root: Path
    bin_dir: Path
    started_in_s: float
    options: str = ""

    def restart(self) -> None:
        """``pg_ctl restart -m fast``: every open connection is dropped; same port, same data."""
        _run(
            [str(self.bin_dir / "pg_ctl"), "-D", str(self.root / "data"), "-o", self.options,
             "-l", str(self.root / "server.log"), "-m", "fast", "-w", "-t", "60", "restart"],
            "pg_ctl restart",
            self.root / "server.log",
        )  # fmt: skip

    def dsn(self, dbname: str = "postgres") -> str:
        return f"host={self.host} port={self.port} user={SUPERUSER} dbname={dbname}"

    def create_database(self, name: str) -> str:
        """``CREATE DATABASE name`` (a copy of template1: a few ms) and return its DSN."""
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{_identifier(name)}"'.encode())
        return self.dsn(name)

    def drop_database(self, name: str) -> None:
        """Drop it, disconnecting whatever still uses it."""
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{_identifier(name)}" WITH (FORCE)'.encode())


async def as_app_role(
    dsn: str,
    tenant_id: str | None,
    query: str,
    params: tuple[Any, ...] = (),
    *,
    user_id: str | None = None,
) -> list[tuple[Any, ...]]:
    """One raw query in a transaction as the app role with only the claims set, the way
    Supabase sets them: ``{"sub": user_id, "app_metadata": {"tenant_id": tenant_id}}``
    (``None`` leaves a claim out; no claims at all when both are ``None``)."""
    claims: dict[str, Any] = {}
    if user_id is not None:
        claims["sub"] = user_id
    if tenant_id is not None:
        claims["app_metadata"] = {"tenant_id": tenant_id}
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        async with conn.transaction():
            await conn.execute(f"SET LOCAL ROLE {APP_ROLE}".encode())
            if claims:
                await conn.execute(
                    "SELECT set_config('request.jwt.claims', %s, true)", (json.dumps(claims),)
                )
            cur = await conn.execute(query.encode(), params)
            return await cur.fetchall() if cur.description else []


def _identifier(name: str) -> str:
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
        raise ValueError(f"not a plain database name: {name!r}")
    return name


def find_bin_dir() -> Path:
    """The newest ``/usr/lib/postgresql/<version>/bin`` with initdb, or a clear error."""
    override = os.environ.get("REGINTEL_PG_BIN")
    candidates = [Path(override)] if override else [Path(p) for p in glob.glob(BIN_GLOB)]
    found = [c for c in candidates if (c / "initdb").exists() and (c / "pg_ctl").exists()]
    if not found:
        raise PostgresStartError(
            f"no PostgreSQL server binaries (initdb, pg_ctl) under {override or BIN_GLOB}: "
            "install them with `apt-get install postgresql` (version 15 is what production "
            "runs), or point REGINTEL_PG_BIN at a bin directory"
        )
    return max(found, key=_version)


def _version(bin_dir: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", bin_dir.parent.name)) or (0,)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_server_user(command: list[str]) -> list[str]:
    """Root may not run initdb/postgres: run as the ``postgres`` user then."""
    if os.geteuid() != 0:
        return command
    if shutil.which("runuser"):
        return ["runuser", "-u", OS_USER, "--", *command]
    return ["su", OS_USER, "-s", "/bin/sh", "-c", shlex.join(command)]


def _run(command: list[str], what: str, log: Path | None = None) -> None:
    done = subprocess.run(
        _as_server_user(command),
        capture_output=True,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        tail = _log_tail(log) if log else ""
        raise PostgresStartError(
            f"{what} failed with code {done.returncode}:\n{done.stdout}{done.stderr}{tail}"
        )


def _log_tail(log: Path, lines: int = 30) -> str:
    try:
        return "\nserver log tail:\n" + "\n".join(
            log.read_text(errors="replace").splitlines()[-lines:]
        )
    except OSError:
        return ""


def _make_root() -> Path:
    root = Path(tempfile.mkdtemp(prefix="regintel-pg-", dir=os.environ.get("REGINTEL_PG_TMPDIR")))
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam(OS_USER)
        except KeyError as exc:
            shutil.rmtree(root, ignore_errors=True)
            raise PostgresStartError(
                f"running as root but there is no {OS_USER!r} user to run the server as: "
                "`apt-get install postgresql` creates it"
            ) from exc
        os.chown(root, user.pw_uid, user.pw_gid)
    return root


@contextlib.contextmanager
def running_postgres() -> Iterator[PostgresCluster]:
    """initdb + start a cluster on a free loopback port; stop it and delete it on exit."""
    bin_dir = find_bin_dir()
    began = time.monotonic()
    root = _make_root()
    data, log = root / "data", root / "server.log"
    started = False
    try:
        _run(
            [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", SUPERUSER,
             "--no-sync", "-E", "UTF8", "--locale=C"],
            "initdb",
        )  # fmt: skip
        for attempt in range(START_ATTEMPTS):
            port = _free_port()
            options = (
                f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
                " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
            )
            try:
                _run(
                    [str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(log),
                     "-w", "-t", "60", "start"],
                    "pg_ctl start",
                    log,
                )  # fmt: skip
            except PostgresStartError:
                if attempt == START_ATTEMPTS - 1:  # the free port may have been taken meanwhile
                    raise
                continue
            started = True
            break
        yield PostgresCluster(
            host="127.0.0.1",
            port=port,
            socket_dir=root,
            root=root,
            bin_dir=bin_dir,
            started_in_s=time.monotonic() - began,
            options=options,
        )
    finally:
        if started:
            with contextlib.suppress(PostgresStartError, subprocess.TimeoutExpired):
                _run([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], "stop")
        shutil.rmtree(root, ignore_errors=True)
