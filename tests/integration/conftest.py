"""Fixtures of the integration tests: a throwaway PostgreSQL cluster and the conversation-store
backends (SQLite and PostgreSQL) that one parametrised suite runs against.

The cluster (``tests/support/postgres.py``) is started once per session on a free loopback
port; every test that asks for ``postgres_dsn`` gets a database of its own (``CREATE DATABASE``
takes a few milliseconds), dropped afterwards, so tests never see each other's rows. Stores
run as ``regintel_app``, the role without BYPASSRLS that the migrations create, exactly as
production should (ADR 0009): the cluster's own user is a superuser and would skip RLS.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conversations.postgres import APP_ROLE, PostgresConversationStore
from conversations.sqlite import SqliteConversationStore
from tests.support.postgres import PostgresCluster
from tests.support.redis import RedisServer, RedisStartError, running_redis

CONVERSATION_BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A throwaway redis-server on a free loopback port (never one that runs already)."""
    try:
        with running_redis() as server:
            yield server
    except RedisStartError as exc:
        pytest.fail(f"cannot start the test redis-server: {exc}", pytrace=False)


@pytest.fixture
def redis_prefix() -> str:
    """A key prefix of this test's own: tests sharing the server never see each other's keys."""
    return f"t{uuid.uuid4().hex[:12]}"


@pytest.fixture
def postgres_dsn(postgres_cluster: PostgresCluster) -> Iterator[str]:
    """A fresh, empty database for this test."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    dsn = postgres_cluster.create_database(name)
    yield dsn
    postgres_cluster.drop_database(name)


@dataclass(frozen=True)
class ConversationBackend:
    """How one backend builds its store (a new store on the same database on every call) and
    the egress ports over it."""

    name: str
    open: Callable[[], Any]
    policies: Callable[[Any], Any]
    vault: Callable[[Any], Any]
    audit: Callable[[Any], Any]


def postgres_backend(dsn: str) -> ConversationBackend:
    return ConversationBackend(
        name="postgres",
        open=lambda: PostgresConversationStore(dsn, app_role=APP_ROLE),
        policies=lambda store: store.egress_adapters().policies,
        vault=lambda store: store.egress_adapters().vault,
        audit=lambda store: store.egress_adapters().audit,
    )


def sqlite_backend(path: Path) -> ConversationBackend:
    return ConversationBackend(
        name="sqlite",
        open=lambda: SqliteConversationStore(path),
        policies=lambda store: store.egress_adapters().policies,
        vault=lambda store: store.egress_adapters().vault,
        audit=lambda store: store.egress_adapters().audit,
    )


@pytest.fixture(params=CONVERSATION_BACKENDS)
def conversation_backend(request: pytest.FixtureRequest, tmp_path: Path) -> ConversationBackend:
    if request.param == "sqlite":
        return sqlite_backend(tmp_path / "c.db")
    return postgres_backend(request.getfixturevalue("postgres_dsn"))
