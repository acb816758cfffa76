"""A tenant admin's users and usage views (``conversations.port.TenantAdminQueries``, ADR 0041)
on SQLite and on PostgreSQL as ``regintel_app`` with row-level security: the tenant's own users
only, counts and times only; and the RLS policy of migration 006 checked without the adapter's
filters (the admin claim sees every user of its own tenant, never another tenant's)."""

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from conversations.models import ConversationContext, NewMessage
from conversations.port import TenantAdminQueries
from conversations.postgres import APP_ROLE, PostgresConversationStore
from egress.audit import EgressAuditRecord
from egress.policy import EgressMode, UserPolicy

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def store(conversation_backend: Any) -> Any:
    store = conversation_backend.open()
    await store.init()
    yield store
    await store.aclose()


def turn(text: str) -> list[NewMessage]:
    return [
        NewMessage(role="user", content=text, content_sanitised=text),
        NewMessage(role="assistant", content="a", content_sanitised="a"),
    ]


async def conversation(store: Any, tenant: str, user: str, turns: int = 1) -> str:
    created = await store.create_conversation(tenant, user)
    for n in range(turns):
        await store.save_turn(
            tenant, created.id, turn(f"{user} q{n}"), ConversationContext(), user_id=user
        )
    return str(created.id)


async def call(store: Any, tenant: str, user: str, *, blocked: bool = False) -> None:
    record = EgressAuditRecord(
        tenant_id=tenant, user_id=user, conversation_id="c", task="chat", provider="p",
        model="m", requested_mode=None, effective_mode="enforce", blocked=blocked,
    )  # fmt: skip
    await store.egress_adapters().audit.record(record)


async def test_the_users_are_the_tenants_owners_with_counts_activity_and_mode(store: Any) -> None:
    admin: TenantAdminQueries = store
    assert await admin.tenant_users("acme") == []
    await conversation(store, "acme", "bob")
    await conversation(store, "acme", "alice", turns=2)
    last = await conversation(store, "acme", "alice")
    await conversation(store, "globex", "gina")
    await conversation(store, "globex", "alice")  # same id, another tenant: never counted here
    await store.set_visibility("acme", last, "tenant", user_id="alice")  # shared or not: owner
    policies = store.egress_adapters().policies
    await policies.set_user_policy("acme", "alice", UserPolicy(mode=EgressMode.REPORT_ONLY))
    await policies.set_user_policy("acme", "nobody", UserPolicy(mode=EgressMode.OFF))
    await policies.set_user_policy("globex", "bob", UserPolicy(mode=EgressMode.OFF))

    users = await admin.tenant_users("acme")
    assert [(u.user_id, u.conversations, u.egress_mode) for u in users] == [
        ("alice", 2, "report-only"),
        ("bob", 1, None),  # globex's policy for a "bob" is not acme's bob's
    ]
    alices = await store.get_conversation("acme", last, user_id="alice")
    assert users[0].last_activity == alices.updated_at
    assert [u.user_id for u in await admin.tenant_users("globex")] == ["alice", "gina"]
    assert await admin.tenant_users("initech") == []
    assert [u.user_id for u in await admin.tenant_users("acme", limit=1)] == ["alice"]


async def test_usage_counts_each_users_turns_and_calls_in_the_window(store: Any) -> None:
    admin: TenantAdminQueries = store
    assert await admin.tenant_usage("acme") == []
    await conversation(store, "acme", "alice", turns=2)
    await conversation(store, "acme", "bob")
    await conversation(store, "globex", "gina", turns=3)
    await call(store, "acme", "alice")
    await call(store, "acme", "alice", blocked=True)
    await call(store, "acme", "carl")  # a call, no conversation (e.g. refused before a turn)
    await call(store, "globex", "gina")

    usage = {u.user_id: u for u in await admin.tenant_usage("acme")}
    assert sorted(usage) == ["alice", "bob", "carl"]
    alice, bob, carl = usage["alice"], usage["bob"], usage["carl"]
    assert (alice.conversations, alice.user_messages, alice.answers) == (1, 2, 2)
    assert (alice.model_calls, alice.blocked_calls) == (1 + 1, 1)
    assert (bob.conversations, bob.user_messages, bob.answers, bob.model_calls) == (1, 1, 1, 0)
    assert (carl.conversations, carl.user_messages, carl.model_calls) == (0, 0, 1)
    assert [u.user_id for u in await admin.tenant_usage("globex")] == ["gina"]

    since = datetime.now(UTC)
    later = await store.create_conversation("acme", "bob")  # bob's only activity in the window
    await store.save_turn("acme", later.id, turn("again"), ConversationContext(), user_id="bob")
    old = await conversation(store, "acme", "alice")  # a new conversation of alice's ...
    window = {u.user_id: u for u in await admin.tenant_usage("acme", since)}
    assert sorted(window) == ["alice", "bob"]  # carl's call was before the window
    assert (window["bob"].conversations, window["bob"].user_messages) == (1, 1)
    assert (window["alice"].conversations, window["alice"].user_messages) == (1, 1)
    assert window["alice"].model_calls == 0
    # ... and a turn in an old conversation counts its messages, not the conversation
    await store.save_turn("acme", old, turn("more"), ConversationContext(), user_id="alice")
    assert (await admin.tenant_usage("acme", since))[0].user_messages == 2
    assert await admin.tenant_usage("acme", datetime.now(UTC) + timedelta(hours=1)) == []
    assert [u.user_id for u in await admin.tenant_usage("acme", limit=2)] == ["alice", "bob"]


async def raw(dsn: str, claims: dict[str, Any], query: str) -> list[tuple[Any, ...]]:
    """``query`` as the app role with exactly ``claims``, without the adapter's filters."""
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        async with conn.transaction():
            await conn.execute(f"SET LOCAL ROLE {APP_ROLE}".encode())
            await conn.execute(
                "SELECT set_config('request.jwt.claims', %s, true)", (json.dumps(claims),)
            )
            cur = await conn.execute(query.encode())
            return await cur.fetchall()


async def test_rls_lets_the_admin_claim_read_its_own_tenant_only(postgres_dsn: str) -> None:
    store = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE)
    await store.init()
    try:
        await conversation(store, "acme", "alice")
        await conversation(store, "acme", "bob")
        await conversation(store, "globex", "gina")
        owners = "SELECT DISTINCT c.user_id FROM regintel.conversations c ORDER BY 1"
        messages = "SELECT count(*) FROM regintel.messages"

        def claims(tenant: str, role: str | None = None, sub: str | None = None) -> dict[str, Any]:
            metadata = {"tenant_id": tenant, **({"role": role} if role else {})}
            return {**({"sub": sub} if sub else {}), "app_metadata": metadata}

        # a member of acme (or the tenant claim alone) sees only their own conversations
        assert await raw(postgres_dsn, claims("acme", sub="bob"), owners) == [("bob",)]
        assert await raw(postgres_dsn, claims("acme"), owners) == []
        assert await raw(postgres_dsn, claims("acme", role="member", sub="bob"), owners) == [
            ("bob",)
        ]
        # the admin claim: every user of its own tenant, never another tenant's
        assert await raw(postgres_dsn, claims("acme", role="admin"), owners) == [
            ("alice",),
            ("bob",),
        ]
        assert await raw(postgres_dsn, claims("acme", role="admin"), messages) == [(4,)]
        assert await raw(postgres_dsn, claims("globex", role="admin"), owners) == [("gina",)]
        assert await raw(postgres_dsn, claims("initech", role="operator"), owners) == []
        # a role under user_metadata (which users edit themselves) is not the admin claim
        forged = {"user_metadata": {"role": "admin"}, "app_metadata": {"tenant_id": "acme"}}
        assert await raw(postgres_dsn, forged, owners) == []
        # reading is all the admin claim adds: it writes nothing of another user's
        update = (
            "UPDATE regintel.conversations SET visibility = 'tenant'"
            " WHERE user_id = 'alice' RETURNING id"
        )
        assert await raw(postgres_dsn, claims("acme", role="admin", sub="bob"), update) == []
    finally:
        await store.aclose()
