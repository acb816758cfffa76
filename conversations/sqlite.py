"""SQLite adapter of the ``ConversationStore`` port: the embedded default (one file).

One connection, used from worker threads under a lock (SQLite serialises writers anyway);
WAL mode so readers of other processes are not blocked. Every statement filters on
``tenant_id``. ``save_turn`` is one transaction: the messages and the context land together or
not at all. Migrations are the ``schema/sql/sqlite/*.sql`` files, applied in name order and
recorded in ``schema_migrations``.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from conversations.models import Conversation, ConversationContext, NewMessage, StoredMessage
from errors import ConversationStoreUnavailable, NotFound

MIGRATIONS = Path(__file__).resolve().parents[1] / "schema" / "sql" / "sqlite"
T = TypeVar("T")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class SqliteConversationStore:
    def __init__(self, path: Path, *, migrations: Path = MIGRATIONS) -> None:
        self._path = path
        self._migrations = migrations
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    # -- plumbing --------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA foreign_keys=ON")
                conn.execute("PRAGMA busy_timeout=5000")
                conn.row_factory = sqlite3.Row
            except (sqlite3.Error, OSError) as exc:
                raise ConversationStoreUnavailable(f"cannot open {self._path}") from exc
            self._conn = conn
        return self._conn

    async def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` on the store's connection in a worker thread, under its lock; SQLite
        errors become :class:`errors.ConversationStoreUnavailable`. The egress adapters of
        ``conversations.sqlite_egress`` share the connection through this."""

        def locked() -> T:
            with self._lock:
                try:
                    return work(self._connect())
                except sqlite3.Error as exc:
                    raise ConversationStoreUnavailable(f"conversation store: {exc}") from exc

        return await asyncio.to_thread(locked)

    @staticmethod
    @contextmanager
    def _transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # -- lifecycle -------------------------------------------------------------------------

    async def init(self) -> None:
        def migrate(conn: sqlite3.Connection) -> None:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations"
                " (name TEXT PRIMARY KEY, applied_at TEXT)"
            )
            done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
            for file in sorted(self._migrations.glob("*.sql")):
                if file.name in done:
                    continue
                with self._transaction(conn):
                    for statement in file.read_text(encoding="utf-8").split(";"):
                        if statement.strip():
                            conn.execute(statement)
                    conn.execute(
                        "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                        (file.name, _now()),
                    )

        await self.run(migrate)

    async def ping(self) -> None:
        await self.run(lambda conn: conn.execute("SELECT 1").fetchone())

    async def aclose(self) -> None:
        def close(_: sqlite3.Connection) -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        if self._conn is not None:
            await self.run(close)

    # -- conversations ---------------------------------------------------------------------

    async def create_conversation(self, tenant_id: str, user_id: str) -> Conversation:
        conversation_id = str(uuid.uuid4())
        now = _now()

        def create(conn: sqlite3.Connection) -> None:
            with self._transaction(conn):
                conn.execute(
                    "INSERT OR IGNORE INTO tenants (id, created_at) VALUES (?, ?)", (tenant_id, now)
                )
                conn.execute(
                    "INSERT INTO conversations (id, tenant_id, user_id, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (conversation_id, tenant_id, user_id, now, now),
                )
                conn.execute(
                    "INSERT INTO contexts (tenant_id, conversation_id, active_node_ids, updated_at)"
                    " VALUES (?, ?, '[]', ?)",
                    (tenant_id, conversation_id, now),
                )

        await self.run(create)
        return await self.get_conversation(tenant_id, conversation_id)

    async def get_conversation(self, tenant_id: str, conversation_id: str) -> Conversation:
        row = await self.run(
            lambda conn: conn.execute(
                "SELECT * FROM conversations WHERE tenant_id = ? AND id = ?",
                (tenant_id, conversation_id),
            ).fetchone()
        )
        if row is None:
            raise NotFound(f"conversation {conversation_id} not found")
        return Conversation(**dict(row))

    async def load_context(self, tenant_id: str, conversation_id: str) -> ConversationContext:
        row = await self.run(
            lambda conn: conn.execute(
                "SELECT active_node_ids FROM contexts WHERE tenant_id = ? AND conversation_id = ?",
                (tenant_id, conversation_id),
            ).fetchone()
        )
        if row is None:
            raise NotFound(f"conversation {conversation_id} not found")
        return ConversationContext(active_node_ids=json.loads(row[0]))

    async def recent_messages(
        self, tenant_id: str, conversation_id: str, limit: int
    ) -> list[StoredMessage]:
        rows = await self.run(
            lambda conn: conn.execute(
                "SELECT * FROM messages WHERE tenant_id = ? AND conversation_id = ? "
                "ORDER BY seq DESC LIMIT ?",
                (tenant_id, conversation_id, limit),
            ).fetchall()
        )
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
        ids = [str(uuid.uuid4()) for _ in messages]

        def save(conn: sqlite3.Connection) -> list[sqlite3.Row]:
            with self._transaction(conn):
                owned = conn.execute(
                    "UPDATE conversations SET updated_at = ? WHERE tenant_id = ? AND id = ?",
                    (now, tenant_id, conversation_id),
                ).rowcount
                if owned != 1:
                    raise NotFound(f"conversation {conversation_id} not found")
                (seq,) = conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM messages WHERE conversation_id = ?",
                    (conversation_id,),
                ).fetchone()
                for offset, (message_id, message) in enumerate(zip(ids, messages, strict=True)):
                    conn.execute(
                        "INSERT INTO messages (id, tenant_id, conversation_id, seq, role, content,"
                        " content_sanitised, status, referenced_nodes, created_at)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            message_id, tenant_id, conversation_id, seq + offset + 1,
                            message.role, message.content, message.content_sanitised,
                            message.status, json.dumps(message.referenced_nodes), now,
                        ),
                    )  # fmt: skip
                (stored,) = conn.execute(
                    "SELECT active_node_ids FROM contexts"
                    " WHERE tenant_id = ? AND conversation_id = ?",
                    (tenant_id, conversation_id),
                ).fetchone()
                merged = ConversationContext(active_node_ids=json.loads(stored)).with_nodes(
                    context.active_node_ids, max_active_nodes
                )
                conn.execute(
                    "UPDATE contexts SET active_node_ids = ?, updated_at = ? "
                    "WHERE tenant_id = ? AND conversation_id = ?",
                    (json.dumps(merged.active_node_ids), now, tenant_id, conversation_id),
                )
                placeholders = ",".join("?" * len(ids))
                return conn.execute(
                    f"SELECT * FROM messages WHERE id IN ({placeholders}) ORDER BY seq", ids
                ).fetchall()

        return [_message(row) for row in await self.run(save)]


def _message(row: sqlite3.Row) -> StoredMessage:
    data: dict[str, Any] = dict(row)
    data["referenced_nodes"] = json.loads(data["referenced_nodes"])
    data.pop("tenant_id")
    data.pop("seq")
    return StoredMessage(**data)
