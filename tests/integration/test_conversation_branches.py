"""Branches in the conversation store (issue 27, ADR 0062), on SQLite and on PostgreSQL as the
app role under row-level security: messages form a tree, an edit or a regeneration adds a
sibling and keeps the earlier branch, each branch has its own context, the active branch can be
switched, and concurrent edits make separate branches."""

import asyncio
import shutil
import sqlite3
from pathlib import Path

import pytest

from conversations.models import ConversationContext, NewMessage
from conversations.sqlite import MIGRATIONS, SqliteConversationStore
from errors import ConversationReadOnly, NotFound

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def store(conversation_backend):
    store = conversation_backend.open()
    await store.init()
    yield store
    await store.aclose()


def question(text):
    return NewMessage(role="user", content=text, content_sanitised=text)


def answer(text, nodes=()):
    return NewMessage(
        role="assistant", content=text, content_sanitised=text, referenced_nodes=list(nodes)
    )


async def turn(store, cid, text, nodes=(), **where):
    """A question and its answer after ``where``'s parent (default: the active leaf); the
    answer's nodes join the branch's context, as a finished turn's do."""
    return await store.save_turn(
        "acme",
        cid,
        [question(text), answer(f"answer to {text}", nodes)],
        ConversationContext(active_node_ids=list(nodes)),
        user_id="alice",
        **where,
    )


def texts(messages):
    return [m.content for m in messages]


async def test_an_edit_starts_a_branch_beside_the_question_and_keeps_the_earlier_one(store):
    cid = (await store.create_conversation("acme", "alice")).id
    q1, a1 = await turn(store, cid, "one", ["TAX:IE:VAT"])
    q2, a2 = await turn(store, cid, "two", ["TAX:IE:CGT"])
    assert (q2.parent_id, a2.parent_id) == (a1.id, q2.id)

    # the edit of "two" reads the branch up to its parent: "two" and its answer are not in it
    state = await store.load_turn("acme", cid, 10, user_id="alice", branch_at=q2.id)
    assert state.parent_id == a1.id and state.branched is not None and state.branched.id == q2.id
    assert texts(state.history) == ["one", "answer to one"]
    assert state.context.active_node_ids == ["TAX:IE:VAT"]  # not the edited turn's CGT

    e2, _ = await turn(store, cid, "two, edited", ["TAX:IE:PAYE"], parent_id=state.parent_id)
    view = await store.conversation_view("acme", cid, 50, user_id="alice")
    assert texts(view.messages) == ["one", "answer to one", "two, edited", "answer to two, edited"]
    assert view.siblings[e2.id] == [q2.id, e2.id]  # the branch point, oldest first
    assert view.siblings[q1.id] == [q1.id]
    assert view.context.active_node_ids == ["TAX:IE:PAYE", "TAX:IE:VAT"]  # no CGT: other branch

    # the earlier branch is kept, with its own context
    switched = await store.switch_branch("acme", cid, q2.id, user_id="alice")
    assert switched.active_leaf_id == a2.id
    view = await store.conversation_view("acme", cid, 50, user_id="alice")
    assert texts(view.messages) == ["one", "answer to one", "two", "answer to two"]
    assert view.context.active_node_ids == ["TAX:IE:CGT", "TAX:IE:VAT"]
    assert texts(await store.recent_messages("acme", cid, 2, user_id="alice")) == [
        "two",
        "answer to two",
    ]

    # an edit of the first question branches at the root, with the conversation's empty context
    root = await store.load_turn("acme", cid, 10, user_id="alice", branch_at=q1.id)
    assert (root.parent_id, root.history, root.context.active_node_ids) == (None, [], [])
    r1, _ = await turn(store, cid, "one, edited", parent_id=None)
    view = await store.conversation_view("acme", cid, 50, user_id="alice")
    assert texts(view.messages) == ["one, edited", "answer to one, edited"]
    assert view.siblings[r1.id] == [q1.id, r1.id]


async def test_a_regeneration_adds_an_answer_beside_the_answer(store):
    cid = (await store.create_conversation("acme", "alice")).id
    q1, a1 = await turn(store, cid, "one")
    state = await store.load_turn("acme", cid, 10, user_id="alice", branch_at=a1.id)
    assert state.parent_id == q1.id and texts(state.history) == ["one"]  # ends at its question
    [again] = await store.save_turn(
        "acme", cid, [answer("another answer")], ConversationContext(), user_id="alice",
        parent_id=q1.id,
    )  # fmt: skip
    view = await store.conversation_view("acme", cid, 50, user_id="alice")
    assert texts(view.messages) == ["one", "another answer"]
    assert view.siblings[again.id] == [a1.id, again.id]
    assert view.conversation.active_leaf_id == again.id


async def test_a_switch_goes_to_the_latest_leaf_below_the_message(store):
    cid = (await store.create_conversation("acme", "alice")).id
    q1, a1 = await turn(store, cid, "one")
    await turn(store, cid, "two")
    _, a3 = await turn(store, cid, "three")
    await turn(store, cid, "one bis", parent_id=None)  # another branch is active now
    switched = await store.switch_branch("acme", cid, q1.id, user_id="alice")
    assert switched.active_leaf_id == a3.id  # from "one" down, to the end of its branch
    # switching to the answer of "one" (mid-branch) also goes down to the latest leaf
    assert (await store.switch_branch("acme", cid, a1.id, user_id="alice")).active_leaf_id == a3.id


async def test_a_view_through_another_branch_previews_it_and_switches_nothing(store):
    """The merge preview's read (ADR 0062 addendum): the branch a switch to a message would
    show, with its own context, while the active branch stays; shared readers may look, a
    message of no branch here or another user's private conversation is a 404."""
    cid = (await store.create_conversation("acme", "alice")).id
    await turn(store, cid, "one", ["TAX:IE:VAT"])
    q2, a2 = await turn(store, cid, "two", ["TAX:IE:CGT"])
    await turn(store, cid, "three", ["TAX:IE:USC"])
    state = await store.load_turn("acme", cid, 10, user_id="alice", branch_at=q2.id)
    e2, ea2 = await turn(store, cid, "two, edited", ["TAX:IE:PAYE"], parent_id=state.parent_id)

    other = await store.conversation_view("acme", cid, 50, user_id="alice", through=q2.id)
    assert texts(other.messages) == [
        "one", "answer to one", "two", "answer to two", "three", "answer to three"
    ]  # fmt: skip
    assert sorted(other.context.active_node_ids) == ["TAX:IE:CGT", "TAX:IE:USC", "TAX:IE:VAT"]
    assert other.siblings[q2.id] == [q2.id, e2.id]
    active = await store.conversation_view("acme", cid, 50, user_id="alice")
    assert active.conversation.active_leaf_id == ea2.id  # nothing switched
    assert texts(active.messages)[-1] == "answer to two, edited"

    await store.set_visibility("acme", cid, "tenant", user_id="alice")
    read = await store.conversation_view("acme", cid, 50, user_id="bob", through=a2.id)
    assert texts(read.messages)[-1] == "answer to three"
    with pytest.raises(NotFound):
        await store.conversation_view("acme", cid, 50, user_id="alice", through="no-such")
    await store.set_visibility("acme", cid, "private", user_id="alice")
    for tenant, user in [("acme", "bob"), ("globex", "alice")]:
        with pytest.raises(NotFound):
            await store.conversation_view(tenant, cid, 50, user_id=user, through=q2.id)


async def test_branch_calls_on_what_the_caller_may_not_touch(store):
    cid = (await store.create_conversation("acme", "alice")).id
    q1, _ = await turn(store, cid, "one")
    other = (await store.create_conversation("acme", "alice")).id
    [elsewhere, _] = await turn(store, other, "elsewhere")
    with pytest.raises(NotFound):  # an unknown message, and one of another conversation
        await store.load_turn("acme", cid, 10, user_id="alice", branch_at="no-such-message")
    with pytest.raises(NotFound):
        await store.load_turn("acme", cid, 10, user_id="alice", branch_at=elsewhere.id)
    with pytest.raises(NotFound):
        await turn(store, cid, "x", parent_id=elsewhere.id)
    with pytest.raises(NotFound):
        await store.switch_branch("acme", cid, elsewhere.id, user_id="alice")
    # another user, another tenant: their conversation is not found
    for tenant, user in [("acme", "bob"), ("globex", "alice")]:
        with pytest.raises(NotFound):
            await store.load_turn(tenant, cid, 10, user_id=user, branch_at=q1.id)
        with pytest.raises(NotFound):
            await store.switch_branch(tenant, cid, q1.id, user_id=user)
        with pytest.raises(NotFound):
            await store.conversation_view(tenant, cid, 10, user_id=user)
    # shared with the tenant: bob reads the branches, but may not switch them
    await store.set_visibility("acme", cid, "tenant", user_id="alice")
    assert texts((await store.conversation_view("acme", cid, 10, user_id="bob")).messages) == [
        "one",
        "answer to one",
    ]
    with pytest.raises(ConversationReadOnly):
        await store.switch_branch("acme", cid, q1.id, user_id="bob")


async def test_two_edits_at_once_make_two_branches_never_a_mix(store):
    cid = (await store.create_conversation("acme", "alice")).id
    _, a1 = await turn(store, cid, "one")
    q2, _ = await turn(store, cid, "two")
    edits = await asyncio.gather(
        *[turn(store, cid, f"edit {n}", [f"NODE:{n}"], parent_id=a1.id) for n in range(6)]
    )
    view = await store.conversation_view("acme", cid, 50, user_id="alice")
    siblings = view.siblings[view.messages[2].id]
    assert sorted(siblings) == sorted([q2.id, *[q.id for q, _ in edits]])
    for n, (q, a) in enumerate(edits):
        assert q.parent_id == a1.id and a.parent_id == q.id  # each answer follows its question
        await store.switch_branch("acme", cid, q.id, user_id="alice")
        view = await store.conversation_view("acme", cid, 50, user_id="alice")
        assert texts(view.messages) == ["one", "answer to one", f"edit {n}", f"answer to edit {n}"]
        assert view.context.active_node_ids == [f"NODE:{n}"]


async def test_an_answer_finished_after_a_switch_stays_on_its_branch(store):
    """A branch switch during a running turn: the turn finishes on its own branch, and its late
    capture joins that branch's context, not the active one's."""
    cid = (await store.create_conversation("acme", "alice")).id
    q1, _ = await turn(store, cid, "one", ["A"])
    q2, streaming = await store.save_turn(
        "acme", cid,
        [question("two"), NewMessage(role="assistant", content="", content_sanitised="",
                                     status="streaming")],
        ConversationContext(), user_id="alice",
    )  # fmt: skip
    await store.switch_branch("acme", cid, q1.id, user_id="alice")  # the same branch: a1 ...
    await turn(store, cid, "one bis", ["B"], parent_id=None)  # ... then another one
    assert await store.finish_answer(
        "acme", cid, streaming.id, answer("the answer to two", ["C"]),
        ConversationContext(active_node_ids=["C"]), user_id="alice",
    )  # fmt: skip
    await store.merge_context(
        "acme", cid, streaming.id, ConversationContext(active_node_ids=["LATE"]), user_id="alice"
    )
    view = await store.conversation_view("acme", cid, 50, user_id="alice")
    assert texts(view.messages) == ["one bis", "answer to one bis"]  # still the switched-to one
    assert view.context.active_node_ids == ["B"]
    await store.switch_branch("acme", cid, q2.id, user_id="alice")
    view = await store.conversation_view("acme", cid, 50, user_id="alice")
    assert texts(view.messages) == ["one", "answer to one", "two", "the answer to two"]
    assert view.context.active_node_ids == ["LATE", "C", "A"]


async def test_the_export_holds_every_branch(store):
    cid = (await store.create_conversation("acme", "alice")).id
    _, a1 = await turn(store, cid, "one", ["A"])
    _, a2 = await turn(store, cid, "two", ["B"])
    _, e2 = await turn(store, cid, "two, edited", ["C"], parent_id=a1.id)
    [exported] = await store.export_conversations("acme", user_id="alice")
    assert [m.content for m in exported.messages] == [
        "one", "answer to one", "two", "answer to two", "two, edited", "answer to two, edited",
    ]  # fmt: skip
    assert sorted(exported.branches) == sorted([a2.id, e2.id])
    assert exported.active_leaf_id == e2.id
    assert exported.active_node_ids == ["C", "A"]
    by_id = {m.id: m for m in exported.messages}
    assert by_id[e2.id].parent_id is not None and by_id[by_id[e2.id].parent_id].content == (
        "two, edited"
    )


async def test_a_conversation_stored_before_branches_reads_as_one_branch(tmp_path: Path):
    """Migration 008 on a SQLite file written before it: each message follows the one before
    it, the last is the active leaf, and the context is the conversation's contexts row."""
    before = tmp_path / "migrations"
    before.mkdir()
    for file in sorted(MIGRATIONS.glob("*.sql")):
        if file.name < "008":
            shutil.copy(file, before / file.name)
    path = tmp_path / "old.db"
    old = SqliteConversationStore(path, migrations=before)
    await old.init()
    cid = (await old.create_conversation("acme", "alice")).id
    await old.aclose()
    conn = sqlite3.connect(path)
    with conn:
        for seq, role in enumerate(["user", "assistant", "user", "assistant"], start=1):
            conn.execute(
                "INSERT INTO messages (id, tenant_id, conversation_id, seq, role, content,"
                " content_sanitised, status, created_at) VALUES (?, 'acme', ?, ?, ?, ?, ?,"
                " 'complete', '2025-01-01T00:00:00+00:00')",
                (f"m{seq}", cid, seq, role, f"text {seq}", f"text {seq}"),
            )
        conn.execute("UPDATE contexts SET active_node_ids = '[\"OLD\"]'")
    conn.close()
    store = SqliteConversationStore(path)
    await store.init()
    try:
        view = await store.conversation_view("acme", cid, 50, user_id="alice")
        assert [m.id for m in view.messages] == ["m1", "m2", "m3", "m4"]
        assert [m.parent_id for m in view.messages] == [None, "m1", "m2", "m3"]
        assert view.conversation.active_leaf_id == "m4"
        assert view.context.active_node_ids == ["OLD"]
        # a new turn continues it, and its context starts from the old one
        q5, _ = await turn(store, cid, "five", ["NEW"])
        assert q5.parent_id == "m4"
        assert (await store.load_context("acme", cid, user_id="alice")).active_node_ids == [
            "NEW",
            "OLD",
        ]
    finally:
        await store.aclose()


async def test_row_level_security_covers_the_branch_columns(postgres_dsn):
    """On PostgreSQL, without the store's own filters: another user or tenant cannot move a
    conversation's active branch, rewrite a branch's context, or read the tree."""
    from conversations.postgres import APP_ROLE, PostgresConversationStore
    from tests.support.postgres import as_app_role

    store = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE)
    await store.init()
    try:
        cid = (await store.create_conversation("acme", "alice")).id
        _, a1 = await turn(store, cid, "one", ["A"])
    finally:
        await store.aclose()
    move = "UPDATE regintel.conversations SET active_leaf_id = 'x' WHERE id = %s RETURNING id"
    rewrite = (
        "UPDATE regintel.messages SET context_node_ids = '{X}' WHERE conversation_id = %s"
        " RETURNING id"
    )
    tree = "SELECT id, parent_id FROM regintel.messages WHERE conversation_id = %s"
    for tenant, user in [("acme", "bob"), ("globex", "alice")]:
        assert await as_app_role(postgres_dsn, tenant, move, (cid,), user_id=user) == []
        assert await as_app_role(postgres_dsn, tenant, rewrite, (cid,), user_id=user) == []
        assert await as_app_role(postgres_dsn, tenant, tree, (cid,), user_id=user) == []
    # the owner may (the app's grants reach the new columns)
    assert await as_app_role(postgres_dsn, "acme", move, (cid,), user_id="alice") == [(cid,)]
    assert len(await as_app_role(postgres_dsn, "acme", tree, (cid,), user_id="alice")) == 2
    assert a1.parent_id is not None


async def test_an_erasure_takes_every_branch(store):
    cid = (await store.create_conversation("acme", "alice")).id
    _, a1 = await turn(store, cid, "one")
    await turn(store, cid, "two")
    await turn(store, cid, "two, edited", parent_id=a1.id)
    record = await store.erase_conversation("acme", cid, user_id="alice", requested_by="alice")
    assert (record.questions, record.answers) == (3, 3)  # the earlier branch's too
    assert await store.export_conversations("acme", user_id="alice") == []
    with pytest.raises(NotFound):
        await store.conversation_view("acme", cid, 10, user_id="alice")


async def test_the_title_is_the_first_question_of_the_active_branch(store):
    """After an edit of the first question, the conversation list's title is the question the
    active branch starts with; switching back brings the original title back."""
    cid = (await store.create_conversation("acme", "alice")).id
    q1, _ = await turn(store, cid, "Is VAT due on books?")
    _, a2 = await turn(store, cid, "And on e-books?")
    assert [c.title for c in await store.list_conversations("acme", "alice", 10)] == [
        "Is VAT due on books?"
    ]
    await turn(store, cid, "Is VAT due on newspapers?", parent_id=None)  # the edit of q1
    assert [c.title for c in await store.list_conversations("acme", "alice", 10)] == [
        "Is VAT due on newspapers?"
    ]
    await turn(store, cid, "A third try?", parent_id=None)
    await store.switch_branch("acme", cid, a2.id, user_id="alice")
    listed = await store.list_conversations("acme", "alice", 10)
    assert [c.title for c in listed] == ["Is VAT due on books?"]
    # a reader of the shared conversation sees the owner's active branch's title
    await store.set_visibility("acme", cid, "tenant", user_id="alice")
    assert [c.title for c in await store.list_conversations("acme", "bob", 10)] == [
        "Is VAT due on books?"
    ]
    assert q1.parent_id is None
