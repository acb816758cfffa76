"""SQLite adapter of the ``ConversationStore`` port: the embedded default (one file).

The algorithms are :class:`~conversations.sql_store.SqlConversationStore`'s; this module gives
the SQLite dialect (the shared statements with unqualified tables; timestamps as ISO text,
lists and objects as JSON text) and the unit of work.

One connection, used from one worker thread of the store's own, so statements run in the order
they were issued even when a caller is cancelled half-way (a ``ROLLBACK`` never overtakes an
``INSERT`` still queued). Units of work take an ``asyncio.Lock`` and ``BEGIN IMMEDIATE``, so
they never interleave and other processes' writers wait (``busy_timeout``); WAL mode keeps
other processes' readers unblocked. SQLite errors become
:class:`errors.ConversationStoreUnavailable`. Migrations are the ``schema/sql/sqlite/*.sql``
files, applied in name order and recorded in ``schema_migrations``.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from conversations.sql_store import SqlConversationStore
from conversations.statements import Statements
from conversations.unit_of_work import Params, Result, SqlDialect, StatementUnitOfWork, UnitOfWork
from errors import ConversationStoreUnavailable

__all__ = ["MIGRATIONS", "SQLITE", "SqliteConversationStore"]

MIGRATIONS = Path(__file__).resolve().parents[1] / "schema" / "sql" / "sqlite"

_T = TypeVar("_T")


# bookkeeping of the migration runner and the health check: not tenant data
_CREATE_MIGRATIONS_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT)"
)
_MIGRATIONS_APPLIED = "SELECT name FROM schema_migrations"
_RECORD_MIGRATION = "INSERT INTO schema_migrations (name, applied_at) VALUES (:name, :now)"
_PING = "SELECT 1"


def _timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


# JSON text for lists and objects, ISO text for timestamps (the tables of 001 and 002)
SQLITE = SqlDialect(
    name="sqlite", statements=Statements().render(), timestamp=_timestamp,
    encode_list=json.dumps, decode_list=json.loads, encode_object=json.dumps,
    decode_object=json.loads,
)  # fmt: skip
"""The shared statements as SQLite takes them, with unqualified table names."""


class SqliteConversationStore(SqlConversationStore):
    """Conversations, messages, context and the egress tables in one SQLite file."""

    dialect = SQLITE

    def __init__(
        self, path: Path, *, migrations: Path = MIGRATIONS, stream_lease_seconds: float = 30.0
    ) -> None:
        self.stream_lease = stream_lease_seconds
        self._path = path
        self._migrations = migrations
        self._conn: sqlite3.Connection | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._lock = asyncio.Lock()

    # -- plumbing --------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
                try:
                    conn.execute("PRAGMA journal_mode=WAL")
                    # WAL with NORMAL: a commit survives the process being killed (kill -9,
                    # ADR 0018) but not a power cut before the next checkpoint; no fsync per
                    # commit, which cost ~0.3 ms a commit, several per turn (ADR 0038).
                    conn.execute("PRAGMA synchronous=NORMAL")
                    conn.execute("PRAGMA foreign_keys=ON")
                    conn.execute("PRAGMA busy_timeout=5000")
                except sqlite3.Error:
                    conn.close()
                    raise
                conn.row_factory = sqlite3.Row
            except (sqlite3.Error, OSError) as exc:
                raise ConversationStoreUnavailable(f"cannot open {self._path}") from exc
            self._conn = conn
        return self._conn

    async def _call(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``work`` on the connection in the store's worker thread, in issue order."""

        def guarded() -> _T:
            try:
                return work(self._connect())
            except sqlite3.Error as exc:
                raise ConversationStoreUnavailable(f"conversation store: {exc}") from exc

        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="regintel-sqlite")
        return await asyncio.get_running_loop().run_in_executor(self._executor, guarded)

    @asynccontextmanager
    async def unit_of_work(
        self, tenant_id: str, user_id: str | None = None
    ) -> AsyncIterator[UnitOfWork]:
        """``BEGIN IMMEDIATE`` … ``COMMIT`` if committed, else ``ROLLBACK``. No row-level
        security here: the statements' own ``tenant_id`` and ``user_id`` filters are the
        scoping. ``BEGIN`` goes to the worker thread with the first statement (one hop fewer
        per unit of work; the lock already serialises them, ADR 0038)."""
        async with self._lock:
            begun = commit = False

            async def run(statement: str, params: Params) -> Result:
                nonlocal begun
                begin, begun = not begun, True

                def work(conn: sqlite3.Connection) -> Result:
                    if begin:
                        conn.execute("BEGIN IMMEDIATE")
                    cursor = conn.execute(statement, params)
                    return Result(cursor.rowcount, [dict(row) for row in cursor.fetchall()])

                return await self._call(work)

            try:
                work = StatementUnitOfWork(run)
                yield work
                commit = work.committed
            finally:
                # also when cancelled mid-statement: whatever began is rolled back
                if begun:
                    await self._call(lambda conn: _end_transaction(conn, commit=commit))

    # -- lifecycle -------------------------------------------------------------------------

    async def init(self) -> None:
        """Open the file and apply pending migrations; close it again if that fails."""
        try:
            async with self._lock:
                await self._call(self._migrate)
        except BaseException:
            await self.aclose()
            raise

    def _migrate(self, conn: sqlite3.Connection) -> None:
        conn.execute(_CREATE_MIGRATIONS_TABLE)
        done = {row[0] for row in conn.execute(_MIGRATIONS_APPLIED)}
        for file in sorted(self._migrations.glob("*.sql")):
            if file.name in done:
                continue
            with _transaction(conn):
                for statement in file.read_text(encoding="utf-8").split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(_RECORD_MIGRATION, {"name": file.name, "now": _now()})

    async def ping(self) -> None:
        await self._call(lambda conn: conn.execute(_PING).fetchone())

    async def aclose(self) -> None:
        """Close the connection and the worker thread; a later call opens them again."""
        async with self._lock:
            executor, self._executor = self._executor, None
            if executor is None:
                return
            try:
                await asyncio.get_running_loop().run_in_executor(executor, self._close)
            finally:
                executor.shutdown(wait=False)

    def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


def _now() -> str:
    return _timestamp(datetime.now(UTC))


def _end_transaction(conn: sqlite3.Connection, *, commit: bool) -> None:
    """``COMMIT`` if asked; ``ROLLBACK`` whatever is still open (a failed ``COMMIT`` too)."""
    try:
        if commit:
            conn.execute("COMMIT")
    finally:
        # SQLite may have rolled back on its own already (e.g. on a full disk)
        if conn.in_transaction:
            conn.execute("ROLLBACK")


@contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
