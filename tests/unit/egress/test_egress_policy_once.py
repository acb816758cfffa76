"""A turn reads its caller's egress policies once (ADR 0029, second pass): ``bind_policy``
reads them, every call made with the bound context resolves its mode from them without
reading again, and the rules of ``egress.policy`` still hold for a bound context."""

from __future__ import annotations

from dataclasses import replace

import pytest

from egress.audit import InMemoryAuditSink
from egress.client import EgressClient, EgressContext
from egress.pii import PiiDetector
from egress.policy import (
    CallerPolicies,
    EgressMode,
    InMemoryPolicyStore,
    TenantPolicy,
    UserPolicy,
)
from egress.sanitiser import InMemoryPseudonymVault, Sanitiser
from egress.wire import ChatMessage, LlmRequest
from errors import EgressBlocked
from tests.support.fakes import ScriptedProvider

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


class CountingPolicyStore(InMemoryPolicyStore):
    """The in-memory store, counting every read."""

    def __init__(self, tenant: TenantPolicy, user: UserPolicy | None = None) -> None:
        super().__init__({"t": tenant}, {("t", "u"): user or UserPolicy()})
        self.reads = 0

    async def tenant_policy(self, tenant_id: str) -> TenantPolicy:
        self.reads += 1
        return await super().tenant_policy(tenant_id)

    async def user_policy(self, tenant_id: str, user_id: str) -> UserPolicy:
        self.reads += 1
        return await super().user_policy(tenant_id, user_id)

    async def caller_policies(self, tenant_id: str, user_id: str) -> CallerPolicies:
        self.reads += 1
        tenant = await InMemoryPolicyStore.tenant_policy(self, tenant_id)
        return CallerPolicies(
            tenant, await InMemoryPolicyStore.user_policy(self, tenant_id, user_id)
        )


def build(
    detector: PiiDetector, policies: CountingPolicyStore
) -> tuple[EgressClient, InMemoryAuditSink, ScriptedProvider]:
    audit = InMemoryAuditSink()
    provider = ScriptedProvider(name="fake")
    sanitiser = Sanitiser(detector, InMemoryPseudonymVault())
    return EgressClient({"fake": provider}, sanitiser, policies, audit), audit, provider


def request(model: str = "m") -> LlmRequest:
    return LlmRequest(
        provider="fake", model=model, messages=[ChatMessage(role="user", content="VAT rate?")]
    )


async def test_a_turn_reads_its_policies_once_however_many_calls_it_makes(
    detector: PiiDetector,
) -> None:
    policies = CountingPolicyStore(TenantPolicy(default_mode=EgressMode.ENFORCE))
    client, audit, provider = build(detector, policies)
    ctx = await client.bind_policy(EgressContext("t", "u", ""), provider="fake", model="m")
    ctx = replace(ctx, conversation_id="c")  # the conversation is known after the mode
    assert await client.effective_mode(ctx) is EgressMode.ENFORCE
    for _ in range(2):  # the answer and, say, a capture repair
        [c async for c in client.stream(request(), ctx)]
    assert policies.reads == 1
    assert len(provider.requests) == 2 and len(audit.records) == 2


async def test_an_unbound_context_reads_them_once_per_call(detector: PiiDetector) -> None:
    policies = CountingPolicyStore(TenantPolicy())
    client, _, _ = build(detector, policies)
    [c async for c in client.stream(request(), EgressContext("t", "u", "c"))]
    assert policies.reads == 1  # tenant and user together (it was three reads)


async def test_a_refused_off_is_audited_when_the_policy_is_bound(detector: PiiDetector) -> None:
    policies = CountingPolicyStore(TenantPolicy())
    client, audit, _ = build(detector, policies)
    ctx = EgressContext("t", "u", "", override_mode=EgressMode.OFF)
    with pytest.raises(EgressBlocked):
        await client.bind_policy(ctx, provider="fake", model="m")
    [record] = audit.records
    assert record.blocked and record.effective_mode == "refused"
    assert (record.provider, record.requested_mode) == ("fake", "off")


async def test_a_bound_context_still_applies_each_calls_override(detector: PiiDetector) -> None:
    """The override of the context a call is made with decides, tightening only."""
    tenant = TenantPolicy(default_mode=EgressMode.REPORT_ONLY)
    policies = CountingPolicyStore(tenant, UserPolicy(mode=EgressMode.REPORT_ONLY))
    client, audit, _ = build(detector, policies)
    bound = await client.bind_policy(EgressContext("t", "u", "c"), provider="fake", model="m")
    assert await client.effective_mode(bound) is EgressMode.REPORT_ONLY
    stricter = replace(bound, override_mode=EgressMode.ENFORCE)
    assert await client.effective_mode(stricter) is EgressMode.ENFORCE
    with pytest.raises(EgressBlocked):  # looser than the floor, no allow_off_mode: refused
        await client.effective_mode(replace(bound, override_mode=EgressMode.OFF))
    assert audit.records[-1].effective_mode == "refused"
    assert policies.reads == 1


async def test_a_bound_allow_list_blocks_under_enforce(detector: PiiDetector) -> None:
    tenant = TenantPolicy(default_mode=EgressMode.ENFORCE, allowed_models=frozenset({"ok"}))
    policies = CountingPolicyStore(tenant)
    client, audit, provider = build(detector, policies)
    ctx = await client.bind_policy(EgressContext("t", "u", "c"), provider="fake", model="m")
    with pytest.raises(EgressBlocked):
        [c async for c in client.stream(request("m"), ctx)]
    assert audit.records[-1].blocked and provider.requests == []
    assert policies.reads == 1
