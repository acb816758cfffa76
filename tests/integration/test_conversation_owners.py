"""Users inside a tenant (ADR 0025): a conversation is its creator's; sharing is explicit.

The store suite runs against both adapters; the row-level security tests run raw SQL as the app
role in a session carrying another user's claims, exactly as Supabase sets them, without the
adapter's own filters.
"""

from typing import Any

import pytest
from psycopg import errors as pg_errors

from conversations.models import ConversationContext, NewMessage
from conversations.postgres import APP_ROLE, PostgresConversationStore
from errors import ConversationReadOnly, NotFound
from tests.support.postgres import as_app_role

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def store(conversation_backend: Any) -> Any:
    store = conversation_backend.open()
    await store.init()
    yield store
    await store.aclose()


def turn(text: str = "q") -> list[NewMessage]:
    return [
        NewMessage(role="user", content=text, content_sanitised=text),
        NewMessage(role="assistant", content="a", content_sanitised="a", referenced_nodes=["IE"]),
    ]


async def alices_conversation(store: Any, question: str = "alice's question") -> str:
    conversation = await store.create_conversation("acme", "alice")
    await store.save_turn(
        "acme", conversation.id, turn(question), ConversationContext(active_node_ids=["N"]),
        user_id="alice",
    )  # fmt: skip
    return str(conversation.id)


async def assert_bob_cannot_read(store: Any, conversation_id: str) -> None:
    with pytest.raises(NotFound):
        await store.get_conversation("acme", conversation_id, user_id="bob")
    with pytest.raises(NotFound):
        await store.load_context("acme", conversation_id, user_id="bob")
    assert await store.recent_messages("acme", conversation_id, 10, user_id="bob") == []
    with pytest.raises(NotFound):
        await store.load_turn("acme", conversation_id, 10, user_id="bob")
    listed = await store.list_conversations("acme", "bob", 50)
    assert conversation_id not in [c.id for c in listed]


async def assert_bob_cannot_write(store: Any, conversation_id: str) -> None:
    with pytest.raises(NotFound):
        await store.save_turn(
            "acme", conversation_id, turn("bob's"), ConversationContext(), user_id="bob"
        )
    [_, answer] = await store.recent_messages("acme", conversation_id, 10, user_id="alice")
    assert not await store.checkpoint_answer(
        "acme", conversation_id, answer.id, "bob", "bob", user_id="bob"
    )
    with pytest.raises(NotFound):
        await store.finish_answer(
            "acme", conversation_id, answer.id, turn("x")[1], ConversationContext(), user_id="bob"
        )
    history = await store.recent_messages("acme", conversation_id, 10, user_id="alice")
    assert [m.content for m in history] == ["alice's question", "a"]  # nothing of bob's


async def test_another_users_private_conversation_does_not_exist_for_them(store: Any) -> None:
    conversation_id = await alices_conversation(store)
    assert (await store.get_conversation("acme", conversation_id, user_id="alice")).visibility == (
        "private"
    )
    await assert_bob_cannot_read(store, conversation_id)
    await assert_bob_cannot_write(store, conversation_id)
    with pytest.raises(NotFound):  # bob cannot share it either
        await store.set_visibility("acme", conversation_id, "tenant", user_id="bob")
    assert (await store.get_conversation("acme", conversation_id, user_id="alice")).visibility == (
        "private"
    )


async def test_a_shared_conversation_is_read_only_to_the_tenants_other_users(store: Any) -> None:
    conversation_id = await alices_conversation(store)
    shared = await store.set_visibility("acme", conversation_id, "tenant", user_id="alice")
    assert (shared.visibility, shared.user_id) == ("tenant", "alice")

    seen = await store.get_conversation("acme", conversation_id, user_id="bob")
    assert (seen.user_id, seen.visibility) == ("alice", "tenant")
    history = await store.recent_messages("acme", conversation_id, 10, user_id="bob")
    assert [m.content for m in history] == ["alice's question", "a"]
    context = await store.load_context("acme", conversation_id, user_id="bob")
    assert context.active_node_ids == ["N"]
    state = await store.load_turn("acme", conversation_id, 10, user_id="bob")
    assert (state.conversation.user_id, state.context.active_node_ids) == ("alice", ["N"])
    assert [m.content for m in state.history] == ["alice's question", "a"]
    [listed] = await store.list_conversations("acme", "bob", 50)
    assert (listed.id, listed.user_id, listed.title) == (
        conversation_id,
        "alice",
        "alice's question",
    )

    await assert_bob_cannot_write(store, conversation_id)
    with pytest.raises(ConversationReadOnly):
        await store.set_visibility("acme", conversation_id, "private", user_id="bob")
    # never across tenants, shared or not
    with pytest.raises(NotFound):
        await store.get_conversation("globex", conversation_id, user_id="bob")
    assert await store.list_conversations("globex", "bob", 50) == []

    await store.set_visibility("acme", conversation_id, "private", user_id="alice")
    await assert_bob_cannot_read(store, conversation_id)


async def test_the_list_is_own_and_shared_newest_first_in_pages(store: Any) -> None:
    mine = [await alices_conversation(store, f"question {n}") for n in range(3)]
    bobs_private = await store.create_conversation("acme", "bob")
    bobs_shared = await store.create_conversation("acme", "bob")
    await store.set_visibility("acme", bobs_shared.id, "tenant", user_id="bob")
    await store.save_turn(  # the newest update
        "acme", mine[0], turn("question 0, again"), ConversationContext(), user_id="alice"
    )
    listed = await store.list_conversations("acme", "alice", 50)
    assert [c.id for c in listed] == [mine[0], bobs_shared.id, mine[2], mine[1]]
    assert bobs_private.id not in [c.id for c in listed]
    assert listed[0].title == "question 0"  # its first question
    pages = [await store.list_conversations("acme", "alice", 3, offset) for offset in (0, 3, 6)]
    assert [[c.id for c in page] for page in pages] == [
        [mine[0], bobs_shared.id, mine[2]],
        [mine[1]],
        [],
    ]


# -- row-level security on its own: raw SQL as the app role, other users' claims -------------

ALICE_ROWS = {
    "conversations": "SELECT id FROM regintel.conversations WHERE id = %s",
    "messages": "SELECT id FROM regintel.messages WHERE conversation_id = %s",
    "contexts": "SELECT conversation_id FROM regintel.contexts WHERE conversation_id = %s",
}


@pytest.fixture
async def postgres_store(postgres_dsn: str) -> Any:
    store = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE, timeout=2.0)
    await store.init()
    yield store
    await store.aclose()


async def rows_seen(
    dsn: str, tenant: str | None, user: str | None, conversation_id: str
) -> dict[str, int]:
    return {
        table: len(await as_app_role(dsn, tenant, query, (conversation_id,), user_id=user))
        for table, query in ALICE_ROWS.items()
    }


async def test_rls_hides_another_users_private_rows_from_raw_sql(
    postgres_store: Any, postgres_dsn: str
) -> None:
    conversation_id = await alices_conversation(postgres_store)
    everything = {"conversations": 1, "messages": 2, "contexts": 1}
    nothing = dict.fromkeys(ALICE_ROWS, 0)
    assert await rows_seen(postgres_dsn, "acme", "alice", conversation_id) == everything
    assert await rows_seen(postgres_dsn, "acme", "bob", conversation_id) == nothing
    assert await rows_seen(postgres_dsn, "acme", None, conversation_id) == nothing  # no sub
    assert await rows_seen(postgres_dsn, "globex", "alice", conversation_id) == nothing
    for table in ALICE_ROWS:  # not even a count
        [(count,)] = await as_app_role(
            postgres_dsn, "acme", f"SELECT count(*) FROM regintel.{table}", user_id="bob"
        )
        assert count == 0, table

    await postgres_store.set_visibility("acme", conversation_id, "tenant", user_id="alice")
    assert await rows_seen(postgres_dsn, "acme", "bob", conversation_id) == everything
    assert await rows_seen(postgres_dsn, "globex", "bob", conversation_id) == nothing


async def test_rls_refuses_another_users_writes_even_into_a_shared_conversation(
    postgres_store: Any, postgres_dsn: str
) -> None:
    conversation_id = await alices_conversation(postgres_store)
    await postgres_store.set_visibility("acme", conversation_id, "tenant", user_id="alice")
    with pytest.raises(pg_errors.InsufficientPrivilege, match="row-level security"):
        await as_app_role(
            postgres_dsn,
            "acme",
            "INSERT INTO regintel.messages (id, tenant_id, conversation_id, seq, role, content,"
            " content_sanitised, status, created_at) VALUES ('m-bob', 'acme', %s, 99, 'user',"
            " 'x', 'x', 'complete', now())",
            (conversation_id,),
            user_id="bob",
        )
    for statement in (  # bob's updates find nothing to update
        "UPDATE regintel.conversations SET visibility = 'private' WHERE id = %s RETURNING id",
        "UPDATE regintel.messages SET content = 'bob' WHERE conversation_id = %s RETURNING id",
        "UPDATE regintel.contexts SET active_node_ids = '{X}' WHERE conversation_id = %s"
        " RETURNING conversation_id",
    ):
        assert (
            await as_app_role(postgres_dsn, "acme", statement, (conversation_id,), user_id="bob")
            == []
        ), statement
    with pytest.raises(pg_errors.InsufficientPrivilege, match="row-level security"):
        await as_app_role(  # a conversation in someone else's name
            postgres_dsn,
            "acme",
            "INSERT INTO regintel.conversations (id, tenant_id, user_id, created_at, updated_at)"
            " VALUES ('c-forged', 'acme', 'alice', now(), now())",
            user_id="bob",
        )
    with pytest.raises(pg_errors.InsufficientPrivilege):  # not even the owner moves it
        await as_app_role(
            postgres_dsn,
            "acme",
            "UPDATE regintel.conversations SET user_id = 'bob' WHERE id = %s",
            (conversation_id,),
            user_id="alice",
        )
    history = await postgres_store.recent_messages("acme", conversation_id, 10, user_id="alice")
    assert [m.content for m in history] == ["alice's question", "a"]
    assert (
        await postgres_store.get_conversation("acme", conversation_id, user_id="bob")
    ).user_id == ("alice")


async def test_the_adapter_sets_the_claims_as_supabase_does_for_each_transaction(
    postgres_store: Any, postgres_dsn: str
) -> None:
    conversation_id = await alices_conversation(postgres_store)
    async with postgres_store.tenant_transaction("acme", "bob") as conn:
        cur = await conn.execute("SELECT current_setting('request.jwt.claims')::jsonb AS c")
        row = await cur.fetchone()
        assert row is not None
        assert row["c"] == {
            "sub": "bob",
            "role": "authenticated",
            "app_metadata": {"tenant_id": "acme"},
        }
        # inside the adapter's own transaction, without its filters: nothing of alice's
        cur = await conn.execute("SELECT id FROM regintel.messages")
        assert await cur.fetchall() == []
    async with postgres_store.tenant_transaction("acme", "alice") as conn:
        cur = await conn.execute(
            "SELECT count(*) AS n FROM regintel.messages WHERE conversation_id = %s",
            (conversation_id,),
        )
        assert await cur.fetchone() == {"n": 2}
    # transaction-local: a pool of one connection carries no claims into what comes next
    single = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE, min_size=1, max_size=1)
    await single.init()
    try:
        async with single.tenant_transaction("acme", "bob"):
            pass
        async with single._connection() as conn:
            cur = await conn.execute("SELECT current_setting('request.jwt.claims', true) AS c")
            assert (await cur.fetchone()) in [{"c": None}, {"c": ""}]
    finally:
        await single.aclose()
