"""End to end, protocol by protocol: our API over HTTP -> engine -> router -> egress -> the
real SDK -> the stand-in model over real HTTP. The must-shows of issue 14, for the OpenAI
Responses, OpenAI chat-completions and Anthropic Messages providers; the extractive provider
is the fallback. Nothing leaves this machine."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from conversations.sql_egress import SqlAuditSink, SqlPolicyStore
from conversations.sqlite import SqliteConversationStore
from egress.audit import EgressAuditRecord
from egress.policy import TenantPolicy
from tests.support.server import SseEvent, running_server, sse_events
from tests.support.standin import eventually, running_standin
from tools.standin import Pacing, Reply, StandinServer, ToolCall

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
CAROL = {"Authorization": "Bearer dev-globex-carol"}
QUESTION = "I'm Mary Murphy. What is the standard rate of VAT in Ireland?"
CAPTURE = {
    "concepts": [
        {
            "domain": "TAX",
            "kind": "VAT",
            "jurisdiction": "IE",
            "prefLabel": "Value-Added Tax",
            "altLabels": ["VAT"],
        }
    ]
}
ANSWER = ["Hello [PERSON_1], the standard rate is 23% ", "[IE:RATE:VAT_STANDARD]."]
SHOWN = "Hello Mary Murphy, the standard rate is 23% [IE:RATE:VAT_STANDARD]."
KINDS = {"responses": "openai", "chat": "openai_chat", "anthropic": "anthropic"}


@dataclass
class Stack:
    base: str
    llm: StandinServer
    kind: str
    sqlite: Path

    def sent_text(self, body: dict[str, Any]) -> str:
        """Everything the model was sent, as one string."""
        return json.dumps(body)

    def question_sent(self, body: dict[str, Any]) -> str:
        if self.kind == "openai":
            content: str = body["input"][-1]["content"]
        else:
            content = body["messages"][-1]["content"]
        return content


def settings_for(kind: str, url: str, data_dir: Path) -> Settings:
    key = "sk-standin-key"
    return Settings(
        data_dir=data_dir,
        log_json=False,
        llm_provider=kind,
        llm_model="model-x",
        llm_fallback="extractive:extractive-v1",
        llm_first_token_timeout_seconds=10,
        llm_max_retries=0,
        openai_api_key=key,
        openai_base_url=f"{url}/v1",
        openai_chat_api_key=key,
        openai_chat_base_url=f"{url}/v1",
        anthropic_api_key=key,
        anthropic_base_url=url,
    )


@pytest.fixture(params=list(KINDS))
def stack(request: pytest.FixtureRequest, seeded_data_dir: Path) -> Iterator[Stack]:
    kind = KINDS[request.param]
    with running_standin() as standin:
        settings = settings_for(kind, standin.url, seeded_data_dir)
        with running_server(create_app(settings)) as base:
            yield Stack(base, standin.server, kind, settings.resolved_sqlite_path)


async def turn(
    stack: Stack, message: str = QUESTION, headers: dict[str, str] = ALICE
) -> list[SseEvent]:
    async with httpx.AsyncClient(base_url=stack.base, timeout=30) as client:
        async with client.stream(
            "POST", "/api/chat", headers=headers, json={"message": message}
        ) as response:
            assert response.status_code == 200
            with anyio.fail_after(30):
                return [e async for e in sse_events(response) if e.event]


def answer(events: list[SseEvent]) -> str:
    return "".join(e.payload["delta"] for e in events if e.event == "text")


def of(events: list[SseEvent], kind: str) -> list[dict[str, Any]]:
    return [e.payload for e in events if e.event == kind]


async def audit_records(stack: Stack, tenant: str) -> list[EgressAuditRecord]:
    store = SqliteConversationStore(stack.sqlite)
    try:
        audit = store.egress_adapters().audit
        assert isinstance(audit, SqlAuditSink)
        return await audit.recent(tenant)
    finally:
        await store.aclose()


async def test_a_text_and_tool_turn_sends_exactly_the_sanitised_request(stack):
    stack.llm.script(Reply(text=ANSWER, calls=[ToolCall("capture_concepts", json.dumps(CAPTURE))]))
    events = await turn(stack)
    assert answer(events) == SHOWN
    [concepts] = of(events, "concepts")
    assert [c["id"] for c in concepts["concepts"]] == ["TAX:IE:VAT"]
    done = events[-1].payload
    assert done["status"] == "complete" and "TAX:IE:VAT" in done["referencedNodes"]
    [body] = stack.llm.requests
    assert "Mary Murphy" not in stack.sent_text(body)
    assert (
        stack.question_sent(body) == "I'm [PERSON_1]. What is the standard rate of VAT in Ireland?"
    )
    assert body["model"] == "model-x" and body["stream"] is True


async def test_a_tool_only_turn_captures_and_completes(stack):
    stack.llm.script(Reply(calls=[ToolCall("capture_concepts", json.dumps(CAPTURE))]))
    events = await turn(stack)
    assert answer(events) == ""
    assert [c["id"] for c in of(events, "concepts")[0]["concepts"]] == ["TAX:IE:VAT"]
    assert events[-1].payload["status"] == "complete"


async def test_malformed_tool_arguments_are_repaired_once(stack):
    broken = '{"concepts": [{"domain": "TAX", "kind": "VAT"'
    stack.llm.script(
        Reply(text=ANSWER, calls=[ToolCall("capture_concepts", broken)]),
        Reply(text=["never shown"], calls=[ToolCall("capture_concepts", json.dumps(CAPTURE))]),
    )
    events = await turn(stack)
    assert answer(events) == SHOWN  # the repair's text is never streamed
    assert [c["id"] for c in of(events, "concepts")[0]["concepts"]] == ["TAX:IE:VAT"]
    assert of(events, "warning") == []
    _, repair = stack.llm.requests
    sent = stack.sent_text(repair)
    assert "Validation error" in sent and "capture_concepts" in sent
    assert "Mary Murphy" not in stack.sent_text(repair)


async def test_tool_arguments_still_invalid_after_the_repair_are_a_warning(stack):
    stack.llm.script(Reply(text=ANSWER, calls=[ToolCall("capture_concepts", '{"concepts": 3}')]))
    events = await turn(stack)
    assert answer(events) == SHOWN
    [warning] = of(events, "warning")
    assert warning["code"] == "malformed_tool_payload" and "after one repair" in warning["message"]
    assert of(events, "concepts") == [] and events[-1].payload["status"] == "complete"
    assert len(stack.llm.requests) == 2  # the turn and exactly one repair


async def test_a_failure_mid_stream_is_an_error_and_keeps_the_partial_answer(stack):
    stack.llm.script(Reply(text=["Partial ", "answer"], terminal="error"))
    events = await turn(stack)
    assert answer(events) == "Partial answer"
    [error] = of(events, "error")
    assert error["code"] == "provider_failed"
    done = events[-1].payload
    assert done["status"] == "error"
    async with httpx.AsyncClient(base_url=stack.base, timeout=30) as client:
        stored = await client.get(f"/api/conversations/{done['conversationId']}", headers=ALICE)
    assert stored.json()["messages"][-1]["content"] == "Partial answer"


async def test_a_503_before_the_first_token_falls_back(stack):
    stack.llm.script(Reply(status=503))
    events = await turn(stack)
    assert of(events, "error") == []
    assert "From the rules graph" in answer(events)  # the extractive fallback answered
    assert events[-1].payload["status"] == "complete"
    records = await audit_records(stack, "acme")
    assert [r.provider for r in records[:2]] == ["extractive", stack.kind]


async def test_a_client_that_leaves_during_a_slow_first_token_closes_the_upstream(stack):
    stack.llm.script(Reply(text=["late"], pacing=Pacing(first_token=8.0)))
    async with httpx.AsyncClient(base_url=stack.base, timeout=30) as client:
        async with client.stream(
            "POST", "/api/chat", headers=ALICE, json={"message": QUESTION}
        ) as response:
            async for event in sse_events(response):
                if event.event == "metadata":
                    # the model has the request and is "thinking": now the client leaves
                    await eventually(lambda: bool(stack.llm.received))
                    break
    await eventually(lambda: stack.llm.received[0].disconnected)


async def test_a_provider_the_tenants_enforce_policy_forbids_is_blocked_and_audited(stack):
    store = SqliteConversationStore(stack.sqlite)
    try:
        policies = store.egress_adapters().policies
        assert isinstance(policies, SqlPolicyStore)
        await policies.set_tenant_policy(
            "globex", TenantPolicy(allowed_providers=frozenset({"extractive"}))
        )
    finally:
        await store.aclose()
    events = await turn(stack, headers=CAROL)
    [error] = of(events, "error")
    assert error["code"] == "egress_blocked"
    assert stack.llm.received == []  # not a byte left
    [record] = await audit_records(stack, "globex")
    assert record.blocked and record.provider == stack.kind
    assert record.violations == [f"provider_not_allowed:{stack.kind}"]


async def test_turns_reuse_pooled_connections(stack):
    stack.llm.script(Reply(text=["ok"]))
    for _ in range(6):
        events = await turn(stack, "What is the standard rate of VAT in Ireland?")
        assert events[-1].payload["status"] == "complete"
    assert len(stack.llm.received) == 6
    assert stack.llm.connections_opened <= 2


@pytest.fixture
def chat_stack(seeded_data_dir: Path) -> Iterator[Stack]:
    with running_standin() as standin:
        settings = settings_for("openai_chat", standin.url, seeded_data_dir)
        with running_server(create_app(settings)) as base:
            yield Stack(base, standin.server, "openai_chat", settings.resolved_sqlite_path)


async def test_a_server_that_rejects_tools_answers_and_the_lexicon_captures(chat_stack):
    chat_stack.llm.script(
        Reply(text=["The standard rate of VAT in Ireland is 23%."], reject_tools=True)
    )
    events = await turn(chat_stack, "What is the standard rate of VAT in Ireland?")
    assert answer(events) == "The standard rate of VAT in Ireland is 23%."
    [concepts] = of(events, "concepts")
    assert "TAX:IE:VAT" in [c["id"] for c in concepts["concepts"]]
    with_tools, answer_only = chat_stack.llm.requests
    assert "tools" in with_tools and "tools" not in answer_only
    assert len(chat_stack.llm.requests) == 2  # no extra model call for the capture
