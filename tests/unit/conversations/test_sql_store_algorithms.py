"""The shared store algorithms over a fake database: which statements run, with which tenant,
and when a unit of work commits. The real databases are in ``tests/integration``."""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import fields
from datetime import UTC, datetime

import pytest

from conversations.models import ConversationContext, NewMessage, NewSummary, UsageEntry
from conversations.sql_store import SqlConversationStore
from conversations.sqlite import SQLITE
from conversations.unit_of_work import Result, StatementUnitOfWork
from egress.audit import EgressAuditRecord
from egress.policy import EgressMode, TenantPolicy, UserPolicy
from errors import NotFound

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

NAMES = {
    statement: f.name
    for f in fields(SQLITE.statements)
    if (statement := getattr(SQLITE.statements, f.name)) is not None
}


@pytest.fixture
def anyio_backend():
    return "asyncio"


class FakeDatabase(SqlConversationStore):
    """Records every statement with its unit of work's tenant; answers from ``rows``."""

    dialect = SQLITE

    def __init__(self, rows=None, rowcount=1):
        self.rows = rows or {}
        self.rowcount = rowcount
        self.ran = []  # (unit's tenant, statement name, params)
        self.users = {}  # statement name -> the users of the units it ran in
        self.admin = {}  # statement name -> whether its units were the tenant admin's
        self.erasure = {}  # statement name -> whether its units were an erasure's
        self.units = []  # StatementUnitOfWork, in order

    @asynccontextmanager
    async def unit_of_work(self, tenant_id, user_id=None, *, admin=False, erasure=False):
        async def run(statement, params):
            name = NAMES[statement]
            self.ran.append((tenant_id, name, dict(params)))
            self.users.setdefault(name, set()).add(user_id)
            self.admin.setdefault(name, set()).add(admin)
            self.erasure.setdefault(name, set()).add(erasure)
            return Result(self.rowcount, list(self.rows.get(name, [])))

        work = StatementUnitOfWork(run)
        self.units.append(work)
        yield work

    async def init(self):
        return None

    async def ping(self):
        return None

    async def tenant_ids(self):
        return ["acme"]

    async def aclose(self):
        return None


def turn():
    return [
        NewMessage(role="user", content="q", content_sanitised="q"),
        NewMessage(role="assistant", content="a", content_sanitised="a", referenced_nodes=["X"]),
    ]


async def exercise_everything(db):
    """Every method of the store and of the egress ports it hands out, as tenant acme."""
    conversation = await db.create_conversation("acme", "alice")
    await db.get_conversation("acme", conversation.id, user_id="alice")
    await db.set_visibility("acme", conversation.id, "tenant", user_id="alice")
    await db.load_context("acme", conversation.id, user_id="alice")
    await db.list_conversations("acme", "alice", 10)
    await db.recent_messages("acme", conversation.id, 5, user_id="alice")
    await db.load_turn("acme", conversation.id, 5, user_id="alice")
    await db.save_turn(
        "acme", conversation.id, turn(), ConversationContext(active_node_ids=["B"]), user_id="alice"
    )
    await db.checkpoint_answer(
        "acme", conversation.id, "m", "a so far", "a so far", user_id="alice"
    )
    await db.finish_answer(
        "acme", conversation.id, "m", turn()[1], ConversationContext(), user_id="alice"
    )
    # branches (ADR 0062): an edit's load, a context alone, a late capture's, the view, a switch
    await db.load_turn("acme", conversation.id, 5, user_id="alice", branch_at="m")
    await db.save_turn(
        "acme", conversation.id, [], ConversationContext(active_node_ids=["B"]), user_id="alice"
    )
    await db.merge_context(
        "acme", conversation.id, "m", ConversationContext(active_node_ids=["C"]), user_id="alice"
    )
    await db.conversation_view("acme", conversation.id, 10, user_id="alice")
    await db.switch_branch("acme", conversation.id, "m", user_id="alice")
    # compaction (ADR 0065): a turn that stores its summary, the owner's list and rollback
    summary = NewSummary(first_message_id="m", last_message_id="m", message_count=1, summary="s")
    question = NewMessage(role="user", content="q", content_sanitised="q")
    await db.save_turn(
        "acme", conversation.id, [question], ConversationContext(), user_id="alice",
        summary=summary,
    )  # fmt: skip
    await db.summaries("acme", conversation.id, user_id="alice")
    # a compacted turn continuing its summary: the branch read stops there (an active leaf)
    rows = db.rows["select_conversation"]
    db.rows["select_conversation"] = [{**row, "active_leaf_id": "m"} for row in rows]
    await db.load_turn("acme", conversation.id, 5, user_id="alice", since_summary=True)
    await db.load_turn("acme", conversation.id, 5, user_id="alice", pinned=True)  # its pins
    db.rows["select_conversation"] = rows
    await db.roll_back_summary("acme", conversation.id, "s", user_id="alice")
    # a configured model's summary, written after the turn (ADR 0065 third addendum)
    await db.set_model_summary("acme", conversation.id, "m", "text", "o:m", user_id="alice")
    # one summary call at a time per conversation across workers, without Redis (session 8)
    await db.acquire_summary_lease("acme", conversation.id, "w", 60, user_id="alice")
    await db.release_summary_lease("acme", conversation.id, "w", user_id="alice")
    # pinned messages (session 8)
    db.rows["select_pins"] = [{"message_id": "m"}]
    await db.pin_message("acme", conversation.id, "m2", user_id="alice")
    await db.pin_message("acme", conversation.id, "m", user_id="alice", pinned=False)
    await db.pinned_message_ids("acme", conversation.id, user_id="alice")
    egress = db.egress_adapters()
    await egress.policies.tenant_policy("acme")
    await egress.policies.user_policy("acme", "alice")
    await egress.policies.caller_policies("acme", "alice")
    await egress.policies.user_policies("acme")
    await egress.policies.set_tenant_policy("acme", TenantPolicy(default_mode=EgressMode.ENFORCE))
    await egress.policies.set_user_policy("acme", "alice", UserPolicy())
    await egress.vault.get_or_assign("acme", conversation.id, "PPSN", "1234567TW")
    await egress.vault.lookup("acme", conversation.id)
    record = EgressAuditRecord(
        tenant_id="acme", user_id="alice", conversation_id=conversation.id, task="chat",
        provider="p", model="m", requested_mode=None, effective_mode="enforce",
    )  # fmt: skip
    await egress.audit.record(record)
    await egress.audit.recent("acme")
    await db.tenant_users("acme")
    await db.tenant_usage("acme")
    await db.export_conversations("acme", user_id="alice")
    day = datetime(2026, 11, 27, tzinfo=UTC).date()
    await db.record_usage("acme", "alice", UsageEntry(day=day, provider="p", model="m"))
    await db.usage_by_model("acme", day, user_id="alice")
    await db.usage_by_model("acme", day)
    await db.usage_by_user("acme", day)
    scenarios = db.scenario_store()
    scenario = await scenarios.create_scenario("acme", "alice", "what if", "{}")
    await scenarios.get_scenario("acme", scenario.id, user_id="alice")
    await scenarios.list_scenarios("acme", "alice")
    await scenarios.link_conversation("acme", conversation.id, scenario.id, user_id="alice")
    await scenarios.linked_scenario("acme", conversation.id, user_id="alice")
    await scenarios.unlink_conversation("acme", conversation.id, user_id="alice")
    await scenarios.replace_scenario("acme", scenario.id, "what if 2", "{}", user_id="alice")
    await scenarios.delete_scenario("acme", scenario.id, user_id="alice")
    await db.erase_conversation("acme", conversation.id, user_id="alice", requested_by="alice")
    await db.erase_conversations("acme", user_id="alice", requested_by="ann", kind="user")
    await db.erase_expired(datetime.now(UTC))
    await db.erasures("acme")


def conversation_row():
    now = "2025-01-01T00:00:00.000000+00:00"
    return {
        "id": "c",
        "tenant_id": "acme",
        "user_id": "alice",
        "created_at": now,
        "updated_at": now,
    }


def message_row():
    return {
        "id": "m",
        "conversation_id": "c",
        "parent_id": None,
        "role": "assistant",
        "content": "a",
        "content_sanitised": "a",
        "status": "complete",
        "referenced_nodes": "[]",
        "created_at": "2025-01-01T00:00:00.000000+00:00",
    }


def link_row():
    return {"id": "m", "parent_id": None, "role": "assistant", "seq": 1}


async def test_every_statement_runs_in_a_unit_of_its_tenant_and_binds_it():
    db = FakeDatabase(
        rows={
            "select_conversation": [conversation_row()],
            "select_scenario": [{**conversation_row(), "label": "what if", "body": "{}"}],
            "select_branch_context": [{"active_node_ids": '["A"]'}],
            "select_branch_messages": [message_row()],
            "select_branch_since_summary": [{**message_row(), "part": 1}, {"id": "s", "part": 2}],
            "select_branch_roots": [message_row(), message_row()],
            "select_branch_root": [message_row()],
            "select_message_link": [link_row()],
            "select_message_links": [link_row()],
            "last_seq": [{"seq": 4}],
            "select_summaries": [
                {
                    "id": "s",
                    "conversation_id": "c",
                    "first_message_id": "m",
                    "last_message_id": "m",
                    "message_count": 1,
                    "summary": "s",
                    "cited_node_ids": "[]",
                    "created_at": "2025-01-01T00:00:00.000000+00:00",
                    "rolled_back_at": None,
                },
                {  # a row a later turn stored continuing it (ADR 0065 session 8 addendum)
                    "id": "s2",
                    "conversation_id": "c",
                    "first_message_id": "m",
                    "last_message_id": "m2",
                    "message_count": 3,
                    "summary": "s",
                    "cited_node_ids": "[]",
                    "created_at": "2025-01-01T00:00:01.000000+00:00",
                    "rolled_back_at": None,
                    "base_last_message_id": "m",
                    "added_lines": 1,
                },
            ],
            "count_placeholders": [{"n": 0}],
            "select_owned_conversation_ids": [{"id": "c"}],
            "lock_owned_conversation": [{"id": "c"}],
            "count_conversation_messages": [{"questions": 1, "answers": 1}],
            "select_expired_conversations": [{"id": "c", "user_id": "alice"}],
            "select_user_usage_rows": [
                {
                    "day": "2026-11-27",
                    "provider": "p",
                    "model": "m",
                    "turns": 1,
                    "input_tokens": 2,
                    "output_tokens": 3,
                    "cost_micros": 4,
                }
            ],
        }
    )
    await exercise_everything(db)
    assert {name for _, name, _ in db.ran} == set(NAMES.values())  # the whole table ran
    for tenant, name, params in db.ran:
        assert tenant == "acme" and params["tenant_id"] == "acme", name
    # a user's conversation work runs in a unit carrying that user (RLS reads it), and binds them
    conversation_work = {
        name
        for name in NAMES.values()
        if name not in {"insert_tenant", "select_user_policy", "upsert_user_policy", "insert_audit"}
        and ":user_id" in getattr(SQLITE.statements, name)
    }
    assert conversation_work >= {"select_conversation", "touch_conversation", "update_visibility"}
    for name in conversation_work:
        assert db.users[name] == {"alice"}, name
    for _, name, params in db.ran:
        if name in conversation_work:
            # an erased user's usage is added to the user "(erased)"'s (ADR 0050)
            erased_usage = name == "upsert_usage" and params["user_id"] == "(erased)"
            assert params["user_id"] == "alice" or erased_usage, name
    # the tenant admin's aggregate reads, and only they, carry the admin claim (RLS, ADR 0041)
    admin_work = {name for name, admins in db.admin.items() if True in admins}
    assert admin_work == {
        "select_tenant_users",
        "select_tenant_message_usage",
        "select_tenant_call_usage",
        "select_expired_conversations",  # the retention job finds any owner's (ADR 0048)
    }
    for name in admin_work:
        assert db.admin[name] == {True} and db.users[name] == {None}, name
    # every delete and every rewrite of the egress audit runs in an erasure's unit only (on
    # PostgreSQL the eraser role's: the app's own role may not delete, ADR 0048)
    erasing = {n for n in NAMES.values() if n.startswith(("delete_", "anonymise_"))}
    # with scenarios and conversations' links to them (issue 28: one more, a user's unlink of
    # their conversation's scenario) and summaries (ADR 0065), summary leases and pins (session 8)
    assert len(erasing) == 17
    for name in erasing:
        assert db.erasure[name] == {True}, name


async def test_the_sqlite_seq_query_ignored_the_tenant_and_a_turn_now_numbers_per_tenant():
    db = FakeDatabase(rows={"last_seq": [{"seq": 4}], "select_conversation": [conversation_row()]})
    await db.save_turn("acme", "c", turn(), ConversationContext(), user_id="alice")
    [(_, _, seq_params)] = [r for r in db.ran if r[1] == "last_seq"]
    assert seq_params == {"tenant_id": "acme", "conversation_id": "c", "user_id": "alice"}
    assert [p["seq"] for _, name, p in db.ran if name == "insert_message"] == [5, 6]


async def test_a_turn_merges_its_nodes_in_front_of_its_branch_and_commits_once():
    db = FakeDatabase(
        rows={
            "select_conversation": [{**conversation_row(), "active_leaf_id": "m0"}],
            "select_branch_context": [{"active_node_ids": '["A", "B"]'}],
        }
    )
    new = ConversationContext(active_node_ids=["B", "C"])
    await db.save_turn("acme", "c", turn(), new, max_active_nodes=2, user_id="alice")
    [context] = [p for _, name, p in db.ran if name == "select_branch_context"]
    assert context["message_id"] == "m0"  # the context of the branch the turn continues
    question, answer = [p for _, name, p in db.ran if name == "insert_message"]
    assert (question["parent_id"], answer["parent_id"]) == ("m0", question["id"])
    assert (question["context_node_ids"], answer["context_node_ids"]) == (None, '["B", "C"]')
    [leaf] = [p for _, name, p in db.ran if name == "update_active_leaf"]
    assert leaf["leaf_id"] == answer["id"]
    assert [u.committed for u in db.units] == [True]


async def test_a_turn_of_an_unknown_conversation_is_not_found_and_commits_nothing():
    db = FakeDatabase(rowcount=0)  # the ownership UPDATE matched no row
    with pytest.raises(NotFound):
        await db.save_turn("acme", "c", turn(), ConversationContext(), user_id="alice")
    assert [name for _, name, _ in db.ran] == ["touch_conversation"]
    assert [u.committed for u in db.units] == [False]


async def test_reads_never_commit_and_missing_rows_are_not_found():
    db = FakeDatabase()
    with pytest.raises(NotFound):
        await db.get_conversation("acme", "c", user_id="alice")
    with pytest.raises(NotFound):
        await db.load_context("acme", "c", user_id="alice")
    assert await db.recent_messages("acme", "c", 3, user_id="alice") == []
    assert await db.egress_adapters().vault.lookup("acme", "c") == {}
    assert not any(u.committed for u in db.units)


async def test_a_known_pseudonym_is_returned_without_writing():
    db = FakeDatabase(rows={"select_placeholder": [{"placeholder": "[PPSN_3]"}]})
    assert await db.egress_adapters().vault.get_or_assign("acme", "c", "PPSN", "x") == "[PPSN_3]"
    assert [name for _, name, _ in db.ran] == ["select_placeholder"]
    assert not db.units[0].committed


class FinishedAnswer(FakeDatabase):
    """The answer's row is no longer ``streaming``: the guarded updates change nothing."""

    @asynccontextmanager
    async def unit_of_work(self, tenant_id, user_id=None, *, admin=False, erasure=False):
        async def run(statement, params):
            name = NAMES[statement]
            self.ran.append((tenant_id, name, dict(params)))
            rows = [conversation_row()] if name == "select_conversation" else []
            return Result(0 if name.endswith("_message") else 1, rows)

        work = StatementUnitOfWork(run)
        self.units.append(work)
        yield work


async def test_a_finished_answer_is_neither_checkpointed_nor_finished_again():
    db = FinishedAnswer()
    assert not await db.checkpoint_answer("acme", "c", "m", "late", "late", user_id="alice")
    assert not await db.finish_answer(
        "acme", "c", "m", turn()[1], ConversationContext(), user_id="alice"
    )
    assert [name for _, name, _ in db.ran][-1] == "finish_message"
    assert [u.committed for u in db.units] == [True, False]  # the finish rolled back
