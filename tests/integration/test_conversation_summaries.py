"""Compaction summaries in the conversation store (issue 27, ADR 0065), on SQLite and on
PostgreSQL as the app role under row-level security: a turn stores the summary its prompt used
with the range it replaced, once per range; the owner lists and rolls it back; nobody else sees
it; erasure takes it."""

import sqlite3

import psycopg
import pytest

from conversations.models import ConversationContext, NewMessage, NewSummary
from errors import InvalidInput, NotFound

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def store(conversation_backend):
    store = conversation_backend.open()
    await store.init()
    yield store
    await store.aclose()


async def count_rows(conversation_backend, request, tmp_path):
    """Every row of the summaries table, seen by a superuser (no RLS) or the SQLite file."""
    if conversation_backend.name == "sqlite":
        with sqlite3.connect(tmp_path / "c.db") as conn:
            return conn.execute("SELECT COUNT(*) FROM summaries").fetchone()[0]
    dsn = request.getfixturevalue("postgres_dsn")
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        cur = await conn.execute("SELECT COUNT(*) FROM regintel.summaries")
        row = await cur.fetchone()
        assert row is not None
        return row[0]


def said(role, text, nodes=()):
    return NewMessage(role=role, content=text, content_sanitised=text, referenced_nodes=list(nodes))


async def a_turn(store, cid, text, summary=None, user="alice"):
    return await store.save_turn(
        "acme",
        cid,
        [said("user", text), said("assistant", f"answer to {text}", ["IE:RATE:VAT_STANDARD"])],
        ConversationContext(),
        user_id=user,
        summary=summary,
    )


def summary_of(first, last, count):
    return NewSummary(
        first_message_id=first.id,
        last_message_id=last.id,
        message_count=count,
        summary='- [Q] "one"\n- [A] "answer to one"',
        cited_node_ids=["IE:RATE:VAT_STANDARD"],
    )


async def test_a_turn_stores_its_summary_once_and_the_owner_rolls_it_back(
    store, conversation_backend, request, tmp_path
):
    cid = (await store.create_conversation("acme", "alice")).id
    q1, a1 = await a_turn(store, cid, "one")
    await a_turn(store, cid, "two", summary_of(q1, a1, 2))
    await a_turn(store, cid, "three", summary_of(q1, a1, 2))  # the same range: stored already
    state = await store.load_turn("acme", cid, 100, user_id="alice")
    assert len(state.summaries) == 1
    stored = state.summaries[0]
    assert (stored.first_message_id, stored.last_message_id, stored.message_count) == (
        q1.id,
        a1.id,
        2,
    )
    assert stored.cited_node_ids == ["IE:RATE:VAT_STANDARD"] and stored.rolled_back_at is None
    assert await store.summaries("acme", cid, user_id="alice") == [stored]

    rolled_back = await store.roll_back_summary("acme", cid, stored.id, user_id="alice")
    assert rolled_back.rolled_back_at is not None
    again = await store.roll_back_summary("acme", cid, stored.id, user_id="alice")
    assert again.rolled_back_at == rolled_back.rolled_back_at  # twice: no change
    state = await store.load_turn("acme", cid, 100, user_id="alice")
    assert [s.rolled_back_at for s in state.summaries] == [rolled_back.rolled_back_at]
    assert await count_rows(conversation_backend, request, tmp_path) == 1


async def test_nobody_but_the_owner_sees_or_rolls_back_a_summary(store):
    cid = (await store.create_conversation("acme", "alice")).id
    q1, a1 = await a_turn(store, cid, "one")
    await a_turn(store, cid, "two", summary_of(q1, a1, 2))
    sid = (await store.summaries("acme", cid, user_id="alice"))[0].id
    await store.set_visibility("acme", cid, "tenant", user_id="alice")
    # a reader of the shared conversation: none on its turn read, 404 on the routes' calls
    assert (await store.load_turn("acme", cid, 10, user_id="bob")).summaries == ()
    for tenant, user in [("acme", "bob"), ("globex", "alice")]:
        with pytest.raises(NotFound):
            await store.summaries(tenant, cid, user_id=user)
        with pytest.raises(NotFound):
            await store.roll_back_summary(tenant, cid, sid, user_id=user)
    with pytest.raises(NotFound):
        await store.roll_back_summary("acme", cid, "no-such-summary", user_id="alice")
    assert (await store.summaries("acme", cid, user_id="alice"))[0].rolled_back_at is None


async def test_erasure_takes_the_summaries(store, conversation_backend, request, tmp_path):
    cid = (await store.create_conversation("acme", "alice")).id
    q1, a1 = await a_turn(store, cid, "one")
    await a_turn(store, cid, "two", summary_of(q1, a1, 2))
    assert await count_rows(conversation_backend, request, tmp_path) == 1
    await store.erase_conversation("acme", cid, user_id="alice", requested_by="alice")
    assert await count_rows(conversation_backend, request, tmp_path) == 0


async def test_a_models_summary_joins_the_owners_stored_summary_once(store):
    """ADR 0065 third addendum: the background call's summary is added to the row ending at
    the message, in the owner's name only, once, never to a rolled-back or erased one."""
    cid = (await store.create_conversation("acme", "alice")).id
    q1, a1 = await a_turn(store, cid, "one")
    _, a2 = await a_turn(store, cid, "two", summary_of(q1, a1, 2))
    await a_turn(store, cid, "three", summary_of(q1, a2, 4))
    for tenant, user in [("acme", "bob"), ("globex", "alice")]:  # nobody else's name
        assert not await store.set_model_summary(tenant, cid, a1.id, "x", "o:m", user_id=user)
    assert not await store.set_model_summary("acme", cid, "no-such", "x", "o:m", user_id="alice")
    assert await store.set_model_summary(
        "acme", cid, a1.id, "The user asked one.", "openai:gpt-4o-mini", user_id="alice"
    )
    assert not await store.set_model_summary(  # once: a second writer changes nothing
        "acme", cid, a1.id, "Another.", "openai:gpt-4o-mini", user_id="alice"
    )
    first, second = await store.summaries("acme", cid, user_id="alice")
    assert (first.model_summary, first.model_summary_by) == (
        "The user asked one.",
        "openai:gpt-4o-mini",
    )
    assert first.summary == '- [Q] "one"\n- [A] "answer to one"'  # the extractive one stays
    assert second.model_summary is None
    await store.roll_back_summary("acme", cid, second.id, user_id="alice")
    assert not await store.set_model_summary("acme", cid, a2.id, "x", "o:m", user_id="alice")
    state = await store.load_turn("acme", cid, 100, user_id="alice", since_summary=True)
    assert [s.model_summary for s in state.summaries] == ["The user asked one.", None]
    await store.erase_conversation("acme", cid, user_id="alice", requested_by="alice")
    assert not await store.set_model_summary("acme", cid, a1.id, "x", "o:m", user_id="alice")


async def test_a_carried_model_summary_is_stored_with_its_row_and_replaced_by_a_call(store):
    """ADR 0065 fourth addendum: a turn that made no call stores its row carrying the model
    summary it continued and its pending lines (as the app role on PostgreSQL: insert and
    update of the new column); a later call's summary replaces the carried one and clears the
    pending lines; a row whose model summary covers it all is never written twice."""
    cid = (await store.create_conversation("acme", "alice")).id
    q1, a1 = await a_turn(store, cid, "one")
    _, a2 = await a_turn(store, cid, "two", summary_of(q1, a1, 2))
    carried = summary_of(q1, a2, 4).model_copy(
        update={
            "summary": '- [Q] "one"\n- [A] "answer to one"\n- [Q] "two"\n- [A] "answer to two"',
            "model_summary": "The user asked one.",
            "model_summary_by": "openai:gpt-4o-mini",
            "model_pending_lines": 2,
        }
    )
    await a_turn(store, cid, "three", carried)
    _, second = await store.summaries("acme", cid, user_id="alice")
    assert (second.model_summary, second.model_summary_by, second.model_pending_lines) == (
        "The user asked one.",
        "openai:gpt-4o-mini",
        2,
    )
    assert await store.set_model_summary(
        "acme", cid, a2.id, "The user asked one and two.", "openai:gpt-4o", user_id="alice"
    )
    assert not await store.set_model_summary(
        "acme", cid, a2.id, "Again.", "openai:gpt-4o", user_id="alice"
    )
    _, second = await store.summaries("acme", cid, user_id="alice")
    assert (second.model_summary, second.model_summary_by, second.model_pending_lines) == (
        "The user asked one and two.",
        "openai:gpt-4o",
        0,
    )


async def test_row_level_security_covers_the_summaries(postgres_dsn):
    """On PostgreSQL, without the store's own filters: another user or tenant cannot read or
    roll back a summary, nor write one in the owner's name."""
    from conversations.postgres import APP_ROLE, PostgresConversationStore
    from tests.support.postgres import as_app_role

    store = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE)
    await store.init()
    try:
        cid = (await store.create_conversation("acme", "alice")).id
        q1, a1 = await a_turn(store, cid, "one")
        await a_turn(store, cid, "two", summary_of(q1, a1, 2))
    finally:
        await store.aclose()
    read = "SELECT id FROM regintel.summaries WHERE conversation_id = %s"
    roll = (
        "UPDATE regintel.summaries SET rolled_back_at = now() WHERE conversation_id = %s"
        " RETURNING id"
    )
    told = (
        "UPDATE regintel.summaries SET model_summary = 'x' WHERE conversation_id = %s RETURNING id"
    )
    for tenant, user in [("acme", "bob"), ("globex", "alice")]:
        assert await as_app_role(postgres_dsn, tenant, read, (cid,), user_id=user) == []
        assert await as_app_role(postgres_dsn, tenant, roll, (cid,), user_id=user) == []
        assert await as_app_role(postgres_dsn, tenant, told, (cid,), user_id=user) == []
    rewrite = "UPDATE regintel.summaries SET summary = 'x' WHERE conversation_id = %s"
    with pytest.raises(psycopg.errors.InsufficientPrivilege):  # the model's columns only
        await as_app_role(postgres_dsn, "acme", rewrite, (cid,), user_id="alice")
    forged = (
        "INSERT INTO regintel.summaries (tenant_id, id, conversation_id, user_id,"
        " first_message_id, last_message_id, message_count, summary, created_at)"
        " VALUES ('acme', 'f', %s, 'alice', 'a', 'b', 1, 'x', now()) RETURNING id"
    )
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        await as_app_role(postgres_dsn, "acme", forged, (cid,), user_id="bob")
    assert len(await as_app_role(postgres_dsn, "acme", read, (cid,), user_id="alice")) == 1


async def test_a_turn_reads_only_what_follows_its_branchs_summary(store):
    """ADR 0065 addendum: ``since_summary`` stops the branch read at the nearest summary end
    not rolled back, and returns the branch's first message; a summary of another branch, or a
    rolled-back one, does not stop it."""
    cid = (await store.create_conversation("acme", "alice")).id
    q1, _ = await a_turn(store, cid, "one")
    _, a2 = await a_turn(store, cid, "two")
    q3, a3 = await a_turn(store, cid, "three", summary_of(q1, a2, 4))
    q4, a4 = await a_turn(store, cid, "four")
    state = await store.load_turn("acme", cid, 100, user_id="alice", since_summary=True)
    assert [m.id for m in state.history] == [q3.id, a3.id, q4.id, a4.id]
    assert state.summarised_through == a2.id and state.first is not None
    assert state.first.id == q1.id and state.first.content == "one"
    # without it, the whole branch, as before
    whole = await store.load_turn("acme", cid, 100, user_id="alice")
    assert len(whole.history) == 8 and whole.summarised_through is None and whole.first is None
    # the nearest summary wins
    await a_turn(store, cid, "five", summary_of(q1, a3, 6))
    state = await store.load_turn("acme", cid, 100, user_id="alice", since_summary=True)
    assert state.summarised_through == a3.id and state.history[0].id == q4.id
    # rolled back: the read goes on to the one before it
    sid = next(s.id for s in state.summaries if s.last_message_id == a3.id)
    await store.roll_back_summary("acme", cid, sid, user_id="alice")
    state = await store.load_turn("acme", cid, 100, user_id="alice", since_summary=True)
    assert state.summarised_through == a2.id and state.history[0].id == q3.id
    # another branch (an edit of question 2): its path holds no summary end, read whole
    await store.save_turn(
        "acme", cid, [said("user", "two, edited")], ConversationContext(), user_id="alice",
        parent_id=_answer_of(whole, q1.id),
    )  # fmt: skip
    state = await store.load_turn("acme", cid, 100, user_id="alice", since_summary=True)
    assert state.summarised_through is None
    assert [m.content for m in state.history] == ["one", "answer to one", "two, edited"]
    # the first question edited (a second root): back on the first branch, its own root
    await store.save_turn(
        "acme", cid, [said("user", "one, edited")], ConversationContext(), user_id="alice",
        parent_id=None,
    )  # fmt: skip
    await store.switch_branch("acme", cid, a4.id, user_id="alice")
    state = await store.load_turn("acme", cid, 100, user_id="alice", since_summary=True)
    assert state.summarised_through == a2.id and state.first is not None
    assert state.first.id == q1.id
    # another user or tenant: nothing
    for tenant, user in [("acme", "bob"), ("globex", "alice")]:
        with pytest.raises(NotFound):
            await store.load_turn(tenant, cid, 100, user_id=user, since_summary=True)


def _answer_of(state, question_id):
    return next(m.id for m in state.history if m.parent_id == question_id)


def continuing(first, last, count, lines, base, added):
    """A row a turn stored continuing ``base`` (its last message) with ``added`` new lines and
    no model summary of its own (none landed yet: the call was held, ADR 0065 session 8)."""
    return NewSummary(
        first_message_id=first.id,
        last_message_id=last.id,
        message_count=count,
        summary="\n".join(f'- [Q] "{n}"' for n in range(lines)),
        base_last_message_id=base.id,
        added_lines=added,
    )


async def test_a_late_model_summary_is_carried_to_the_rows_that_continue_its_own(store):
    """ADR 0065 session 8 addendum: a model summary that lands on a row after two later turns
    stored rows continuing it is carried to both (as the app role on PostgreSQL), with the
    lines each added since as its pending lines (capped at the lines it kept), so the next
    prompt uses it; a row of another branch, one rolled back, and one whose own call covered
    it are left alone."""
    cid = (await store.create_conversation("acme", "alice")).id
    q1, a1 = await a_turn(store, cid, "one")
    _, a2 = await a_turn(store, cid, "two", summary_of(q1, a1, 2))  # row 1: first compaction
    _, a3 = await a_turn(store, cid, "three", continuing(q1, a2, 4, 4, a1, 2))  # row 2
    _, a4 = await a_turn(store, cid, "four", continuing(q1, a3, 6, 5, a2, 2))  # row 3, trimmed
    # another branch (an edit of "four"), whose next turn read the whole branch: its row
    # starts its own range (no base), on messages of that branch only
    [_, edited] = await store.save_turn(
        "acme",
        cid,
        [said("user", "four, edited"), said("assistant", "answer")],
        ConversationContext(),
        user_id="alice",
        parent_id=a3.id,
    )
    await a_turn(store, cid, "five", summary_of(q1, edited, 8))
    assert await store.set_model_summary(
        "acme", cid, a1.id, "The user asked one.", "openai:gpt-4o-mini", user_id="alice"
    )
    rows = {s.last_message_id: s for s in await store.summaries("acme", cid, user_id="alice")}
    assert (rows[a2.id].model_summary, rows[a2.id].model_pending_lines) == (
        "The user asked one.",
        2,
    )
    assert rows[a2.id].model_summary_by == "openai:gpt-4o-mini"
    assert (rows[a3.id].model_summary, rows[a3.id].model_pending_lines) == (
        "The user asked one.",
        4,  # 2 + 2 lines added since row 1, within the 5 it kept
    )
    assert rows[edited.id].model_summary is None  # another branch: not carried

    # a row whose own call covered it stops the carry along its chain; a rolled-back one too
    cid2 = (await store.create_conversation("acme", "alice")).id
    q1, a1 = await a_turn(store, cid2, "one")
    _, a2 = await a_turn(store, cid2, "two", summary_of(q1, a1, 2))
    _, a3 = await a_turn(store, cid2, "three", continuing(q1, a2, 4, 4, a1, 2))
    _, a4 = await a_turn(store, cid2, "four", continuing(q1, a3, 6, 6, a2, 2))
    await a_turn(store, cid2, "five", continuing(q1, a4, 8, 8, a3, 2))
    fourth = (await store.summaries("acme", cid2, user_id="alice"))[-1]
    await store.roll_back_summary("acme", cid2, fourth.id, user_id="alice")
    assert await store.set_model_summary("acme", cid2, a2.id, "Own.", "o:m", user_id="alice")
    assert await store.set_model_summary("acme", cid2, a1.id, "Late.", "o:m", user_id="alice")
    rows2 = await store.summaries("acme", cid2, user_id="alice")
    assert [(s.model_summary, s.model_pending_lines) for s in rows2] == [
        ("Late.", 0),
        ("Own.", 0),  # its own call: the late one stops here
        ("Own.", 2),  # carried from row 2 when its call landed
        (None, 0),  # rolled back before: never carried
    ]


async def test_the_owner_pins_messages_and_a_turn_reads_those_on_its_branch(
    store, conversation_backend, request, tmp_path
):
    """Pinned messages (issue 27, must-have 2; ADR 0065 session 8): owner only, a message of
    the conversation only (404 otherwise), at most 20; a turn's load reads the pins up its
    branch (not another branch's); erasure takes them; RLS hides them from anyone else."""
    cid = (await store.create_conversation("acme", "alice")).id
    _, a1 = await a_turn(store, cid, "one")
    q2, a2 = await a_turn(store, cid, "two")
    assert await store.pin_message("acme", cid, a1.id, user_id="alice") == [a1.id]
    assert await store.pin_message("acme", cid, a1.id, user_id="alice") == [a1.id]  # once
    assert await store.pin_message("acme", cid, q2.id, user_id="alice") == [a1.id, q2.id]
    for tenant, user, message in [
        ("acme", "bob", a1.id),  # not the owner
        ("globex", "alice", a1.id),  # not the tenant
        ("acme", "alice", "no-such-message"),
    ]:
        with pytest.raises(NotFound):
            await store.pin_message(tenant, cid, message, user_id=user)
    with pytest.raises(NotFound):
        await store.pinned_message_ids("acme", cid, user_id="bob")
    # another branch (an edit of "two"): its turns read only a1's pin
    [edited, _] = await store.save_turn(
        "acme",
        cid,
        [said("user", "two, edited"), said("assistant", "answer")],
        ConversationContext(),
        user_id="alice",
        parent_id=a1.id,
    )
    state = await store.load_turn("acme", cid, 100, user_id="alice", pinned=True)
    assert [m.id for m in state.pinned] == [a1.id]
    assert state.pinned[0].content == "answer to one"
    assert (await store.load_turn("acme", cid, 100, user_id="alice")).pinned == ()
    await store.switch_branch("acme", cid, a2.id, user_id="alice")
    state = await store.load_turn("acme", cid, 100, user_id="alice", pinned=True)
    assert [m.id for m in state.pinned] == [a1.id, q2.id]  # oldest first
    assert await store.pin_message("acme", cid, q2.id, user_id="alice", pinned=False) == [a1.id]
    assert edited.id not in await store.pinned_message_ids("acme", cid, user_id="alice")
    if conversation_backend.name == "postgres":
        from tests.support.postgres import as_app_role

        dsn = request.getfixturevalue("postgres_dsn")
        pins = "SELECT count(*) FROM regintel.pinned_messages"
        assert await as_app_role(dsn, "acme", pins, user_id="alice") == [(1,)]
        assert await as_app_role(dsn, "acme", pins, user_id="bob") == [(0,)]
        assert await as_app_role(dsn, "globex", pins, user_id="alice") == [(0,)]
    await store.erase_conversation("acme", cid, user_id="alice", requested_by="alice")
    if conversation_backend.name == "sqlite":
        with sqlite3.connect(tmp_path / "c.db") as conn:
            left = conn.execute("SELECT COUNT(*) FROM pinned_messages").fetchone()[0]
    else:
        async with await psycopg.AsyncConnection.connect(dsn) as conn:
            cur = await conn.execute("SELECT COUNT(*) FROM regintel.pinned_messages")
            left = (await cur.fetchone() or (None,))[0]
    assert left == 0  # erasure took them
    other = (await store.create_conversation("acme", "alice")).id
    _, b1 = await a_turn(store, other, "one")
    for _ in range(19):
        await a_turn(store, other, "more")
    state = await store.load_turn("acme", other, 100, user_id="alice")
    for message in state.history[-20:]:
        await store.pin_message("acme", other, message.id, user_id="alice")
    with pytest.raises(InvalidInput):
        await store.pin_message("acme", other, b1.id, user_id="alice")
