"""Egress over the real conversation store: policies, pseudonym vault and audit, in SQLite and
in PostgreSQL (the ``conversation_backend`` fixture runs every test against both)."""

import asyncio

import pytest

from egress.client import EgressClient, EgressContext
from egress.pii import build_pii_detector
from egress.policy import EgressMode, TenantPolicy, UserPolicy
from egress.sanitiser import Sanitiser
from egress.wire import ChatMessage, Done, LlmRequest, Text
from errors import EgressBlocked

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

QUESTION = "I'm Mary Murphy, PPSN 1234567TW, phone 087 123 4567. Can I claim the rent credit?"


class EchoProvider:
    """Echoes the last user message back in 5-character chunks (splitting placeholders)."""

    name = "echo"

    def __init__(self):
        self.requests = []

    async def stream(self, request):
        self.requests.append(request)
        text = request.messages[-1].content
        for i in range(0, len(text), 5):
            yield Text(text[i : i + 5])
        yield Done()

    async def aclose(self):
        return None


@pytest.fixture
async def parts(conversation_backend):
    store = conversation_backend.open()
    await store.init()
    policies = conversation_backend.policies(store)
    audit = conversation_backend.audit(store)
    provider = EchoProvider()
    client = EgressClient(
        {"echo": provider},
        Sanitiser(build_pii_detector(), conversation_backend.vault(store)),
        policies,
        audit,
    )
    yield store, policies, audit, provider, client
    await store.aclose()


def request(provider="echo", model="m"):
    return LlmRequest(
        provider=provider, model=model, messages=[ChatMessage(role="user", content=QUESTION)]
    )


async def run(client, req, ctx):
    return "".join([c.delta async for c in client.stream(req, ctx) if isinstance(c, Text)])


@pytest.mark.parametrize("mode", ["enforce", "report-only"])
async def test_upstream_gets_pseudonyms_and_the_user_gets_the_values_back(parts, mode):
    _, policies, audit, provider, client = parts
    await policies.set_tenant_policy("acme", TenantPolicy(default_mode=EgressMode(mode)))
    ctx = EgressContext("acme", "alice", "conv-1")
    shown = await run(client, request(), ctx)
    sent = provider.requests[-1].messages[-1].content
    assert "1234567TW" not in sent and "Mary Murphy" not in sent and "087 123 4567" not in sent
    assert "[PPSN_1]" in sent and "[PERSON_1]" in sent and "[PHONE_NUMBER_1]" in sent
    assert shown == QUESTION
    [record] = await audit.recent("acme")
    assert record.effective_mode == mode and record.counts["PPSN"] == 1
    assert "1234567TW" not in record.model_dump_json()


async def test_pseudonyms_are_stable_per_conversation_and_persisted(parts, conversation_backend):
    _, _, _, provider, client = parts
    ctx = EgressContext("acme", "alice", "conv-1")
    await run(client, request(), ctx)
    await run(client, request(), ctx)
    first, second = (r.messages[-1].content for r in provider.requests)
    assert first == second
    reopened = conversation_backend.open()
    await reopened.init()
    vault = conversation_backend.vault(reopened)
    assert (await vault.lookup("acme", "conv-1"))["[PPSN_1]"] == "1234567TW"
    assert await vault.lookup("globex", "conv-1") == {}  # never across tenants
    await reopened.aclose()


async def test_concurrent_assignment_gives_one_placeholder_per_value(parts, conversation_backend):
    store, *_ = parts
    vault = conversation_backend.vault(store)
    got = await asyncio.gather(
        *[
            vault.get_or_assign("acme", "c", "PERSON", "Mary Murphy" if i % 2 else "John Kelly")
            for i in range(20)
        ]
    )
    assert set(got) == {"[PERSON_1]", "[PERSON_2]"}


async def test_concurrent_assignment_numbers_distinct_values_without_gaps(
    parts, conversation_backend
):
    store, *_ = parts
    vault = conversation_backend.vault(store)
    values = [f"Person {i % 7}" for i in range(28)]
    got = await asyncio.gather(*[vault.get_or_assign("acme", "c", "PERSON", v) for v in values])
    by_value: dict[str, str] = {}
    for value, placeholder in zip(values, got, strict=True):
        assert by_value.setdefault(value, placeholder) == placeholder  # one per value
    assert sorted(by_value.values()) == sorted(f"[PERSON_{n}]" for n in range(1, 8))
    assert await vault.get_or_assign("acme", "c", "PPSN", "1234567TW") == "[PPSN_1]"
    assert await vault.get_or_assign("acme", "other", "PERSON", "Person 9") == "[PERSON_1]"
    assert await vault.lookup("acme", "c") == {p: v for v, p in by_value.items()} | {
        "[PPSN_1]": "1234567TW"
    }


async def test_enforce_blocks_a_provider_outside_the_allow_list_and_sends_nothing(parts):
    _, policies, audit, provider, client = parts
    await policies.set_tenant_policy("acme", TenantPolicy(allowed_providers=frozenset({"openai"})))
    with pytest.raises(EgressBlocked):
        await run(client, request(), EgressContext("acme", "alice", "c"))
    assert provider.requests == []
    [record] = await audit.recent("acme")
    assert record.blocked and record.violations == ["provider_not_allowed:echo"]


async def test_report_only_records_the_violation_and_sends(parts):
    _, policies, audit, provider, client = parts
    await policies.set_tenant_policy(
        "acme",
        TenantPolicy(default_mode=EgressMode.REPORT_ONLY, allowed_providers=frozenset({"openai"})),
    )
    await run(client, request(), EgressContext("acme", "alice", "c"))
    assert len(provider.requests) == 1
    [record] = await audit.recent("acme")
    assert not record.blocked and record.violations == ["provider_not_allowed:echo"]


async def test_a_user_relaxing_the_mode_cannot_escape_the_tenants_allow_list(parts):
    _, policies, _, provider, client = parts
    await policies.set_tenant_policy("acme", TenantPolicy(
        default_mode=EgressMode.ENFORCE, allow_off_mode=True,
        allowed_providers=frozenset({"openai"})))  # fmt: skip
    for relaxed in (EgressMode.REPORT_ONLY, EgressMode.OFF):
        ctx = EgressContext("acme", "alice", "c", override_mode=relaxed)
        assert await client.effective_mode(ctx) is relaxed
        with pytest.raises(EgressBlocked):
            await run(client, request(), ctx)
    assert provider.requests == []


async def test_off_needs_the_tenants_permission(parts):
    _, policies, _, provider, client = parts
    ctx = EgressContext("acme", "alice", "c", override_mode=EgressMode.OFF)
    with pytest.raises(EgressBlocked):
        await run(client, request(), ctx)
    await policies.set_tenant_policy("acme", TenantPolicy(allow_off_mode=True))
    await run(client, request(), ctx)
    assert provider.requests[-1].messages[-1].content == QUESTION  # unchanged


async def test_a_user_policy_can_tighten_but_not_loosen(parts):
    _, policies, _, _, client = parts
    await policies.set_tenant_policy("acme", TenantPolicy(default_mode=EgressMode.REPORT_ONLY))
    await policies.set_user_policy("acme", "alice", UserPolicy(mode=EgressMode.ENFORCE))
    assert await client.effective_mode(EgressContext("acme", "alice", "c")) is EgressMode.ENFORCE
    await policies.set_user_policy("acme", "bob", UserPolicy(mode=EgressMode.OFF))
    with pytest.raises(EgressBlocked):
        await client.effective_mode(EgressContext("acme", "bob", "c"))
