"""The SQLite store runs its statements on the event loop and waits for another process's
write lock in its worker thread (ADR 0039): the loop is never blocked by that wait, a writer
that keeps the lock past ``busy_timeout_ms`` is a store error, and nothing is lost or
reordered on the way."""

import asyncio
import sqlite3
import threading
import time

import pytest

from conversations.models import ConversationContext, NewMessage
from conversations.sqlite import SqliteConversationStore
from errors import ConversationStoreUnavailable

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
async def store(tmp_path):
    store = SqliteConversationStore(tmp_path / "c.db", busy_timeout_ms=3000)
    await store.init()
    yield store
    await store.aclose()


def _writer(path):
    """Another writer of the file (SQLite locks per connection, so this is what a second
    process is to the store)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("BEGIN IMMEDIATE")  # holds the write lock until it ends
    return conn


def _turn(text):
    return [
        NewMessage(role="user", content=text, content_sanitised=text),
        NewMessage(role="assistant", content="a", content_sanitised="a"),
    ]


async def _ticks_while(awaitable):
    """How many times a 10 ms ticker ran while ``awaitable`` ran, and its result."""
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    try:
        return await awaitable, ticks
    finally:
        task.cancel()


async def test_statements_run_on_the_loop_without_a_thread(store):
    migrations = store._behind  # init ran them in the thread
    conversation = await store.create_conversation("acme", "alice")
    for n in range(5):
        await store.save_turn(
            "acme", conversation.id, _turn(f"q{n}"), ConversationContext(), user_id="alice"
        )
    assert migrations is not None
    assert store._behind is migrations  # nothing went to the thread since
    history = await store.recent_messages("acme", conversation.id, 10, user_id="alice")
    assert [m.content for m in history if m.role == "user"] == [f"q{n}" for n in range(5)]


async def test_another_writer_is_waited_for_in_the_thread_while_the_loop_runs(store, tmp_path):
    conversation = await store.create_conversation("acme", "alice")
    other = _writer(tmp_path / "c.db")
    threading.Timer(0.3, other.commit).start()  # the other process finishes its write
    start = time.monotonic()
    saved, ticks = await _ticks_while(
        store.save_turn(
            "acme", conversation.id, _turn("waited"), ConversationContext(), user_id="alice"
        )
    )
    assert time.monotonic() - start >= 0.25  # it did wait for the lock …
    assert ticks >= 10  # … and the event loop ran meanwhile
    assert [m.content for m in saved] == ["waited", "a"]
    other.close()
    # back on the loop: the next unit of work needs no thread
    await store.save_turn("acme", conversation.id, _turn("next"), ConversationContext(),
                          user_id="alice")  # fmt: skip
    history = await store.recent_messages("acme", conversation.id, 10, user_id="alice")
    assert [m.content for m in history if m.role == "user"] == ["waited", "next"]


async def test_a_writer_that_keeps_the_lock_is_a_store_error_and_the_store_goes_on(tmp_path):
    store = SqliteConversationStore(tmp_path / "c.db", busy_timeout_ms=200)
    await store.init()
    try:
        conversation = await store.create_conversation("acme", "alice")
        other = _writer(tmp_path / "c.db")
        with pytest.raises(ConversationStoreUnavailable, match="locked"):
            await store.save_turn(
                "acme", conversation.id, _turn("lost"), ConversationContext(), user_id="alice"
            )
        other.rollback()
        other.close()
        await store.save_turn(
            "acme", conversation.id, _turn("kept"), ConversationContext(), user_id="alice"
        )
        history = await store.recent_messages("acme", conversation.id, 10, user_id="alice")
        assert [m.content for m in history if m.role == "user"] == ["kept"]
    finally:
        await store.aclose()


async def test_a_caller_cancelled_while_waiting_for_the_lock_saves_nothing(store, tmp_path):
    conversation = await store.create_conversation("acme", "alice")
    other = _writer(tmp_path / "c.db")
    task = asyncio.create_task(
        store.save_turn(
            "acme", conversation.id, _turn("cancelled"), ConversationContext(), user_id="alice"
        )
    )
    await asyncio.sleep(0.1)  # waiting in the thread for the other writer
    task.cancel()
    # The thread still waits; what the cancelled turn began is rolled back behind it, and the
    # next unit of work queues behind that, not beside it.
    threading.Timer(0.2, other.commit).start()
    with pytest.raises(asyncio.CancelledError):
        await task
    await store.save_turn(
        "acme", conversation.id, _turn("after"), ConversationContext(), user_id="alice"
    )
    other.close()
    history = await store.recent_messages("acme", conversation.id, 10, user_id="alice")
    assert [m.content for m in history if m.role == "user"] == ["after"]
