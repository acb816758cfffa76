"""PostgreSQL adapter of the ``ConversationStore`` port (production: Supabase Postgres).

A ``psycopg_pool.AsyncConnectionPool`` of autocommit connections, opened in :meth:`init` and
closed in :meth:`aclose`; nothing connects in the constructor. Every unit of work is one
explicit transaction (:meth:`PostgresConversationStore.tenant_transaction`) that first

* ``SET LOCAL ROLE``s to ``app_role`` (when given): the non-superuser role without BYPASSRLS
  that migration ``003`` creates, because superusers and BYPASSRLS roles skip every policy;
* sets ``app.tenant_id`` for this transaction only (``set_config(..., true)``), which the
  row-level security policies compare every row with.

Every statement still filters on ``tenant_id`` itself; the policies are the second layer (ADR
0009). Both settings are transaction-local, so a connection goes back to the pool clean, and a
transaction-mode pooler (Supavisor, PgBouncer) is fine.

``save_turn`` is one transaction: messages and context land together or not at all. Its
``UPDATE conversations`` takes the conversation's row lock first, so concurrent turns on one
conversation queue up and each reads the ``MAX(seq)`` its predecessor committed.

Migrations are ``schema/sql/postgres/*.sql``, applied in name order under an advisory lock
(several workers may start at once) and recorded in ``regintel.schema_migrations``.
Library errors become :class:`errors.ConversationStoreUnavailable`, as in the SQLite adapter.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg import AsyncConnection, sql
from psycopg.rows import DictRow, dict_row
from psycopg_pool import AsyncConnectionPool

from conversations.models import Conversation, ConversationContext, NewMessage, StoredMessage
from errors import ConversationStoreUnavailable, NotFound

MIGRATIONS = Path(__file__).resolve().parents[1] / "schema" / "sql" / "postgres"
SCHEMA = "regintel"
# the role without BYPASSRLS that migration 003 creates: pass it as ``app_role``
APP_ROLE = "regintel_app"
# pg_advisory_xact_lock key of the migration runner (any constant works; this spells "rgntl")
MIGRATION_LOCK = 0x72676E746C

Connection = AsyncConnection[DictRow]

MESSAGE_COLUMNS = (
    "id, conversation_id, role, content, content_sanitised, status, referenced_nodes, created_at"
)


def _now() -> datetime:
    return datetime.now(UTC)


class PostgresConversationStore:
    """Conversations, messages and context in PostgreSQL, scoped by tenant twice (filters + RLS).

    ``dsn`` is a libpq connection string or URL. ``app_role`` is the role every transaction runs
    as (``SET LOCAL ROLE``); leave it ``None`` only when the DSN logs in as that role already.
    ``timeout`` bounds the wait for a pooled connection; ``prepare_threshold=None`` turns off
    server-side prepared statements (for a transaction-mode pooler that cannot keep them).
    """

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
    ) -> None:
        self._dsn = dsn
        self._min_size = min_size
        self._max_size = max_size
        self._app_role = app_role
        self._timeout = timeout
        self._prepare_threshold = prepare_threshold
        self._migrations = migrations
        self._pool: AsyncConnectionPool[Connection] | None = None

    # -- plumbing --------------------------------------------------------------------------

    async def _open_pool(self) -> AsyncConnectionPool[Connection]:
        if self._pool is not None:
            return self._pool
        pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
            self._dsn,
            min_size=self._min_size,
            max_size=self._max_size,
            timeout=self._timeout,
            open=False,
            name="regintel-conversations",
            connection_class=AsyncConnection[DictRow],
            kwargs={
                "autocommit": True,
                "row_factory": dict_row,
                "prepare_threshold": self._prepare_threshold,
            },
        )
        try:
            await pool.open(wait=True, timeout=self._timeout)
        except psycopg.Error as exc:
            await pool.close()
            raise ConversationStoreUnavailable(f"conversation store unreachable: {exc}") from exc
        self._pool = pool
        return pool

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Connection]:
        """A pooled connection; psycopg errors inside become ConversationStoreUnavailable."""
        if self._pool is None:
            raise ConversationStoreUnavailable("conversation store not initialised: call init()")
        try:
            async with self._pool.connection() as conn:
                yield conn
        except psycopg.Error as exc:
            raise ConversationStoreUnavailable(f"conversation store: {exc}") from exc

    @asynccontextmanager
    async def tenant_transaction(self, tenant_id: str) -> AsyncIterator[Connection]:
        """One transaction as ``app_role`` with ``app.tenant_id`` set: every unit of work."""
        async with self._connection() as conn, conn.transaction():
            if self._app_role:
                await conn.execute(
                    sql.SQL("SET LOCAL ROLE {}").format(sql.Identifier(self._app_role))
                )
            await conn.execute("SELECT set_config('app.tenant_id', %s, true)", (tenant_id,))
            yield conn

    # -- lifecycle -------------------------------------------------------------------------

    async def init(self) -> None:
        """Open the pool, apply pending migrations, and refuse a role that bypasses RLS."""
        await self._open_pool()
        files = sorted(self._migrations.glob("*.sql"))
        async with self._connection() as conn:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
                await conn.execute(
                    f"CREATE TABLE IF NOT EXISTS {SCHEMA}.schema_migrations"
                    " (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
                )
            for file in files:
                async with conn.transaction():
                    await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                    cur = await conn.execute(
                        f"SELECT 1 FROM {SCHEMA}.schema_migrations WHERE name = %s", (file.name,)
                    )
                    if await cur.fetchone() is not None:
                        continue
                    # no parameters: psycopg sends the file as one multi-statement query
                    await conn.execute(file.read_text(encoding="utf-8").encode())
                    await conn.execute(
                        f"INSERT INTO {SCHEMA}.schema_migrations (name) VALUES (%s)", (file.name,)
                    )
        await self._check_role()

    async def _check_role(self) -> None:
        async with self.tenant_transaction("") as conn:
            cur = await conn.execute(
                "SELECT current_user AS role, rolsuper OR rolbypassrls AS bypasses"
                " FROM pg_roles WHERE rolname = current_user"
            )
            row = await cur.fetchone()
        if row is None or row["bypasses"]:
            await self.aclose()
            role = row["role"] if row else "?"
            raise ConversationStoreUnavailable(
                f"role {role!r} bypasses row-level security (superuser or BYPASSRLS): "
                "configure app_role (regintel_app) or log in as a role without those rights"
            )

    async def ping(self) -> None:
        async with self._connection() as conn:
            await conn.execute("SELECT 1")

    async def aclose(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    # -- conversations ---------------------------------------------------------------------

    async def create_conversation(self, tenant_id: str, user_id: str) -> Conversation:
        conversation_id = str(uuid.uuid4())
        now = _now()
        async with self.tenant_transaction(tenant_id) as conn:
            await conn.execute(
                "INSERT INTO regintel.tenants (id, created_at) VALUES (%s, %s)"
                " ON CONFLICT (id) DO NOTHING",
                (tenant_id, now),
            )
            cur = await conn.execute(
                "INSERT INTO regintel.conversations (id, tenant_id, user_id, created_at,"
                " updated_at) VALUES (%s, %s, %s, %s, %s)"
                " RETURNING id, tenant_id, user_id, created_at, updated_at",
                (conversation_id, tenant_id, user_id, now, now),
            )
            row = await cur.fetchone()
            await conn.execute(
                "INSERT INTO regintel.contexts (tenant_id, conversation_id, updated_at)"
                " VALUES (%s, %s, %s)",
                (tenant_id, conversation_id, now),
            )
        assert row is not None
        return Conversation(**row)

    async def get_conversation(self, tenant_id: str, conversation_id: str) -> Conversation:
        async with self.tenant_transaction(tenant_id) as conn:
            cur = await conn.execute(
                "SELECT id, tenant_id, user_id, created_at, updated_at FROM regintel.conversations"
                " WHERE tenant_id = %s AND id = %s",
                (tenant_id, conversation_id),
            )
            row = await cur.fetchone()
        if row is None:
            raise NotFound(f"conversation {conversation_id} not found")
        return Conversation(**row)

    async def load_context(self, tenant_id: str, conversation_id: str) -> ConversationContext:
        async with self.tenant_transaction(tenant_id) as conn:
            cur = await conn.execute(
                "SELECT active_node_ids FROM regintel.contexts"
                " WHERE tenant_id = %s AND conversation_id = %s",
                (tenant_id, conversation_id),
            )
            row = await cur.fetchone()
        if row is None:
            raise NotFound(f"conversation {conversation_id} not found")
        return ConversationContext(active_node_ids=row["active_node_ids"])

    async def recent_messages(
        self, tenant_id: str, conversation_id: str, limit: int
    ) -> list[StoredMessage]:
        async with self.tenant_transaction(tenant_id) as conn:
            cur = await conn.execute(
                f"SELECT {MESSAGE_COLUMNS} FROM regintel.messages"
                " WHERE tenant_id = %s AND conversation_id = %s ORDER BY seq DESC LIMIT %s",
                (tenant_id, conversation_id, limit),
            )
            rows = await cur.fetchall()
        return [_message(row) for row in reversed(rows)]

    async def save_turn(
        self,
        tenant_id: str,
        conversation_id: str,
        messages: list[NewMessage],
        context: ConversationContext,
        *,
        max_active_nodes: int = 40,
    ) -> list[StoredMessage]:
        now = _now()
        saved: list[StoredMessage] = []
        async with self.tenant_transaction(tenant_id) as conn:
            # The UPDATE takes the conversation's row lock until commit: concurrent turns of
            # one conversation wait here, then read the MAX(seq) the previous one committed.
            cur = await conn.execute(
                "UPDATE regintel.conversations SET updated_at = %s"
                " WHERE tenant_id = %s AND id = %s RETURNING id",
                (now, tenant_id, conversation_id),
            )
            if await cur.fetchone() is None:
                raise NotFound(f"conversation {conversation_id} not found")
            cur = await conn.execute(
                "SELECT COALESCE(MAX(seq), 0) AS seq FROM regintel.messages"
                " WHERE tenant_id = %s AND conversation_id = %s",
                (tenant_id, conversation_id),
            )
            last = await cur.fetchone()
            seq = int(last["seq"]) if last else 0
            for offset, message in enumerate(messages, start=1):
                cur = await conn.execute(
                    "INSERT INTO regintel.messages (id, tenant_id, conversation_id, seq, role,"
                    " content, content_sanitised, status, referenced_nodes, created_at)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                    f" RETURNING {MESSAGE_COLUMNS}",
                    (
                        str(uuid.uuid4()), tenant_id, conversation_id, seq + offset,
                        message.role, message.content, message.content_sanitised,
                        message.status, list(message.referenced_nodes), now,
                    ),
                )  # fmt: skip
                row = await cur.fetchone()
                assert row is not None
                saved.append(_message(row))
            cur = await conn.execute(
                "SELECT active_node_ids FROM regintel.contexts"
                " WHERE tenant_id = %s AND conversation_id = %s FOR UPDATE",
                (tenant_id, conversation_id),
            )
            stored = await cur.fetchone()
            merged = ConversationContext(
                active_node_ids=list(stored["active_node_ids"]) if stored else []
            ).with_nodes(context.active_node_ids, max_active_nodes)
            await conn.execute(
                "UPDATE regintel.contexts SET active_node_ids = %s, updated_at = %s"
                " WHERE tenant_id = %s AND conversation_id = %s",
                (list(merged.active_node_ids), now, tenant_id, conversation_id),
            )
        return saved


def _message(row: dict[str, Any]) -> StoredMessage:
    return StoredMessage(**row)
