import asyncio

import pytest

from conversations.models import ConversationContext, NewMessage
from conversations.sqlite import SqliteConversationStore
from errors import AdapterClosed, ConversationStoreUnavailable, NotFound

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def store(conversation_backend):
    """One suite, both adapters: SQLite and PostgreSQL (``tests/integration/conftest.py``)."""
    store = conversation_backend.open()
    await store.init()
    await store.init()  # migrations are idempotent
    yield store
    await store.aclose()


def messages(text="q"):
    return [
        NewMessage(role="user", content=text, content_sanitised=text),
        NewMessage(role="assistant", content="a", content_sanitised="a", referenced_nodes=["IE"]),
    ]


async def test_a_turn_and_its_context_are_saved_together(store):
    conversation = await store.create_conversation("acme", "alice")
    saved = await store.save_turn(
        "acme",
        conversation.id,
        messages(),
        ConversationContext(active_node_ids=["TAX:IE:VAT"]),
        user_id="alice",
    )
    assert [m.role for m in saved] == ["user", "assistant"]
    assert (await store.load_context("acme", conversation.id, user_id="alice")).active_node_ids == [
        "TAX:IE:VAT"
    ]
    history = await store.recent_messages("acme", conversation.id, 10, user_id="alice")
    assert [m.referenced_nodes for m in history] == [[], ["IE"]]


async def test_another_tenants_conversation_is_not_found(store):
    conversation = await store.create_conversation("acme", "alice")
    with pytest.raises(NotFound):
        await store.get_conversation("globex", conversation.id, user_id="carol")
    with pytest.raises(NotFound):
        await store.load_context("globex", conversation.id, user_id="carol")
    with pytest.raises(NotFound):
        await store.save_turn(
            "globex", conversation.id, messages(), ConversationContext(), user_id="carol"
        )
    assert await store.recent_messages("globex", conversation.id, 10, user_id="carol") == []
    assert (
        await store.recent_messages("acme", conversation.id, 10, user_id="alice") == []
    )  # nothing leaked in


async def test_a_failed_turn_saves_nothing(store):
    conversation = await store.create_conversation("acme", "alice")
    bad = [
        messages()[0],
        NewMessage.model_construct(
            role="system",  # type: ignore[arg-type]  # deliberately invalid: the save must fail
            content="x",
            content_sanitised="x",
            status="complete",
            referenced_nodes=[],
        ),
    ]
    with pytest.raises(ConversationStoreUnavailable):
        await store.save_turn(
            "acme",
            conversation.id,
            bad,
            ConversationContext(active_node_ids=["X"]),
            user_id="alice",
        )
    assert await store.recent_messages("acme", conversation.id, 10, user_id="alice") == []
    assert (
        await store.load_context("acme", conversation.id, user_id="alice")
    ).active_node_ids == []


async def test_concurrent_turns_keep_their_order(store):
    conversation = await store.create_conversation("acme", "alice")
    await asyncio.gather(
        *[
            store.save_turn(
                "acme", conversation.id, messages(f"q{i}"), ConversationContext(), user_id="alice"
            )
            for i in range(10)
        ]
    )
    history = await store.recent_messages("acme", conversation.id, 100, user_id="alice")
    assert len(history) == 20
    assert all(
        history[i].role == "user" and history[i + 1].role == "assistant" for i in range(0, 20, 2)
    )


async def test_an_unreachable_file_is_a_store_error(tmp_path):
    (tmp_path / "dir.db").mkdir()
    store = SqliteConversationStore(tmp_path / "dir.db")
    with pytest.raises(ConversationStoreUnavailable):
        await store.init()


async def test_a_closed_store_refuses_every_call_and_does_not_reopen(conversation_backend):
    """After ``aclose`` nothing reopens the file or the pool (httpx's client state): every call
    of the port, ``init`` too, raises ``AdapterClosed``; ``aclose`` stays idempotent."""
    store = conversation_backend.open()
    await store.init()
    conversation = await store.create_conversation("acme", "alice")
    await store.aclose()
    cid, context = conversation.id, ConversationContext()
    calls = [
        lambda: store.init(),
        lambda: store.ping(),
        lambda: store.create_conversation("acme", "alice"),
        lambda: store.get_conversation("acme", cid, user_id="alice"),
        lambda: store.set_visibility("acme", cid, "tenant", user_id="alice"),
        lambda: store.load_context("acme", cid, user_id="alice"),
        lambda: store.list_conversations("acme", "alice", 10),
        lambda: store.recent_messages("acme", cid, 10, user_id="alice"),
        lambda: store.load_turn("acme", cid, 10, user_id="alice"),
        lambda: store.load_turn("acme", cid, 10, user_id="alice", since_summary=True),
        lambda: store.save_turn("acme", cid, messages(), context, user_id="alice"),
        lambda: store.checkpoint_answer("acme", cid, "m", "a", "a", user_id="alice"),
        lambda: store.finish_answer("acme", cid, "m", messages()[1], context, user_id="alice"),
        lambda: store.egress_adapters().policies.tenant_policy("acme"),
    ]
    for call in calls:
        with pytest.raises(AdapterClosed, match="closed"):
            await call()
    await store.aclose()
