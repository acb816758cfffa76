"""SQLite adapter of the ``ConversationStore`` port: the embedded default (one file).

The algorithms are :class:`~conversations.sql_store.SqlConversationStore`'s; this module gives
the SQLite dialect (the shared statements with unqualified tables; timestamps as ISO text,
lists and objects as JSON text) and the unit of work.

One connection. Its statements run on the event loop itself: ours take microseconds, and a hop
to a worker thread cost far more than the statement (the hop, then the two threads handing the
GIL back and forth: ~5 ms of CPU per turn at ~23 statements a turn, ADR 0039). A statement
that would wait runs in the store's one worker thread instead: opening the file and the
migrations, and a ``BEGIN IMMEDIATE`` that finds another process writing (inline the
connection never waits, ``busy_timeout`` 0; the thread waits up to ``busy_timeout_ms``). While
a thread call runs, later calls queue behind it on the same thread, so statements run in the
order they were issued even when a caller is cancelled half-way (a ``ROLLBACK`` never
overtakes an ``INSERT`` still running). Units of work take an ``asyncio.Lock`` and
``BEGIN IMMEDIATE``, so they never interleave; WAL mode keeps other processes' readers
unblocked. SQLite errors become
:class:`errors.ConversationStoreUnavailable`. Migrations are the ``schema/sql/sqlite/*.sql``
files, applied in name order and recorded in ``schema_migrations``.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from conversations.sql_store import SqlConversationStore
from conversations.statements import Statements
from conversations.unit_of_work import Params, Result, SqlDialect, StatementUnitOfWork, UnitOfWork
from errors import ConversationStoreUnavailable
from infra.lifetime import Lifetime

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
# the retention job's one read across tenants: their ids (ADR 0048)
_TENANT_IDS = "SELECT id FROM tenants ORDER BY id"
_CHECKPOINT = "PRAGMA wal_checkpoint(TRUNCATE)"


def _timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


# JSON text for lists and objects, ISO text for timestamps (the tables of 001 and 002)
SQLITE = SqlDialect(
    name="sqlite",
    statements=Statements().render(),
    timestamp=_timestamp,
    encode_list=json.dumps,
    decode_list=json.loads,
    encode_object=json.dumps,
    decode_object=json.loads,
)
"""The shared statements as SQLite takes them, with unqualified table names."""


class SqliteConversationStore(SqlConversationStore):
    """Conversations, messages, context and the egress tables in one SQLite file."""

    dialect = SQLITE

    def __init__(
        self,
        path: Path,
        *,
        migrations: Path = MIGRATIONS,
        stream_lease_seconds: float = 30.0,
        busy_timeout_ms: int = 5000,
    ) -> None:
        self.stream_lease = stream_lease_seconds
        self._path = path
        self._migrations = migrations
        self._busy_timeout_ms = busy_timeout_ms
        self._conn: sqlite3.Connection | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._behind: Future[Any] | None = None  # the last call given to the thread
        self._lock = asyncio.Lock()
        self._lifetime = Lifetime("the SQLite conversation store")

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
                    # erased text is overwritten with zeros in the file, not left in free
                    # pages (ADR 0048)
                    conn.execute("PRAGMA secure_delete=ON")
                    conn.execute("PRAGMA busy_timeout=0")  # inline never waits (see _call)
                except sqlite3.Error:
                    conn.close()
                    raise
                conn.row_factory = sqlite3.Row
            except (sqlite3.Error, OSError) as exc:
                raise ConversationStoreUnavailable(f"cannot open {self._path}") from exc
            self._conn = conn
        return self._conn

    async def _call(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``work`` on the connection, in issue order: on the event loop when it need not
        wait, else in the store's worker thread (the module's docstring says when)."""
        self._lifetime.check()
        conn = self._conn
        if conn is not None and (self._behind is None or self._behind.done()):
            try:
                return work(conn)
            except sqlite3.OperationalError as exc:
                # Another process holds the write lock. Nothing ran (a statement is atomic;
                # a BEGIN that failed began nothing): the thread runs it again, waiting.
                if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:  # BUSY and its kinds
                    raise ConversationStoreUnavailable(f"conversation store: {exc}") from exc
            except sqlite3.Error as exc:
                raise ConversationStoreUnavailable(f"conversation store: {exc}") from exc
        return await self._in_thread(work)

    async def _in_thread(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        def waiting() -> _T:
            try:
                conn = self._connect()
                conn.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_ms)}")
                try:
                    return work(conn)
                finally:
                    conn.execute("PRAGMA busy_timeout=0")
            except sqlite3.Error as exc:
                raise ConversationStoreUnavailable(f"conversation store: {exc}") from exc

        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="regintel-sqlite")
        # The thread's own future: done only when the work really ended (a cancelled caller's
        # asyncio wrapper is done at once, while the statement still runs).
        behind = self._executor.submit(waiting)
        self._behind = behind
        return await asyncio.wrap_future(behind)

    @asynccontextmanager
    async def unit_of_work(
        self,
        tenant_id: str,
        user_id: str | None = None,
        *,
        admin: bool = False,
        erasure: bool = False,
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
                    if begin and not conn.in_transaction:  # may run twice (see _call)
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
        self._lifetime.check()
        try:
            async with self._lock:
                await self._in_thread(self._migrate)  # may be long: off the loop
        except BaseException:
            await self._release()
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

    async def _after_erasure(self) -> None:
        """Copy the erasure into the file and empty the write-ahead log, which still holds the
        erased pages' earlier versions; best effort (a reader in another process may keep part
        of the log until the next checkpoint)."""
        async with self._lock:
            await self._call(lambda conn: conn.execute(_CHECKPOINT).fetchall())

    async def tenant_ids(self) -> list[str]:
        """Every tenant's id (the retention job's)."""
        async with self._lock:
            return await self._call(
                lambda conn: [str(row[0]) for row in conn.execute(_TENANT_IDS).fetchall()]
            )

    async def ping(self) -> None:
        await self._call(lambda conn: conn.execute(_PING).fetchone())

    async def aclose(self) -> None:
        """Close the connection and the worker thread for good: any later call raises
        :class:`errors.AdapterClosed`. Idempotent; a unit of work in progress ends first."""
        async with self._lock:
            self._lifetime.close()
        await self._release()

    async def _release(self) -> None:
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
