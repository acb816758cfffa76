"""Regression: SQLite's ``save_turn`` numbered a turn's messages from ``MAX(seq)`` over every
tenant's rows of that conversation id (``WHERE conversation_id = ?``, no ``tenant_id``), while
its docstring promised that every statement filters on the tenant. The statement is now shared
with PostgreSQL (``conversations.statements``) and filters on both."""

import sqlite3

import pytest

from conversations.models import ConversationContext, NewMessage
from conversations.sqlite import SqliteConversationStore

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


async def test_the_sqlite_seq_query_ignored_the_tenant(tmp_path):
    path = tmp_path / "c.db"
    store = SqliteConversationStore(path)
    await store.init()
    try:
        conversation = await store.create_conversation("acme", "alice")
        # a stray row of another tenant under the same conversation id (SQLite's schema has no
        # (tenant_id, conversation_id) foreign key to refuse it)
        with sqlite3.connect(path) as raw:
            raw.execute(
                "INSERT INTO messages (id, tenant_id, conversation_id, seq, role, content,"
                " content_sanitised, status, referenced_nodes, created_at)"
                " VALUES ('m-globex', 'globex', ?, 41, 'user', 'x', 'x', 'complete', '[]', '')",
                (conversation.id,),
            )
        raw.close()
        turn = [
            NewMessage(role="user", content="q", content_sanitised="q"),
            NewMessage(role="assistant", content="a", content_sanitised="a"),
        ]
        await store.save_turn("acme", conversation.id, turn, ConversationContext(), user_id="alice")
        with sqlite3.connect(path) as raw:
            seqs = raw.execute(
                "SELECT seq FROM messages WHERE tenant_id = 'acme' ORDER BY seq"
            ).fetchall()
        raw.close()
        assert seqs == [(1,), (2,)]  # not 42, 43: globex's row does not count
        history = await store.recent_messages("acme", conversation.id, 10, user_id="alice")
        assert [m.content for m in history] == ["q", "a"]
    finally:
        await store.aclose()
