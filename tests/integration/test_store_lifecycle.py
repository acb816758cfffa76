"""Lifetimes of the conversation stores: a failed ``init`` leaves nothing open, ``aclose`` is
idempotent and safe at any moment and closes for good (nothing reopens), and a cancelled unit
of work saves a whole turn or nothing."""

import asyncio
import time
from pathlib import Path

import psycopg
import pytest

from conversations.models import ConversationContext, NewMessage
from conversations.postgres import APP_ROLE, PostgresConversationStore
from conversations.sqlite import SqliteConversationStore
from errors import AdapterClosed, ConversationStoreUnavailable

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


async def other_connections(dsn, *, settle_s=5.0):
    """Sessions on the test's database besides this one, once closed ones have gone."""
    deadline = time.monotonic() + settle_s
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        while True:
            cur = await conn.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            [(count,)] = await cur.fetchall()
            if count == 0 or time.monotonic() > deadline:
                return count
            await asyncio.sleep(0.05)


def wal_exists(database: Path) -> bool:
    """WAL mode: the write-ahead log exists while a connection is open, and the last
    connection to close removes it."""
    return Path(f"{database}-wal").exists()


def broken_migrations(folder: Path) -> Path:
    folder.mkdir()
    (folder / "001_broken.sql").write_text("CREATE TABLE half_written (", encoding="utf-8")
    return folder


async def test_a_postgres_init_whose_migration_fails_closes_its_pool(postgres_dsn, tmp_path):
    store = PostgresConversationStore(
        postgres_dsn, app_role=APP_ROLE, min_size=3, migrations=broken_migrations(tmp_path / "m")
    )
    with pytest.raises(ConversationStoreUnavailable) as caught:
        await store.init()
    assert isinstance(caught.value.__cause__, psycopg.Error)
    assert await other_connections(postgres_dsn) == 0  # no pooled connection leaked
    with pytest.raises(ConversationStoreUnavailable, match="not initialised"):
        await store.get_conversation("acme", "c", user_id="alice")
    await store.aclose()
    await store.aclose()


async def test_a_postgres_init_refusing_the_role_closes_its_pool(postgres_dsn):
    superuser = PostgresConversationStore(postgres_dsn, min_size=2)  # bypasses RLS: refused
    with pytest.raises(ConversationStoreUnavailable, match="bypasses row-level security"):
        await superuser.init()
    assert await other_connections(postgres_dsn) == 0
    await superuser.aclose()


async def test_postgres_aclose_is_idempotent_before_and_after_init(postgres_dsn):
    never_opened = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE)
    await never_opened.aclose()
    with pytest.raises(AdapterClosed):  # closed before it was opened is closed too (httpx)
        await never_opened.init()
    store = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE)
    await store.init()
    conversation = await store.create_conversation("acme", "alice")
    await store.aclose()
    await store.aclose()
    assert await other_connections(postgres_dsn) == 0
    with pytest.raises(AdapterClosed):
        await store.get_conversation("acme", conversation.id, user_id="alice")
    with pytest.raises(AdapterClosed):  # closed for good: init does not reopen it
        await store.init()
    assert await other_connections(postgres_dsn) == 0
    await store.aclose()


async def test_a_sqlite_init_whose_migration_fails_closes_its_file(tmp_path):
    path = tmp_path / "c.db"
    store = SqliteConversationStore(path, migrations=broken_migrations(tmp_path / "m"))
    with pytest.raises(ConversationStoreUnavailable):
        await store.init()
    assert not wal_exists(path)
    await store.aclose()
    await store.aclose()


async def test_sqlite_aclose_is_idempotent_before_and_after_init(tmp_path):
    path = tmp_path / "c.db"
    never_opened = SqliteConversationStore(path)
    await never_opened.aclose()
    with pytest.raises(AdapterClosed):  # closed before it was opened is closed too (httpx)
        await never_opened.init()
    assert not path.exists()
    store = SqliteConversationStore(path)
    await store.init()
    await store.create_conversation("acme", "alice")
    assert wal_exists(path)
    await store.aclose()
    await store.aclose()
    assert not wal_exists(path)
    with pytest.raises(AdapterClosed):  # closed for good: nothing opens the file again
        await store.create_conversation("acme", "alice")
    with pytest.raises(AdapterClosed):
        await store.init()
    assert not wal_exists(path)


def turn(n):
    return [
        NewMessage(role="user", content=f"q{n}", content_sanitised=f"q{n}"),
        NewMessage(role="assistant", content=f"a{n}", content_sanitised=f"a{n}"),
    ]


async def test_a_cancelled_turn_saves_all_or_nothing_and_the_store_goes_on(conversation_backend):
    store = conversation_backend.open()
    await store.init()
    try:
        conversation = await store.create_conversation("acme", "alice")
        for n in range(40):  # cancel at a different point of the unit of work each time
            task = asyncio.create_task(
                store.save_turn(
                    "acme",
                    conversation.id,
                    turn(n),
                    ConversationContext(active_node_ids=[f"N{n}"]),
                    user_id="alice",
                )
            )
            for _ in range(n):
                await asyncio.sleep(0)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        history = await store.recent_messages("acme", conversation.id, 100, user_id="alice")
        questions = [m.content for m in history if m.role == "user"]
        answers = [m.content for m in history if m.role == "assistant"]
        assert [q[1:] for q in questions] == [a[1:] for a in answers]  # whole turns only
        context = await store.load_context("acme", conversation.id, user_id="alice")
        assert sorted(context.active_node_ids) == sorted(f"N{q[1:]}" for q in questions)
        await store.save_turn(
            "acme", conversation.id, turn(99), ConversationContext(), user_id="alice"
        )
        assert (
            len(await store.recent_messages("acme", conversation.id, 100, user_id="alice"))
            == len(history) + 2
        )
    finally:
        await store.aclose()
