"""The token usage ledger (``conversations.port.UsageLedger``, ADR 0050) on SQLite and on
PostgreSQL as ``regintel_app`` with row-level security: turns add up per user, day, provider and
model; a user reads their own, the tenant its totals and top users; another tenant's never; an
erased user's usage stays in the tenant's totals without their id (ADR 0048)."""

from datetime import date
from typing import Any

import pytest

from conversations.models import UsageEntry
from conversations.port import UsageLedger
from tests.support.postgres import as_app_role

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

DAY = date(2026, 11, 27)
EARLIER = date(2026, 10, 31)


@pytest.fixture
async def store(conversation_backend: Any) -> Any:
    store = conversation_backend.open()
    await store.init()
    yield store
    await store.aclose()


def entry(model: str, tokens: int, cost: int, day: date = DAY) -> UsageEntry:
    return UsageEntry(
        day=day, provider="openai", model=model, input_tokens=tokens, output_tokens=tokens // 2,
        cost_micros=cost,
    )  # fmt: skip


async def test_turns_add_up_per_user_day_and_model(store: Any) -> None:
    ledger: UsageLedger = store
    await ledger.record_usage("acme", "alice", entry("gpt-4o-mini", 100, 30))
    await ledger.record_usage("acme", "alice", entry("gpt-4o-mini", 200, 60))
    await ledger.record_usage("acme", "alice", entry("gpt-4o", 10, 500))
    await ledger.record_usage("acme", "alice", entry("gpt-4o", 10, 500, day=EARLIER))
    await ledger.record_usage("acme", "bob", entry("gpt-4o-mini", 1000, 300))
    await ledger.record_usage("globex", "gina", entry("gpt-4o", 5000, 9000))

    mine = await ledger.usage_by_model("acme", DAY, user_id="alice")
    assert [(u.model, u.turns, u.input_tokens, u.output_tokens, u.cost_micros) for u in mine] == [
        ("gpt-4o", 1, 10, 5, 500), ("gpt-4o-mini", 2, 300, 150, 90),
    ]  # fmt: skip
    month = await ledger.usage_by_model("acme", EARLIER, user_id="alice")
    assert sum(u.turns for u in month) == 4
    tenant = await ledger.usage_by_model("acme", DAY)
    assert [(u.model, u.turns, u.cost_micros) for u in tenant] == [
        ("gpt-4o", 1, 500), ("gpt-4o-mini", 3, 390)
    ]  # fmt: skip
    top = await ledger.usage_by_user("acme", DAY)
    assert [(u.user_id, u.cost_micros) for u in top] == [("alice", 590), ("bob", 300)]
    assert [u.user_id for u in await ledger.usage_by_user("acme", DAY, limit=1)] == ["alice"]
    assert [u.user_id for u in await ledger.usage_by_user("globex", DAY)] == ["gina"]


async def test_an_erased_users_usage_stays_in_the_totals_without_their_id(store: Any) -> None:
    ledger: UsageLedger = store
    await store.create_conversation("acme", "bob")
    await ledger.record_usage("acme", "bob", entry("gpt-4o-mini", 100, 30))
    await ledger.record_usage("acme", "carl", entry("gpt-4o-mini", 100, 30))
    await store.create_conversation("acme", "carl")
    await store.erase_conversations("acme", user_id="bob", requested_by="ann", kind="user")
    await store.erase_conversations("acme", user_id="carl", requested_by="ann", kind="user")
    top = await ledger.usage_by_user("acme", DAY)
    assert [(u.user_id, u.turns, u.cost_micros) for u in top] == [("(erased)", 2, 60)]
    assert await ledger.usage_by_model("acme", DAY, user_id="bob") == []
    assert sum(u.turns for u in await ledger.usage_by_model("acme", DAY)) == 2


@pytest.mark.parametrize("conversation_backend", ["postgres"], indirect=True)
async def test_rls_keeps_usage_to_its_tenant(store: Any, postgres_dsn: str) -> None:
    await store.record_usage("acme", "alice", entry("gpt-4o-mini", 100, 30))
    query = "SELECT count(*) FROM regintel.usage_daily"
    assert await as_app_role(postgres_dsn, "acme", query, user_id="alice") == [(1,)]
    assert await as_app_role(postgres_dsn, "globex", query, user_id="gina") == [(0,)]
    assert await as_app_role(postgres_dsn, None, query) == [(0,)]
