"""Export, erasure and retention in the conversation store (``ConversationExport`` and
``ConversationErasure``, ADR 0048) on SQLite and on PostgreSQL as ``regintel_app`` with
row-level security: the owner's own conversations only; erasure leaves no text of them (messages,
context, vault originals), keeps counts (the egress audit without the ids, the erasure trail);
a turn that was running writes nothing back; the retention job erases by cutoff, once, with two
workers at it."""

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

from conversations.models import ConversationContext, NewMessage
from conversations.port import ConversationErasure, ConversationExport
from conversations.postgres import ERASER_ROLE
from egress.audit import EgressAuditRecord
from egress.policy import EgressMode, UserPolicy
from errors import NotFound
from tests.support.postgres import as_app_role

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
        NewMessage(role="assistant", content=f"answer to {text}", content_sanitised="a",
                   referenced_nodes=["EU:REG_2016_679:ART_17"]),
    ]  # fmt: skip


async def conversation(store: Any, tenant: str, user: str, text: str) -> str:
    created = await store.create_conversation(tenant, user)
    await store.save_turn(
        tenant, created.id, turn(text), ConversationContext(active_node_ids=["N1"]), user_id=user
    )
    return str(created.id)


def call(tenant: str, user: str, conversation_id: str) -> EgressAuditRecord:
    return EgressAuditRecord(
        tenant_id=tenant, user_id=user, conversation_id=conversation_id, task="chat",
        provider="p", model="m", requested_mode=None, effective_mode="enforce",
        counts={"EMAIL": 1},
    )  # fmt: skip


async def test_export_is_the_owners_own_conversations_with_every_message(store: Any) -> None:
    exports: ConversationExport = store
    first = await conversation(store, "acme", "alice", "first question")
    await store.save_turn(
        "acme", first, turn("second question"), ConversationContext(), user_id="alice"
    )
    second = await conversation(store, "acme", "alice", "other conversation")
    shared = await conversation(store, "acme", "bob", "bob's shared question")
    await store.set_visibility("acme", shared, "tenant", user_id="bob")
    await conversation(store, "globex", "alice", "same user id, another tenant")

    exported = await exports.export_conversations("acme", user_id="alice")
    assert [c.id for c in exported] == [first, second]  # oldest first; not bob's, not globex's
    messages = exported[0].messages
    assert [(m.seq, m.role, m.content) for m in messages] == [
        (1, "user", "first question"),
        (2, "assistant", "answer to first question"),
        (3, "user", "second question"),
        (4, "assistant", "answer to second question"),
    ]
    assert messages[1].referenced_nodes == ["EU:REG_2016_679:ART_17"]
    assert all(m.created_at.tzinfo is not None for m in messages)
    assert exported[0].active_node_ids == ["N1"]
    assert await exports.export_conversations("acme", user_id="carol") == []


async def test_erasing_a_conversation_leaves_counts_and_no_text(store: Any) -> None:
    erasure: ConversationErasure = store
    egress = store.egress_adapters()
    gone = await conversation(store, "acme", "alice", "my PPSN is 1234567TW")
    kept = await conversation(store, "acme", "alice", "keep me")
    await egress.vault.get_or_assign("acme", gone, "PPSN", "1234567TW")
    await egress.vault.get_or_assign("acme", kept, "PPSN", "7654321AB")
    await egress.audit.record(call("acme", "alice", gone))

    record = await erasure.erase_conversation("acme", gone, user_id="alice", requested_by="alice")
    assert (record.kind, record.conversation_id, record.subject_user_id) == (
        "conversation", gone, "alice"
    )  # fmt: skip
    assert (record.conversations, record.questions, record.answers) == (1, 1, 1)
    assert (record.pseudonyms, record.model_calls) == (1, 1)

    with pytest.raises(NotFound):
        await store.get_conversation("acme", gone, user_id="alice")
    assert await egress.vault.lookup("acme", gone) == {}
    assert await egress.vault.lookup("acme", kept) == {"[PPSN_1]": "7654321AB"}
    [audit] = await egress.audit.recent("acme")
    assert (audit.user_id, audit.conversation_id) == ("alice", "(erased)")
    assert audit.counts == {"EMAIL": 1}  # the count stays
    [trail] = await erasure.erasures("acme")
    assert trail.id is not None and trail.conversation_id == gone and trail.questions == 1
    assert "PPSN" not in trail.model_dump_json()
    assert [c.id for c in await store.export_conversations("acme", user_id="alice")] == [kept]
    assert await erasure.erasures("globex") == []


async def test_only_the_owner_erases_and_anything_else_is_not_found(store: Any) -> None:
    erasure: ConversationErasure = store
    alices = await conversation(store, "acme", "alice", "private")
    await store.set_visibility("acme", alices, "tenant", user_id="alice")  # bob may read it
    for tenant, user in [("acme", "bob"), ("globex", "alice"), ("acme", "nobody")]:
        with pytest.raises(NotFound):
            await erasure.erase_conversation(tenant, alices, user_id=user, requested_by=user)
    with pytest.raises(NotFound):
        await erasure.erase_conversation("acme", "no-such-id", user_id="alice", requested_by="a")
    assert (await store.get_conversation("acme", alices, user_id="alice")).id == alices
    assert await erasure.erasures("acme") == []


async def test_a_turn_running_during_erasure_writes_nothing_back(store: Any) -> None:
    """The question and the empty streaming answer are saved, the conversation is erased, then
    the turn goes on: its checkpoint, its sanitisation (vault), its audit record, its final save
    and a late capture's context all find the conversation gone."""
    egress = store.egress_adapters()
    conversation_id = (await store.create_conversation("acme", "alice")).id
    question = NewMessage(role="user", content="what about jane@example.com", content_sanitised="q")
    streaming = NewMessage(role="assistant", content="", content_sanitised="", status="streaming")
    saved = await store.save_turn(
        "acme", conversation_id, [question, streaming], ConversationContext(), user_id="alice"
    )
    answer_id = saved[1].id

    await store.erase_conversation("acme", conversation_id, user_id="alice", requested_by="alice")

    assert not await store.checkpoint_answer(
        "acme", conversation_id, answer_id, "Jane's answer so far", "", user_id="alice"
    )
    placeholder = await egress.vault.get_or_assign(
        "acme", conversation_id, "EMAIL", "jane@example.com"
    )
    assert placeholder == "[EMAIL_1]"  # the text sent upstream is still sanitised ...
    assert await egress.vault.lookup("acme", conversation_id) == {}  # ... the original not kept
    await egress.audit.record(call("acme", "alice", conversation_id))
    [audit] = await egress.audit.recent("acme")
    assert audit.conversation_id == "(erased)"
    final = NewMessage(role="assistant", content="Jane's answer", content_sanitised="a")
    with pytest.raises(NotFound):
        await store.finish_answer(
            "acme", conversation_id, answer_id, final, ConversationContext(), user_id="alice"
        )
    with pytest.raises(NotFound):
        await store.save_turn(
            "acme", conversation_id, [], ConversationContext(active_node_ids=["X"]), user_id="alice"
        )
    assert await store.export_conversations("acme", user_id="alice") == []


async def test_an_admins_erasure_of_a_user_takes_everything_of_them(store: Any) -> None:
    erasure: ConversationErasure = store
    egress = store.egress_adapters()
    ids = [await conversation(store, "acme", "bob", f"bob's question {n}") for n in range(3)]
    alices = await conversation(store, "acme", "alice", "alice stays")
    globex = await conversation(store, "globex", "bob", "another tenant's bob stays")
    await egress.policies.set_user_policy("acme", "bob", UserPolicy(mode=EgressMode.REPORT_ONLY))
    for conversation_id in ids:
        await egress.vault.get_or_assign("acme", conversation_id, "PPSN", "1234567TW")
    await egress.audit.record(call("acme", "bob", ids[0]))
    await egress.audit.record(call("acme", "bob", "not-a-stored-conversation"))
    await egress.audit.record(call("acme", "alice", alices))

    record = await erasure.erase_conversations(
        "acme", user_id="bob", requested_by="ann", kind="user"
    )
    assert (record.kind, record.subject_user_id, record.requested_by) == ("user", "bob", "ann")
    assert (record.conversations, record.questions, record.answers, record.pseudonyms) == (
        3, 3, 3, 3
    )  # fmt: skip
    assert record.model_calls == 2  # one anonymised with its conversation, one by the user
    assert await store.export_conversations("acme", user_id="bob") == []
    assert [c.id for c in await store.export_conversations("acme", user_id="alice")] == [alices]
    assert [c.id for c in await store.export_conversations("globex", user_id="bob")] == [globex]
    assert "bob" not in await egress.policies.user_policies("acme")
    audit = await egress.audit.recent("acme")
    assert sorted(a.user_id for a in audit) == ["(erased)", "(erased)", "alice"]
    # a late record of one of bob's conversations names neither it nor him
    await egress.audit.record(call("acme", "bob", ids[1]))
    latest = (await egress.audit.recent("acme", limit=1))[0]
    assert (latest.user_id, latest.conversation_id) == ("(erased)", "(erased)")
    # nothing left of bob: a second erasure finds nothing
    with pytest.raises(NotFound):
        await erasure.erase_conversations("acme", user_id="bob", requested_by="ann", kind="user")
    # a user erasing all their own conversations stays a user (their id stays on the audit)
    mine = await erasure.erase_conversations(
        "acme", user_id="alice", requested_by="alice", kind="all_conversations"
    )
    assert (mine.kind, mine.conversations) == ("all_conversations", 1)
    assert any(a.user_id == "alice" for a in await egress.audit.recent("acme"))


async def test_retention_erases_by_cutoff_once_with_two_workers(
    conversation_backend: Any,
) -> None:
    first, second = conversation_backend.open(), conversation_backend.open()
    await first.init()
    await second.init()
    try:
        old = [await conversation(first, "acme", "alice", f"old {n}") for n in range(5)]
        old.append(await conversation(first, "globex", "gina", "old globex"))
        continued = await conversation(first, "acme", "bob", "old but continued")
        cutoff = datetime.now(UTC)
        await first.save_turn(
            "acme", continued, turn("continued after the cutoff"), ConversationContext(),
            user_id="bob",
        )  # fmt: skip
        recent = await conversation(first, "acme", "alice", "recent")

        totals = await asyncio.gather(
            first.erase_expired(cutoff, batch=2), second.erase_expired(cutoff, batch=2)
        )
        assert sum(t.conversations for t in totals) == len(old)  # each erased exactly once
        assert sum(t.questions for t in totals) == len(old)
        remaining = await first.export_conversations("acme", user_id="alice")
        assert [c.id for c in remaining] == [recent]
        assert [c.id for c in await first.export_conversations("acme", user_id="bob")] == [
            continued
        ]
        assert await first.export_conversations("globex", user_id="gina") == []
        trail = await first.erasures("acme")
        assert {r.kind for r in trail} == {"expired"}
        assert sum(r.conversations for r in trail) == 5
        assert all(r.requested_by == "retention" and r.subject_user_id == "" for r in trail)
        again = await first.erase_expired(cutoff)
        assert again.conversations == 0  # idempotent
    finally:
        await first.aclose()
        await second.aclose()


@pytest.mark.parametrize("conversation_backend", ["postgres"], indirect=True)
async def test_rls_keeps_the_new_tables_to_their_tenant(store: Any, postgres_dsn: str) -> None:
    gone = await conversation(store, "acme", "alice", "erase me")
    await store.erase_conversation("acme", gone, user_id="alice", requested_by="alice")
    for table in ("erasures", "erased_conversations"):
        query = f"SELECT count(*) FROM regintel.{table}"
        assert await as_app_role(postgres_dsn, "acme", query, user_id="alice") == [(1,)]
        assert await as_app_role(postgres_dsn, "globex", query, user_id="alice") == [(0,)]
        assert await as_app_role(postgres_dsn, None, query) == [(0,)]
    # only the job's claim lists the tenants; a member sees their own tenant's row only
    tenants = "SELECT id FROM regintel.tenants ORDER BY id"
    await conversation(store, "globex", "gina", "globex")
    assert await as_app_role(postgres_dsn, "acme", tenants, user_id="alice") == [("acme",)]
    assert await store.tenant_ids() == ["acme", "globex"]
    # the app's role deletes nothing (append-only, migration 003); the eraser role deletes only
    # the owner's rows of the tenant in its claims
    kept = await conversation(store, "acme", "alice", "kept")
    delete = "DELETE FROM regintel.messages WHERE conversation_id = %s"
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        await as_app_role(postgres_dsn, "acme", delete, (kept,), user_id="alice")
    for tenant, user in [("acme", "bob"), ("globex", "alice"), (None, None)]:
        assert await as_eraser(postgres_dsn, tenant, user, delete, kept) == 0
    exported = await store.export_conversations("acme", user_id="alice")
    assert [len(c.messages) for c in exported] == [2]
    assert await as_eraser(postgres_dsn, "acme", "alice", delete, kept) == 2


async def as_eraser(
    dsn: str, tenant: str | None, user: str | None, statement: str, conversation_id: str
) -> int:
    """A raw statement as the eraser role with only these claims: the rows it changed."""
    claims: dict[str, Any] = {"sub": user, "app_metadata": {"tenant_id": tenant}}
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        async with conn.transaction():
            await conn.execute(f"SET LOCAL ROLE {ERASER_ROLE}".encode())
            await conn.execute(
                "SELECT set_config('request.jwt.claims', %s, true)", (json.dumps(claims),)
            )
            cursor = await conn.execute(statement.encode(), (conversation_id,))
            return cursor.rowcount
