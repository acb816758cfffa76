"""A conversation linked to one of the user's stored scenarios (issue 28, ADR 0063 second
addendum), on SQLite and on PostgreSQL under row-level security: the link is the owner's own
(another user's or tenant's scenario is ``NotFound`` and nothing is linked), a what-if in the
linked conversation evaluates the scenario's latest snapshot, and the link goes with the
conversation's erasure and the user's."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from psycopg import errors as pg_errors

from conversations.postgres import APP_ROLE, PostgresConversationStore
from engine.turn.what_if import WhatIfStep
from errors import NotFound
from scenarios.chat import CHAT_SCENARIO_PREFIX
from scenarios.models import Facts, Snapshot
from tests.integration.test_what_if_step import SeedNodes
from tests.support.postgres import as_app_role

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def store(conversation_backend):
    store = conversation_backend.open()
    await store.init()
    yield store
    await store.aclose()


def _body(*incomes: tuple[str, date, int]) -> str:
    snapshots = [
        Snapshot(
            label=label,
            as_at=as_at,
            facts=Facts(tax_year=2025, jurisdiction="IE", paye_income=Decimal(income)),
        ).model_dump_json()
        for label, as_at, income in incomes
    ]
    return "[" + ",".join(snapshots) + "]"


async def test_the_link_is_the_owners_own_and_goes_with_erasure(store) -> None:
    scenarios = store.scenario_store()
    mine = await scenarios.create_scenario(
        "acme", "alice", "Plan", _body(("a", date(2025, 12, 31), 1))
    )
    other = await scenarios.create_scenario(
        "acme", "alice", "Other", _body(("b", date(2025, 12, 31), 2))
    )
    bobs = await scenarios.create_scenario(
        "acme", "bob", "Bob's", _body(("c", date(2025, 12, 31), 3))
    )
    theirs = await scenarios.create_scenario(
        "globex", "alice", "G", _body(("d", date(2025, 12, 31), 4))
    )
    conversation = (await store.create_conversation("acme", "alice")).id
    assert await scenarios.linked_scenario("acme", conversation, user_id="alice") is None

    linked = await scenarios.link_conversation("acme", conversation, mine.id, user_id="alice")
    assert linked.id == mine.id
    found = await scenarios.linked_scenario("acme", conversation, user_id="alice")
    assert found is not None and (found.id, found.label) == (mine.id, "Plan")

    # another user's scenario in the tenant, another tenant's, an unknown id: never linked
    for scenario_id in (bobs.id, theirs.id, "no-such-scenario"):
        with pytest.raises(NotFound):
            await scenarios.link_conversation("acme", conversation, scenario_id, user_id="alice")
    found = await scenarios.linked_scenario("acme", conversation, user_id="alice")
    assert found is not None and found.id == mine.id
    # another user, or the same user id in another tenant, sees no link through this one
    assert await scenarios.linked_scenario("acme", conversation, user_id="bob") is None
    assert await scenarios.linked_scenario("globex", conversation, user_id="alice") is None

    await scenarios.link_conversation("acme", conversation, other.id, user_id="alice")
    found = await scenarios.linked_scenario("acme", conversation, user_id="alice")
    assert found is not None and found.id == other.id  # a new link replaces the old

    await scenarios.delete_scenario("acme", other.id, user_id="alice")
    assert await scenarios.linked_scenario("acme", conversation, user_id="alice") is None

    await scenarios.link_conversation("acme", conversation, mine.id, user_id="alice")
    await store.erase_conversation("acme", conversation, user_id="alice", requested_by="alice")
    # the scenario stays (it is the user's, not the conversation's); the link does not
    assert (await scenarios.get_scenario("acme", mine.id, user_id="alice")).id == mine.id
    assert await scenarios.linked_scenario("acme", conversation, user_id="alice") is None

    kept = (await store.create_conversation("acme", "alice")).id
    await scenarios.link_conversation("acme", kept, mine.id, user_id="alice")
    await store.erase_conversations("acme", user_id="alice", requested_by="ann", kind="user")
    assert await scenarios.linked_scenario("acme", kept, user_id="alice") is None


async def test_a_what_if_in_a_linked_conversation_evaluates_the_latest_snapshot(store) -> None:
    scenarios = store.scenario_store()
    body = _body(("Now", date(2025, 12, 31), 50000), ("Earlier", date(2025, 3, 31), 30000))
    mine = await scenarios.create_scenario("acme", "alice", "Salary", body)
    bobs = await scenarios.create_scenario("acme", "bob", "Bob's", body)
    conversation = (await store.create_conversation("acme", "alice")).id
    step = WhatIfStep(scenarios, SeedNodes())
    with pytest.raises(NotFound):
        await step.check_link("acme", "alice", bobs.id)
    with pytest.raises(NotFound):
        await step.check_link("globex", "alice", mine.id)
    await step.check_link("acme", "alice", mine.id)

    plain = await step.run("acme", "alice", conversation, "What is PRSI?", [], link=mine.id)
    assert plain is None  # no what-if, but the link is kept for later turns
    outcome = await step.run("acme", "alice", conversation, "what if I earned €60,000 instead?", [])
    assert outcome is not None and (result := outcome.result) is not None
    assert outcome.scenario_id == mine.id and result.base is not None
    assert (result.base["label"], result.base["snapshot"]) == ("Salary", "Now")
    assert [Decimal(f["paye_income"]) for f in result.facts] == [50000, 60000]
    assert result.comparison is not None and result.node_ids
    # the stored scenario is read, never rewritten, and no chat scenario is made beside it
    assert (await scenarios.get_scenario("acme", mine.id, user_id="alice")).body == body
    labels = [s.label for s in await scenarios.list_scenarios("acme", "alice")]
    assert not any(label.startswith(CHAT_SCENARIO_PREFIX) for label in labels)


async def test_postgres_rls_alone_keeps_a_link_its_owners(postgres_dsn) -> None:
    """Without the adapter's WHERE: the link rows another user or tenant can see or write."""
    store = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE)
    await store.init()
    try:
        scenarios = store.scenario_store()
        body = _body(("Now", date(2025, 12, 31), 50000))
        mine = await scenarios.create_scenario("acme", "alice", "Plan", body)
        conversation = (await store.create_conversation("acme", "alice")).id
        await scenarios.link_conversation("acme", conversation, mine.id, user_id="alice")
    finally:
        await store.aclose()
    everything = "SELECT scenario_id FROM regintel.conversation_scenarios"
    assert await as_app_role(postgres_dsn, "acme", everything, user_id="alice") == [(mine.id,)]
    assert await as_app_role(postgres_dsn, "acme", everything, user_id="bob") == []
    assert await as_app_role(postgres_dsn, "globex", everything, user_id="alice") == []
    with pytest.raises(pg_errors.InsufficientPrivilege, match="row-level security"):
        await as_app_role(
            postgres_dsn,
            "acme",
            "INSERT INTO regintel.conversation_scenarios (tenant_id, conversation_id, user_id,"
            " scenario_id, linked_at) VALUES ('acme', %s, 'alice', %s, now())",
            (conversation, mine.id),
            user_id="bob",
        )


async def test_a_link_is_removed_by_its_owner_only(store) -> None:
    scenarios = store.scenario_store()
    mine = await scenarios.create_scenario(
        "acme", "alice", "Plan", _body(("a", date(2025, 12, 31), 1))
    )
    conversation = (await store.create_conversation("acme", "alice")).id
    assert await scenarios.unlink_conversation("acme", conversation, user_id="alice") is False
    await scenarios.link_conversation("acme", conversation, mine.id, user_id="alice")
    # another user of the tenant, or the same user id in another tenant, removes nothing
    assert await scenarios.unlink_conversation("acme", conversation, user_id="bob") is False
    assert await scenarios.unlink_conversation("globex", conversation, user_id="alice") is False
    assert await scenarios.linked_scenario("acme", conversation, user_id="alice") is not None
    assert await scenarios.unlink_conversation("acme", conversation, user_id="alice") is True
    assert await scenarios.linked_scenario("acme", conversation, user_id="alice") is None
    # the scenario stays, and can be linked again
    assert (await scenarios.get_scenario("acme", mine.id, user_id="alice")).id == mine.id
    await scenarios.link_conversation("acme", conversation, mine.id, user_id="alice")
    assert await scenarios.linked_scenario("acme", conversation, user_id="alice") is not None
