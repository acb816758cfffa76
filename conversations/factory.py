"""Build the configured conversation store: the composition root's one call into this package.

The store it returns also hands out its egress ports (``store.egress_adapters()``), so the
caller never switches on the backend. Nothing connects here: call ``await store.init()``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from conversations.postgres import APP_ROLE, PostgresConversationStore
from conversations.sql_store import SqlConversationStore
from conversations.sqlite import SqliteConversationStore
from errors import InvalidInput

__all__ = ["build_conversation_store"]


def build_conversation_store(
    backend: Literal["sqlite", "postgres"],
    *,
    sqlite_path: Path,
    postgres_dsn: str = "",
    postgres_app_role: str | None = APP_ROLE,
    postgres_pool_min: int = 1,
    postgres_pool_max: int = 10,
    postgres_timeout_seconds: float = 10.0,
    postgres_prepare_threshold: int | None = 5,
    stream_lease_seconds: float = 30.0,
) -> SqlConversationStore:
    """SQLite at ``sqlite_path`` by default; PostgreSQL (Supabase) with row-level security.

    The keywords mirror ``api.settings.Settings``; an empty ``postgres_app_role`` means the DSN
    logs in as the app role already. Raises :class:`errors.InvalidInput` for ``postgres``
    without a DSN.
    """
    if backend == "postgres":
        if not postgres_dsn:
            raise InvalidInput("a PostgreSQL DSN is required for the postgres conversation store")
        return PostgresConversationStore(
            postgres_dsn,
            min_size=postgres_pool_min,
            max_size=postgres_pool_max,
            app_role=postgres_app_role or None,
            timeout=postgres_timeout_seconds,
            prepare_threshold=postgres_prepare_threshold,
            stream_lease_seconds=stream_lease_seconds,
        )
    return SqliteConversationStore(sqlite_path, stream_lease_seconds=stream_lease_seconds)
