"""How the composition root gets a conversation store and its egress ports, and what every call
of both does when the database fails underneath it."""

import sqlite3

import psycopg
import pytest

from conversations.factory import build_conversation_store
from conversations.models import ConversationContext, NewMessage
from conversations.postgres import APP_ROLE, PostgresConversationStore
from conversations.sqlite import SqliteConversationStore
from egress.audit import EgressAuditRecord
from egress.policy import EgressMode, TenantPolicy, UserPolicy
from errors import ConversationStoreUnavailable, InvalidInput

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


def audit_record():
    return EgressAuditRecord(
        tenant_id="acme", user_id="alice", conversation_id="c", task="chat", provider="echo",
        model="m", requested_mode=None, effective_mode="enforce", counts={"PPSN": 1},
        violations=["provider_not_allowed:echo"], blocked=True, reason="not allowed",
    )  # fmt: skip


async def test_a_store_hands_out_egress_ports_over_its_own_database(conversation_backend):
    store = conversation_backend.open()
    await store.init()
    try:
        egress = store.egress_adapters()
        await egress.policies.set_tenant_policy("acme", TenantPolicy(allow_off_mode=True))
        assert (await conversation_backend.policies(store).tenant_policy("acme")).allow_off_mode
        assert await egress.vault.get_or_assign("acme", "c", "PPSN", "1234567TW") == "[PPSN_1]"
        assert await conversation_backend.vault(store).lookup("acme", "c") == {
            "[PPSN_1]": "1234567TW"
        }
        entry = audit_record()
        await egress.audit.record(entry)
        assert await conversation_backend.audit(store).recent("acme") == [entry]
    finally:
        await store.aclose()


def test_the_factory_builds_the_configured_store_without_connecting(tmp_path):
    sqlite = build_conversation_store("sqlite", sqlite_path=tmp_path / "c.db")
    assert isinstance(sqlite, SqliteConversationStore)
    assert not (tmp_path / "c.db").exists()
    postgres = build_conversation_store(
        "postgres", sqlite_path=tmp_path / "c.db", postgres_dsn="host=127.0.0.1 port=1"
    )
    assert isinstance(postgres, PostgresConversationStore)
    with pytest.raises(InvalidInput, match="DSN"):
        build_conversation_store("postgres", sqlite_path=tmp_path / "c.db", postgres_dsn="")


async def test_the_factorys_postgres_store_runs_as_the_app_role(postgres_dsn, tmp_path):
    store = build_conversation_store(
        "postgres", sqlite_path=tmp_path / "unused.db", postgres_dsn=postgres_dsn
    )
    await store.init()  # the superuser of the DSN alone would be refused: it bypasses RLS
    try:
        conversation = await store.create_conversation("acme", "alice")
        assert (
            await store.get_conversation("acme", conversation.id, user_id="alice")
        ).user_id == "alice"
    finally:
        await store.aclose()


# -- every call, both backends: a library error becomes ConversationStoreUnavailable --------


async def break_sqlite(tmp_path):
    path = tmp_path / "c.db"
    store = SqliteConversationStore(path)
    await store.init()
    with sqlite3.connect(path) as raw:
        tables = raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        for (table,) in tables:
            if not table.startswith("sqlite_"):
                raw.execute(f'DROP TABLE "{table}"')
    raw.close()
    return store, sqlite3.Error


async def break_postgres(postgres_dsn):
    store = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE)
    await store.init()
    async with await psycopg.AsyncConnection.connect(postgres_dsn, autocommit=True) as admin:
        await admin.execute("DROP SCHEMA regintel CASCADE")
    return store, psycopg.Error


@pytest.fixture(params=["sqlite", "postgres"])
async def broken_store(request, tmp_path):
    """An initialised store whose tables were dropped behind its back; the library's error."""
    if request.param == "sqlite":
        store, library_error = await break_sqlite(tmp_path)
    else:
        store, library_error = await break_postgres(request.getfixturevalue("postgres_dsn"))
    yield store, library_error
    await store.aclose()


CALLS = {
    "create_conversation": lambda s: s.create_conversation("acme", "alice"),
    "get_conversation": lambda s: s.get_conversation("acme", "c", user_id="alice"),
    "load_context": lambda s: s.load_context("acme", "c", user_id="alice"),
    "recent_messages": lambda s: s.recent_messages("acme", "c", 5, user_id="alice"),
    "load_turn": lambda s: s.load_turn("acme", "c", 5, user_id="alice"),
    "load_turn_since_summary": lambda s: s.load_turn(
        "acme", "c", 5, user_id="alice", since_summary=True
    ),
    "list_conversations": lambda s: s.list_conversations("acme", "alice", 10),
    "save_turn": lambda s: s.save_turn(
        "acme",
        "c",
        [NewMessage(role="user", content="q", content_sanitised="q")],
        ConversationContext(),
        user_id="alice",
    ),
    "checkpoint_answer": lambda s: s.checkpoint_answer("acme", "c", "m", "a", "a", user_id="alice"),
    "finish_answer": lambda s: s.finish_answer(
        "acme",
        "c",
        "m",
        NewMessage(role="assistant", content="a", content_sanitised="a"),
        ConversationContext(),
        user_id="alice",
    ),
    "tenant_policy": lambda s: s.egress_adapters().policies.tenant_policy("acme"),
    "user_policy": lambda s: s.egress_adapters().policies.user_policy("acme", "alice"),
    "caller_policies": lambda s: s.egress_adapters().policies.caller_policies("acme", "alice"),
    "set_tenant_policy": lambda s: s.egress_adapters().policies.set_tenant_policy(
        "acme", TenantPolicy(default_mode=EgressMode.ENFORCE)
    ),
    "set_user_policy": lambda s: s.egress_adapters().policies.set_user_policy(
        "acme", "alice", UserPolicy()
    ),
    "get_or_assign": lambda s: s.egress_adapters().vault.get_or_assign("acme", "c", "PPSN", "1"),
    "lookup": lambda s: s.egress_adapters().vault.lookup("acme", "c"),
    "record": lambda s: s.egress_adapters().audit.record(audit_record()),
    "recent": lambda s: s.egress_adapters().audit.recent("acme"),
}


async def test_every_call_turns_a_database_error_into_a_store_error(broken_store):
    store, library_error = broken_store
    for name, call in CALLS.items():
        with pytest.raises(ConversationStoreUnavailable) as caught:
            await call(store)
        assert isinstance(caught.value.__cause__, library_error), name
    await store.ping()  # the connection itself is fine: the store is still usable
