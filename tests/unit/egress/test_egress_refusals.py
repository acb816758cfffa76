"""Every path that refuses a call writes an audit record; ``report-only`` keeps the original
request only where a sink was configured (issue 14, egress completeness)."""

from __future__ import annotations

import pytest

from egress.audit import InMemoryAuditSink
from egress.client import EgressClient, EgressContext
from egress.originals import InMemoryOriginalRequestSink, JsonlOriginalRequestSink
from egress.policy import EgressMode, InMemoryPolicyStore, TenantPolicy
from egress.sanitiser import InMemoryPseudonymVault, Sanitiser
from egress.wire import ChatMessage, LlmRequest
from errors import EgressBlocked, InvalidInput
from tests.support.fakes import ScriptedProvider

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

TEXT = "I am Aoife Kavanagh, PPSN 1234567TW. Rent credit?"


def build(detector, tenant: TenantPolicy, originals=None):
    audit = InMemoryAuditSink()
    client = EgressClient(
        {"fake": ScriptedProvider(name="fake")},
        Sanitiser(detector, InMemoryPseudonymVault()),
        InMemoryPolicyStore({"t": tenant}),
        audit,
        originals=originals,
    )
    return client, audit


def request(provider: str = "fake") -> LlmRequest:
    return LlmRequest(
        provider=provider, model="m", messages=[ChatMessage(role="user", content=TEXT)]
    )


async def test_a_refused_off_asked_before_a_turn_is_audited(detector):
    client, audit = build(detector, TenantPolicy())
    ctx = EgressContext("t", "u", "", override_mode=EgressMode.OFF)
    with pytest.raises(EgressBlocked):
        await client.effective_mode(ctx, task="main_chat", provider="openai", model="gpt")
    [record] = audit.records
    assert record.blocked and record.effective_mode == "refused"
    assert (record.provider, record.model, record.requested_mode) == ("openai", "gpt", "off")


async def test_an_unknown_provider_is_audited_before_it_is_refused(detector):
    client, audit = build(detector, TenantPolicy())
    with pytest.raises(InvalidInput):
        [c async for c in client.stream(request("nowhere"), EgressContext("t", "u", "c"))]
    [record] = audit.records
    assert record.blocked and record.provider == "nowhere"


async def test_report_only_keeps_the_original_only_with_a_sink(detector, tmp_path):
    tenant = TenantPolicy(default_mode=EgressMode.REPORT_ONLY)
    client, _ = build(detector, tenant)  # the default: no sink, nothing kept anywhere
    [c async for c in client.stream(request(), EgressContext("t", "u", "c"))]

    kept = InMemoryOriginalRequestSink()
    client, _ = build(detector, tenant, kept)
    [c async for c in client.stream(request(), EgressContext("t", "u", "c"))]
    [(original, _ctx)] = kept.kept
    assert original.messages[0].content == TEXT

    enforce, _ = build(detector, TenantPolicy(), kept)
    [c async for c in enforce.stream(request(), EgressContext("t", "u", "c"))]
    assert len(kept.kept) == 1  # never in enforce

    path = tmp_path / "originals.jsonl"
    client, _ = build(detector, tenant, JsonlOriginalRequestSink(path))
    [c async for c in client.stream(request(), EgressContext("t", "u", "c"))]
    assert "1234567TW" in path.read_text() and oct(path.stat().st_mode)[-3:] == "600"
