from __future__ import annotations

import pytest

from egress.audit import InMemoryAuditSink
from egress.client import EgressClient, EgressContext
from egress.pii import PiiDetector
from egress.policy import EgressMode, InMemoryPolicyStore, TenantPolicy, UserPolicy
from egress.sanitiser import InMemoryPseudonymVault, Sanitiser
from egress.wire import ChatMessage, Done, LlmRequest, StreamChunk, Text, Tool
from errors import EgressBlocked
from tests.support.fakes import ScriptedProvider

E, R, OFF = EgressMode.ENFORCE, EgressMode.REPORT_ONLY, EgressMode.OFF
USER_TEXT = "I am Aoife Kavanagh, PPSN 1234567TW, can I claim the rent credit?"
SANITISED = "I am [PERSON_1], PPSN [PPSN_1], can I claim the rent credit?"


def build(policies: InMemoryPolicyStore, provider: ScriptedProvider, detector: PiiDetector):
    audit = InMemoryAuditSink()
    vault = InMemoryPseudonymVault()
    client = EgressClient({provider.name: provider}, Sanitiser(detector, vault), policies, audit)
    return client, audit


def request(provider: str = "fake", model: str = "m1") -> LlmRequest:
    return LlmRequest(
        provider=provider,
        model=model,
        messages=[
            ChatMessage(role="system", content="Research only. Cite node ids."),
            ChatMessage(role="user", content=USER_TEXT),
        ],
    )


async def collect(client: EgressClient, req: LlmRequest, ctx: EgressContext) -> list[StreamChunk]:
    return [chunk async for chunk in client.stream(req, ctx)]


@pytest.mark.unit
@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tenant", "user", "override", "sent_as"),
    [
        (TenantPolicy(), UserPolicy(), None, SANITISED),  # global default: enforce
        (TenantPolicy(default_mode=R), UserPolicy(), None, SANITISED),
        (TenantPolicy(default_mode=R), UserPolicy(mode=E), None, SANITISED),
        (TenantPolicy(allow_off_mode=True), UserPolicy(mode=OFF), None, USER_TEXT),
        (TenantPolicy(allow_off_mode=True), UserPolicy(), OFF, USER_TEXT),
        (TenantPolicy(default_mode=OFF, allow_off_mode=True), UserPolicy(), None, USER_TEXT),
        (TenantPolicy(default_mode=OFF, allow_off_mode=True), UserPolicy(mode=R), None, SANITISED),
        (TenantPolicy(default_mode=OFF, allow_off_mode=True), UserPolicy(), E, SANITISED),
    ],
)
async def test_mode_matrix_what_goes_upstream(detector, tenant, user, override, sent_as) -> None:
    provider = ScriptedProvider(name="fake")
    policies = InMemoryPolicyStore({"t": tenant}, {("t", "u"): user})
    client, audit = build(policies, provider, detector)
    await collect(client, request(), EgressContext("t", "u", "c", override_mode=override))
    assert provider.requests[0].messages[1].content == sent_as
    assert len(audit.records) == 1


@pytest.mark.unit
@pytest.mark.anyio
@pytest.mark.parametrize(("user", "override"), [(UserPolicy(mode=OFF), None), (UserPolicy(), OFF)])
async def test_off_refused_without_allow_off_mode(detector, user, override) -> None:
    provider = ScriptedProvider(name="fake")
    policies = InMemoryPolicyStore({"t": TenantPolicy(default_mode=R)}, {("t", "u"): user})
    client, audit = build(policies, provider, detector)
    with pytest.raises(EgressBlocked):
        await collect(client, request(), EgressContext("t", "u", "c", override_mode=override))
    assert provider.requests == []
    assert audit.records[0].blocked


@pytest.mark.unit
@pytest.mark.anyio
async def test_enforce_blocks_provider_outside_allow_list_before_sending(detector) -> None:
    provider = ScriptedProvider(name="fake")
    tenant = TenantPolicy(default_mode=E, allowed_providers=frozenset({"openai"}))
    client, audit = build(InMemoryPolicyStore({"t": tenant}), provider, detector)
    with pytest.raises(EgressBlocked) as info:
        await collect(client, request(), EgressContext("t", "u", "c"))
    assert info.value.code == "egress_blocked"
    assert provider.requests == []
    record = audit.records[0]
    assert record.blocked and record.violations == ["provider_not_allowed:fake"]


@pytest.mark.unit
@pytest.mark.anyio
async def test_enforce_blocks_model_outside_allow_list(detector) -> None:
    provider = ScriptedProvider(name="fake")
    tenant = TenantPolicy(allowed_models=frozenset({"m2"}))
    client, _ = build(InMemoryPolicyStore({"t": tenant}), provider, detector)
    with pytest.raises(EgressBlocked):
        await collect(client, request(model="m1"), EgressContext("t", "u", "c"))
    assert provider.requests == []


@pytest.mark.unit
@pytest.mark.anyio
async def test_report_only_records_violation_never_blocks_and_sends_sanitised(detector) -> None:
    provider = ScriptedProvider(name="fake")
    tenant = TenantPolicy(default_mode=R, allowed_providers=frozenset({"openai"}))
    client, audit = build(InMemoryPolicyStore({"t": tenant}), provider, detector)
    await collect(client, request(), EgressContext("t", "u", "c"))
    sent = provider.requests[0]
    assert sent == request().model_copy(
        update={
            "messages": [
                request().messages[0].model_copy(update={"sanitised": True}),
                ChatMessage(role="user", content=SANITISED, sanitised=True),
            ]
        }
    )
    record = audit.records[0]
    assert not record.blocked
    assert record.violations == ["provider_not_allowed:fake"]
    assert record.effective_mode == "report-only"
    assert record.counts == {"PERSON": 1, "PPSN": 1}


@pytest.mark.unit
@pytest.mark.anyio
async def test_audit_record_never_holds_the_payload(detector) -> None:
    provider = ScriptedProvider(name="fake")
    client, audit = build(InMemoryPolicyStore(), provider, detector)
    await collect(client, request(), EgressContext("t", "u", "c"))
    dumped = audit.records[0].model_dump_json()
    assert "1234567TW" not in dumped and "Aoife" not in dumped and "rent credit" not in dumped
    assert audit.records[0].task == "main_chat" and audit.records[0].model == "m1"


@pytest.mark.unit
@pytest.mark.anyio
async def test_reply_restores_placeholders_split_across_chunks(detector) -> None:
    chunks: list[StreamChunk] = [
        Text("Hello [PER"),
        Text("SON_1], your [PP"),
        Text("SN_1"),
        Text("] is"),
        Tool("capture_concepts", {"concepts": [{"prefLabel": "[PERSON_1]"}]}),
        Text(" noted [PERSON"),
        Done(),
    ]
    provider = ScriptedProvider(script=chunks, name="fake")
    client, _ = build(InMemoryPolicyStore(), provider, detector)
    out = await collect(client, request(), EgressContext("t", "u", "c"))
    text = "".join(c.delta for c in out if isinstance(c, Text))
    assert text == "Hello Aoife Kavanagh, your 1234567TW is noted [PERSON"
    tool = next(c for c in out if isinstance(c, Tool))
    assert tool.args == {"concepts": [{"prefLabel": "[PERSON_1]"}]}  # graph never sees PII
    assert isinstance(out[-1], Done)


@pytest.mark.unit
@pytest.mark.anyio
async def test_messages_marked_sanitised_are_not_scanned_again(detector) -> None:
    class CountingDetector:
        def __init__(self) -> None:
            self.texts: list[str] = []

        def detect(self, text: str):
            self.texts.append(text)
            return detector.detect(text)

    counting = CountingDetector()
    provider = ScriptedProvider(name="fake")
    vault = InMemoryPseudonymVault()
    client = EgressClient(
        {"fake": provider},
        Sanitiser(counting, vault),  # type: ignore[arg-type]
        InMemoryPolicyStore(),
        InMemoryAuditSink(),
    )
    ctx = EgressContext("t", "u", "c")
    stored = await client.sanitise_message(ctx, USER_TEXT)
    assert stored.text == SANITISED
    counting.texts.clear()
    req = LlmRequest(
        provider="fake",
        model="m",
        messages=[
            stored.as_message("user"),
            ChatMessage(role="user", content="And for Aoife Kavanagh's partner?"),
        ],
    )
    await collect(client, req, EgressContext("t", "u", "c"))
    assert counting.texts == ["And for Aoife Kavanagh's partner?"]
    assert provider.requests[0].messages[1].content == "And for [PERSON_1]'s partner?"
