"""What only the PostgreSQL egress ports have: row-level security on the vault, the policies and
the audit trail, and an audit trail the app can only append to.

The behaviours shared with SQLite run against both adapters in ``test_egress_sqlite.py``.
"""

import pytest
from psycopg import errors as pg_errors

from conversations.postgres import APP_ROLE, PostgresConversationStore
from egress.audit import EgressAuditRecord
from egress.policy import EgressMode, TenantPolicy, UserPolicy
from tests.support.postgres import as_app_role

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def store(postgres_dsn):
    store = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE)
    await store.init()
    yield store
    await store.aclose()


def audit_record(tenant_id):
    return EgressAuditRecord(
        tenant_id=tenant_id, user_id="alice", conversation_id="c", task="chat", provider="echo",
        model="m", requested_mode=None, effective_mode="enforce", counts={"PPSN": 1},
        violations=["provider_not_allowed:echo"], blocked=True, reason="not allowed",
    )  # fmt: skip


async def test_rls_keeps_each_tenants_egress_rows_to_itself(store, postgres_dsn):
    egress = store.egress_adapters()
    await egress.vault.get_or_assign("acme", "c", "PPSN", "1234567TW")
    await egress.policies.set_tenant_policy(
        "acme", TenantPolicy(default_mode=EgressMode.REPORT_ONLY, allow_off_mode=True)
    )
    await egress.policies.set_user_policy("acme", "alice", UserPolicy(mode="off"))
    await egress.audit.record(audit_record("acme"))
    for table in ("pseudonyms", "tenant_policies", "user_policies", "egress_audit"):
        query = f"SELECT * FROM regintel.{table}"  # no tenant filter: the policy alone
        assert await as_app_role(postgres_dsn, "globex", query) == [], table
        assert len(await as_app_role(postgres_dsn, "acme", query)) == 1, table
    assert await egress.audit.recent("globex") == []
    assert await egress.policies.tenant_policy("globex") == TenantPolicy()


async def test_an_audit_record_round_trips_with_native_types(store, postgres_dsn):
    entry = audit_record("acme")
    audit = store.egress_adapters().audit
    await audit.record(entry)
    assert await audit.recent("acme") == [entry]
    [(counts, violations, blocked)] = await as_app_role(
        postgres_dsn, "acme", "SELECT counts, violations, blocked FROM regintel.egress_audit"
    )
    assert (counts, violations, blocked) == ({"PPSN": 1}, ["provider_not_allowed:echo"], True)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE regintel.egress_audit SET blocked = false",
        "DELETE FROM regintel.egress_audit",
        "UPDATE regintel.pseudonyms SET value = 'x'",
        "DELETE FROM regintel.messages",
    ],
)
async def test_the_audit_trail_vault_and_messages_are_append_only_for_the_app(
    store, postgres_dsn, statement
):
    await store.egress_adapters().audit.record(audit_record("acme"))
    with pytest.raises(pg_errors.InsufficientPrivilege):
        await as_app_role(postgres_dsn, "acme", statement)
