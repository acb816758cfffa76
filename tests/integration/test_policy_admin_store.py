"""The policy store as operators use it (``conversations.port.PolicyAdmin``): a tenant's user
policies listed, in SQLite and in PostgreSQL (as ``regintel_app``, row-level security on)."""

import pytest

from conversations.port import PolicyAdmin
from egress.policy import EgressMode, TenantPolicy, UserPolicy

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def policies(conversation_backend):
    store = conversation_backend.open()
    await store.init()
    admin: PolicyAdmin = store.egress_adapters().policies
    yield admin
    await store.aclose()


async def test_a_tenants_user_policies_are_listed_in_id_order_and_only_its_own(policies):
    assert await policies.user_policies("acme") == {}
    await policies.set_user_policy("acme", "bob", UserPolicy(mode=EgressMode.REPORT_ONLY))
    await policies.set_user_policy("acme", "alice", UserPolicy(mode=EgressMode.OFF))
    await policies.set_user_policy("acme", "carl", UserPolicy())  # cleared: still listed
    await policies.set_user_policy("globex", "alice", UserPolicy(mode=EgressMode.ENFORCE))
    await policies.set_tenant_policy("globex", TenantPolicy(default_mode=EgressMode.OFF))

    listed = await policies.user_policies("acme")
    assert list(listed) == ["alice", "bob", "carl"]
    assert listed == {
        "alice": UserPolicy(mode=EgressMode.OFF),
        "bob": UserPolicy(mode=EgressMode.REPORT_ONLY),
        "carl": UserPolicy(),
    }
    assert await policies.user_policies("globex") == {"alice": UserPolicy(mode=EgressMode.ENFORCE)}
    assert await policies.user_policies("initech") == {}
    assert list(await policies.user_policies("acme", limit=2)) == ["alice", "bob"]
    assert await policies.tenant_policy("acme") == TenantPolicy()
