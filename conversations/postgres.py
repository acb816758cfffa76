"""PostgreSQL adapter of the ``ConversationStore`` port (production: Supabase Postgres).

The algorithms are :class:`~conversations.sql_store.SqlConversationStore`'s; this module gives
the PostgreSQL dialect (the shared statements on schema ``regintel`` with ``%(name)s``
parameters, ``FOR UPDATE`` on the context a turn rewrites, an advisory lock for the vault;
native ``timestamptz``, ``text[]`` and ``jsonb`` values) and the unit of work.

A ``psycopg_pool.AsyncConnectionPool`` of autocommit connections, opened in :meth:`init` and
closed in :meth:`aclose` (or when :meth:`init` fails); nothing connects in the constructor.
Each connection is checked on checkout (``check_connection``: one round trip), so one that
died while pooled (a server restart) is replaced instead of failing the request.
Every unit of work is one explicit transaction
(:meth:`PostgresConversationStore.tenant_transaction`) that first

* ``SET LOCAL ROLE``s to ``app_role`` (when given): the non-superuser role without BYPASSRLS
  that migration ``003`` creates, because superusers and BYPASSRLS roles skip every policy;
* sets ``request.jwt.claims`` for this transaction only (``set_config(..., true)``), as
  Supabase's PostgREST does: ``{"sub": <user>, "role": "authenticated", "app_metadata":
  {"tenant_id": <tenant>}}`` (no ``sub`` for work that is no user's: egress policies, audit).
  The row-level security policies (migrations ``003`` and ``005``) read the tenant and the user
  from it: rows of another tenant, and another user's private conversations, do not exist.

Every statement still filters on ``tenant_id`` and ``user_id`` itself; the policies are the
second layer (ADRs 0009 and 0025). Both settings are transaction-local, so a connection goes
back to the pool clean, and a transaction-mode pooler (Supavisor, PgBouncer) is fine.

``save_turn``'s ``UPDATE conversations`` takes the conversation's row lock first, so concurrent
turns on one conversation queue up and each reads the ``MAX(seq)`` its predecessor committed.

Migrations are ``schema/sql/postgres/*.sql``, applied in name order under an advisory lock
(several workers may start at once) and recorded in ``regintel.schema_migrations``.
Library errors become :class:`errors.ConversationStoreUnavailable`, as in the SQLite adapter.
"""

from __future__ import annotations

import select
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from weakref import WeakKeyDictionary

import psycopg
from psycopg import AsyncConnection, sql
from psycopg.rows import DictRow, dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from conversations.sql_store import SqlConversationStore
from conversations.statements import Statements
from conversations.unit_of_work import Params, Result, SqlDialect, StatementUnitOfWork, UnitOfWork
from errors import ConversationStoreUnavailable
from infra.lifetime import Lifetime

__all__ = [
    "APP_ROLE",
    "CHECK_AFTER_IDLE_SECONDS",
    "ERASER_ROLE",
    "MIGRATIONS",
    "MIGRATION_LOCK",
    "POSTGRES",
    "RETENTION_ROLE",
    "SCHEMA",
    "CheckoutCheck",
    "Connection",
    "PostgresConversationStore",
]

MIGRATIONS = Path(__file__).resolve().parents[1] / "schema" / "sql" / "postgres"
SCHEMA = "regintel"
# the role without BYPASSRLS that migration 003 creates: pass it as ``app_role``
APP_ROLE = "regintel_app"
# pg_advisory_xact_lock key of the migration runner (any constant works; this spells "rgntl")
MIGRATION_LOCK = 0x72676E746C

Connection = AsyncConnection[DictRow]

# the vault's per-conversation lock (see conversations.sql_egress); the key is the one the
# adapter has always used, so old and new workers exclude each other during a rolling deploy
_LOCK_PSEUDONYMS = (
    "SELECT pg_advisory_xact_lock(hashtextextended('regintel.pseudonyms' || chr(31)"
    " || %(tenant_id)s::text || chr(31) || %(conversation_id)s::text, 0))"
)
# the caller's identity as Supabase hands it to policies; built by the database (no JSON quoting
# here); a NULL user leaves "sub" out, which matches no owner, and a NULL role leaves
# app_metadata.role out (only the tenant admin's reads set it: migration 006)
_SET_CLAIMS = (
    "SELECT set_config('request.jwt.claims', jsonb_strip_nulls(jsonb_build_object("
    "'sub', %(user_id)s::text, 'role', 'authenticated',"
    " 'app_metadata', jsonb_build_object('tenant_id', %(tenant_id)s::text,"
    " 'role', %(role)s::text)))::text, true)"
)
# bookkeeping of the migration runner, the role check and the health check: not tenant data
_LOCK_MIGRATIONS = "SELECT pg_advisory_xact_lock(%(key)s)"
_CREATE_MIGRATIONS_TABLE = (
    "CREATE TABLE IF NOT EXISTS regintel.schema_migrations"
    " (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
)
_MIGRATION_APPLIED = "SELECT 1 FROM regintel.schema_migrations WHERE name = %(name)s"
_RECORD_MIGRATION = "INSERT INTO regintel.schema_migrations (name) VALUES (%(name)s)"
_CHECK_ROLE = (
    "SELECT current_user AS role, rolsuper OR rolbypassrls AS bypasses"
    " FROM pg_roles WHERE rolname = current_user"
)
_PING = "SELECT 1"
# the retention job's one read across tenants: their ids, which row-level security shows only to
# the job's claim (migration 007); then it works in each tenant's name (ADR 0048)
_TENANT_IDS = "SELECT id FROM regintel.tenants ORDER BY id"
RETENTION_ROLE = "retention"
# the role erasure runs as (migration 007): regintel_app's rights plus the deletes
ERASER_ROLE = "regintel_eraser"
# a pooled connection back in the pool for less than this is checked without a round trip
CHECK_AFTER_IDLE_SECONDS = 5.0


def _same(moment: datetime) -> datetime:
    return moment


# native timestamptz, text[] and jsonb: psycopg adapts them both ways
POSTGRES = SqlDialect(
    name="postgres",
    statements=Statements().render(
        schema=f"{SCHEMA}.",
        pyformat=True,
        row_lock=" FOR UPDATE",
        lock_pseudonyms=_LOCK_PSEUDONYMS,
    ),
    timestamp=_same,
    encode_list=list,
    decode_list=list,
    encode_object=Jsonb,
    decode_object=dict,
)
"""The shared statements as PostgreSQL takes them, on schema ``regintel``; native values."""


class CheckoutCheck:
    """The pool's checkout check (ADR 0011), a round trip only where one can tell something.

    It exists so that a connection the server dropped while it sat in the pool (a restart, a
    failover, an idle kill) is replaced instead of failing a request. A server that closes a
    connection sends its ``FATAL`` message and the end of the stream, so the socket of a dead
    connection is readable; an idle healthy one has nothing to read. A connection returned
    less than ``idle_seconds`` ago with nothing to read is handed out as it is; any other
    (new, returned after an error, idle longer, readable, closed, broken) gets psycopg_pool's
    ``check_connection``, an empty query (ADR 0029, second pass: it was one round trip of
    about six per unit of work). What only the round trip finds, a peer gone without closing
    the connection (a host lost, a network cut), is still found for a connection idle longer
    than ``idle_seconds``.
    """

    def __init__(self, idle_seconds: float = CHECK_AFTER_IDLE_SECONDS) -> None:
        self._idle_seconds = idle_seconds
        self._returned: WeakKeyDictionary[Connection, float] = WeakKeyDictionary()
        self.round_trips = 0

    def returned(self, conn: Connection) -> None:
        """``conn`` goes back to the pool now, after work that ended without an error."""
        self._returned[conn] = time.monotonic()

    def forget(self, conn: Connection) -> None:
        """``conn`` goes back after an error: its next checkout makes the round trip."""
        self._returned.pop(conn, None)

    async def check(self, conn: Connection) -> None:
        """The pool's ``check`` callback: raise if ``conn`` does not work."""
        returned = self._returned.get(conn)
        recent = returned is not None and time.monotonic() - returned < self._idle_seconds
        if recent and _nothing_to_read(conn):
            return
        self.round_trips += 1
        await AsyncConnectionPool.check_connection(conn)


def _nothing_to_read(conn: Connection) -> bool:
    if conn.closed or conn.broken:
        return False
    try:
        readable, _, _ = select.select([conn.fileno()], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


class PostgresConversationStore(SqlConversationStore):
    """Conversations, messages and context in PostgreSQL, scoped by tenant twice (filters + RLS).

    ``dsn`` is a libpq connection string or URL. ``app_role`` is the role every transaction runs
    as (``SET LOCAL ROLE``); leave it ``None`` only when the DSN logs in as that role already.
    ``timeout`` bounds the wait for a pooled connection; ``prepare_threshold=None`` turns off
    server-side prepared statements (for a transaction-mode pooler that cannot keep them).
    """

    dialect = POSTGRES

    def __init__(
        self,
        dsn: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        app_role: str | None = None,
        timeout: float = 10.0,
        prepare_threshold: int | None = 5,
        migrations: Path = MIGRATIONS,
        stream_lease_seconds: float = 30.0,
    ) -> None:
        self.stream_lease = stream_lease_seconds
        self._dsn = dsn
        self._min_size = min_size
        self._max_size = max_size
        self._app_role = app_role
        self._timeout = timeout
        self._prepare_threshold = prepare_threshold
        self._migrations = migrations
        self._pool: AsyncConnectionPool[Connection] | None = None
        self.checkout_check = CheckoutCheck()
        self._lifetime = Lifetime("the PostgreSQL conversation store")

    # -- plumbing --------------------------------------------------------------------------

    async def _open_pool(self) -> None:
        self._lifetime.check()
        if self._pool is not None:
            return
        pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
            self._dsn,
            min_size=self._min_size,
            max_size=self._max_size,
            timeout=self._timeout,
            open=False,
            name="regintel-conversations",
            connection_class=AsyncConnection[DictRow],
            # a connection the server dropped (restart, failover, idle kill) is found and
            # replaced on checkout, so no request fails for reusing it (ADR 0011); without a
            # round trip for one used a moment ago that has nothing to read (CheckoutCheck).
            # Not the pool's ``reset`` callback to note the return: with one, psycopg_pool
            # returns every connection through a worker task (a hop per unit of work), and a
            # return still queued when the pool closes leaks its connection.
            check=self.checkout_check.check,
            kwargs={
                "autocommit": True,
                "row_factory": dict_row,
                "prepare_threshold": self._prepare_threshold,
            },
        )
        try:
            await pool.open(wait=True, timeout=self._timeout)
        except BaseException as exc:  # cancelled too: the pool's workers must not leak
            await pool.close()
            if isinstance(exc, psycopg.Error):
                raise ConversationStoreUnavailable(
                    f"conversation store unreachable: {exc}"
                ) from exc
            raise
        self._pool = pool

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Connection]:
        """A pooled connection; psycopg errors inside become ConversationStoreUnavailable."""
        self._lifetime.check()
        if self._pool is None:
            raise ConversationStoreUnavailable("conversation store not initialised: call init()")
        try:
            async with self._pool.connection() as conn:
                try:
                    yield conn
                except BaseException:
                    self.checkout_check.forget(conn)
                    raise
                self.checkout_check.returned(conn)
        except psycopg.Error as exc:
            raise ConversationStoreUnavailable(f"conversation store: {exc}") from exc

    @asynccontextmanager
    async def tenant_transaction(
        self,
        tenant_id: str,
        user_id: str | None = None,
        *,
        admin: bool = False,
        role: str | None = None,
        sql_role: str | None = None,
    ) -> AsyncIterator[Connection]:
        """One transaction as ``app_role`` with the caller's claims set (tenant, and user when
        the work is a user's; ``app_metadata.role: admin`` for the tenant admin's reads, which
        migration 006 lets see every user's conversations and messages of the tenant); commits
        when the block ends without an error. :meth:`unit_of_work` is this, rolled back unless
        committed."""
        async with self._connection() as conn, conn.transaction():
            if as_role := sql_role or self._app_role:
                await conn.execute(sql.SQL("SET LOCAL ROLE {}").format(sql.Identifier(as_role)))
            role = role or ("admin" if admin else None)
            await conn.execute(
                _SET_CLAIMS, {"tenant_id": tenant_id, "user_id": user_id, "role": role}
            )
            yield conn

    @asynccontextmanager
    async def unit_of_work(
        self,
        tenant_id: str,
        user_id: str | None = None,
        *,
        admin: bool = False,
        erasure: bool = False,
    ) -> AsyncIterator[UnitOfWork]:
        """A :meth:`tenant_transaction` that rolls back unless the work was committed; an
        ``erasure``'s runs as :data:`ERASER_ROLE`, the only role that may delete (ADR 0048)."""
        async with self.tenant_transaction(
            tenant_id, user_id, admin=admin, sql_role=ERASER_ROLE if erasure else None
        ) as conn:

            async def run(statement: str, params: Params) -> Result:
                cursor = await conn.execute(statement, params)
                rows = await cursor.fetchall() if cursor.description else []
                return Result(cursor.rowcount, list(rows))

            work = StatementUnitOfWork(run)
            yield work
            if not work.committed:
                raise psycopg.Rollback()  # caught by conn.transaction(): a quiet rollback

    # -- lifecycle -------------------------------------------------------------------------

    async def init(self) -> None:
        """Open the pool, apply pending migrations, and refuse a role that bypasses RLS.

        If any of it fails, the pool is closed again: nothing leaks, :meth:`aclose` is still
        safe to call, and so is another :meth:`init`."""
        await self._open_pool()
        try:
            await self._migrate()
            await self._check_role()
        except BaseException:
            await self._close_pool()
            raise

    async def _migrate(self) -> None:
        lock = {"key": MIGRATION_LOCK}
        async with self._connection() as conn:
            async with conn.transaction():
                await conn.execute(_LOCK_MIGRATIONS, lock)
                await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
                await conn.execute(_CREATE_MIGRATIONS_TABLE)
            for file in sorted(self._migrations.glob("*.sql")):
                async with conn.transaction():
                    await conn.execute(_LOCK_MIGRATIONS, lock)
                    cur = await conn.execute(_MIGRATION_APPLIED, {"name": file.name})
                    if await cur.fetchone() is not None:
                        continue
                    # no parameters: psycopg sends the file as one multi-statement query
                    await conn.execute(file.read_text(encoding="utf-8").encode())
                    await conn.execute(_RECORD_MIGRATION, {"name": file.name})

    async def _check_role(self) -> None:
        async with self.tenant_transaction("") as conn:
            cur = await conn.execute(_CHECK_ROLE)
            row = await cur.fetchone()
        if row is None or row["bypasses"]:
            role = row["role"] if row else "?"
            raise ConversationStoreUnavailable(
                f"role {role!r} bypasses row-level security (superuser or BYPASSRLS): "
                "configure app_role (regintel_app) or log in as a role without those rights"
            )

    async def tenant_ids(self) -> list[str]:
        """Every tenant's id (the retention job's), read with the job's claim."""
        async with self.tenant_transaction("", role=RETENTION_ROLE) as conn:
            cur = await conn.execute(_TENANT_IDS)
            rows = await cur.fetchall()
        return [str(row["id"]) for row in rows]

    async def ping(self) -> None:
        async with self._connection() as conn:
            await conn.execute(_PING)

    async def aclose(self) -> None:
        """Close the pool for good: any later call, :meth:`init` too, raises
        :class:`errors.AdapterClosed`. Idempotent; safe after a failed :meth:`init`."""
        self._lifetime.close()
        await self._close_pool()

    async def _close_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()
