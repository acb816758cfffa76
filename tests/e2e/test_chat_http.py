"""End to end over real HTTP: a uvicorn server, the real stores, egress and extractive provider."""

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from conversations.sql_egress import SqlAuditSink
from conversations.sqlite import SqliteConversationStore
from egress.wire import LlmRequest, StreamChunk
from engine.lexicon import ConceptLexicon
from engine.providers.extractive import ExtractiveProvider
from tests.support.review import confirm_listed
from tests.support.server import SseEvent, running_server, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
CAROL = {"Authorization": "Bearer dev-globex-carol"}
OPERATOR = {"Authorization": "Bearer dev-ops-admin"}


@dataclass
class RecordingProvider:
    """The real extractive provider, recording what egress let through to it."""

    inner: ExtractiveProvider
    delay: float = 0.0
    name: str = "extractive"
    requests: list[LlmRequest] = field(default_factory=list)

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        self.requests.append(request)
        async for chunk in self.inner.stream(request):
            if self.delay:
                await asyncio.sleep(self.delay)
            yield chunk

    async def aclose(self) -> None:
        return None


@pytest.fixture
def app_parts(seeded_data_dir):
    lexicon = ConceptLexicon.from_eurovoc()
    provider = RecordingProvider(ExtractiveProvider(lexicon))
    settings = Settings(data_dir=seeded_data_dir, log_json=False, heartbeat_seconds=0.05)
    app = create_app(settings, lexicon=lexicon, providers={"extractive": provider})
    with running_server(app) as base:
        yield base, provider, app


async def chat(
    client: httpx.AsyncClient, body: dict[str, Any], headers: dict[str, str] = ALICE
) -> list[SseEvent]:
    events: list[SseEvent] = []
    async with client.stream("POST", "/api/chat", json=body, headers=headers) as response:
        assert response.status_code == 200, await response.aread()
        async for event in sse_events(response):
            if event.event:
                events.append(event)
    return events


async def test_two_turns_in_one_conversation(app_parts):
    base, provider, _ = app_parts
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        first = await chat(client, {"message": "What is the standard rate of VAT in Ireland?"})
        kinds = [e.event for e in first]
        assert kinds[0] == "metadata" and kinds[-1] == "done" and "text" in kinds
        done = first[-1].payload
        conversation_id = done["conversationId"]
        answer = "".join(e.payload["delta"] for e in first if e.event == "text")
        cited = [i for i in first[0].payload["evidenceNodeIds"] if f"[{i}]" in answer]
        assert cited, answer
        assert "not legal, tax or financial advice" in answer
        concepts = [c["id"] for e in first if e.event == "concepts" for c in e.payload["concepts"]]
        assert "TAX:IE:VAT" in concepts
        assert done["referencedNodes"] == list(dict.fromkeys([*cited, *concepts]))

        second = await chat(
            client,
            {"message": "And what about the reduced rate?", "conversationId": conversation_id},
        )
        assert second[-1].payload["conversationId"] == conversation_id
        system = provider.requests[-1].messages[0].content
        active = system.split("ACTIVE CONCEPTS", 1)[1].split("\n\n", 1)[0]
        assert "[TAX:IE:VAT]" in active
        for node_id in done["referencedNodes"]:
            assert f"[{node_id}]" in active

        response = await client.get(f"/api/conversations/{conversation_id}", headers=ALICE)
        assert response.status_code == 200
        body = response.json()
        assert [m["role"] for m in body["messages"]] == ["user", "assistant"] * 2
        assert body["messages"][0]["content"] == "What is the standard rate of VAT in Ireland?"
        assert body["messages"][1]["content"] == answer
        assert "TAX:IE:VAT" in body["context"]["activeNodeIds"]


async def test_a_new_concept_is_created_provisional_once_across_ten_conversations(app_parts):
    base, _, _ = app_parts
    question = {"message": "Is there a wealth tax in Ireland?"}
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        turns = await asyncio.gather(*[chat(client, question) for _ in range(10)])
    resolved = [c for t in turns for e in t if e.event == "concepts" for c in e.payload["concepts"]]
    # Each conversation is told a first capture: none learns that another asked (issue 26).
    concept_id = resolved[0]["id"]
    assert [(c["id"], c["created"]) for c in resolved] == [(concept_id, True)] * 10, resolved
    # Read over HTTP: the graph adapter belongs to the server's event loop, not this one.
    # Quarantined (ADR 0020): operators see it in the review queue, tenants do not.
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        queue = await client.get("/api/review/concepts", headers=OPERATOR)
        got = await client.get(f"/api/graph/nodes/{concept_id}/neighbourhood", headers=ALICE)
    [item] = [c for c in queue.json() if c["id"] == concept_id]
    assert item["labels"]
    assert got.json() == {"nodes": [], "edges": []}


def conversation_count(app) -> int:
    path = app.state.container.settings.resolved_sqlite_path
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT COUNT(*) FROM conversations").fetchone()[0])


async def test_bad_input_gets_a_clear_error(app_parts):
    base, _, app = app_parts
    before = conversation_count(app)
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        cases = [
            ({"message": ""}, ALICE, 422, "invalid_input"),
            ({"message": "   "}, ALICE, 422, "invalid_input"),
            ({"message": "x" * 8001}, ALICE, 422, "invalid_input"),
            ({"message": "x" * 70_000}, ALICE, 413, "payload_too_large"),
            ({"message": "hi", "conversationId": "no-such-id"}, ALICE, 404, "not_found"),
            ({"message": "hi", "extra": 1}, ALICE, 422, "invalid_input"),
            ({"message": "hi", "egressMode": "loose"}, ALICE, 422, "invalid_input"),
            ({"message": "hi", "egressMode": "off"}, ALICE, 403, "egress_blocked"),
            ({"message": "hi"}, {}, 401, "unauthenticated"),
            ({"message": "hi"}, {"Authorization": "Bearer wrong"}, 401, "unauthenticated"),
        ]
        for body, headers, status, code in cases:
            response = await client.post("/api/chat", json=body, headers=headers)
            assert (response.status_code, response.json()["error"]["code"]) == (status, code), body
        response = await client.post(
            "/api/chat", content=b"{not json", headers={**ALICE, "Content-Type": "application/json"}
        )
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "invalid_input"

        async def chunks():  # no Content-Length: the limit must count what arrives
            for _ in range(20):
                yield b"x" * 10_000

        response = await client.post(
            "/api/chat", content=chunks(), headers={**ALICE, "Content-Type": "application/json"}
        )
        assert (response.status_code, response.json()["error"]["code"]) == (
            413,
            "payload_too_large",
        )
        for limit in ("-1", "0", "100000", "x"):
            response = await client.get(
                "/api/conversations/whatever", headers=ALICE, params={"limit": limit}
            )
            assert (response.status_code, response.json()["error"]["code"]) == (
                422,
                "invalid_input",
            )
    assert conversation_count(app) == before  # refused turns leave nothing behind


async def test_another_tenants_conversation_is_a_404(app_parts):
    base, _, _ = app_parts
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        events = await chat(client, {"message": "What is USC?"})
        conversation_id = events[-1].payload["conversationId"]
        response = await client.get(f"/api/conversations/{conversation_id}", headers=CAROL)
        assert response.status_code == 404
        assert response.json() == {
            "error": {"code": "not_found", "message": f"conversation {conversation_id} not found"}
        }
        response = await client.post(
            "/api/chat", headers=CAROL, json={"message": "hi", "conversationId": conversation_id}
        )
        assert response.status_code == 404


async def test_pii_is_pseudonymised_upstream_and_restored_for_the_user(app_parts):
    base, provider, app = app_parts
    message = "My PPSN is 1234567TW and my email is mary.murphy@example.ie. What is PRSI?"
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        events = await chat(client, {"message": message})
    sent = provider.requests[-1].messages[-1].content
    assert "1234567TW" not in sent and "mary.murphy@example.ie" not in sent
    assert "[PPSN_1]" in sent and "[EMAIL_ADDRESS_1]" in sent
    # A store of this test's own on the same file: the app's belongs to the server's loop.
    audit_store = SqliteConversationStore(app.state.container.settings.resolved_sqlite_path)
    try:
        audit = audit_store.egress_adapters().audit
        assert isinstance(audit, SqlAuditSink)
        records = await audit.recent("acme")
    finally:
        await audit_store.aclose()
    assert records[0].counts.get("PPSN") == 1 and records[0].effective_mode == "enforce"
    conversation_id = events[-1].payload["conversationId"]
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        stored = (await client.get(f"/api/conversations/{conversation_id}", headers=ALICE)).json()
    assert stored["messages"][0]["content"] == message


async def test_heartbeats_are_sent_while_the_stream_waits(app_parts):
    base, provider, _ = app_parts
    provider.delay = 0.03
    comments = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        async with client.stream(
            "POST", "/api/chat", headers=ALICE, json={"message": "What are the USC rates?"}
        ) as response:
            async for event in sse_events(response):
                if event.comment is not None:
                    comments.append(event.comment)
    assert "heartbeat" in comments


async def test_a_client_that_disconnects_mid_stream_loses_no_message(app_parts):
    base, provider, _ = app_parts
    provider.delay = 0.05
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        async with client.stream(
            "POST", "/api/chat", headers=ALICE, json={"message": "What is the VAT rate in Ireland?"}
        ) as response:
            async for event in sse_events(response):
                if event.event == "metadata":
                    conversation_id = event.payload["conversationId"]
                if event.event == "text":
                    break  # hang up after the first words
        # Read back over HTTP: the store belongs to the server's event loop, not this one.
        with anyio.fail_after(10):
            while True:
                got = await client.get(f"/api/conversations/{conversation_id}", headers=ALICE)
                messages = got.json()["messages"]
                # Both rows exist from the start (the answer as "streaming", ADR 0018); the
                # answer is finished once the server has seen the hang-up.
                if len(messages) == 2 and messages[1]["status"] != "streaming":
                    break
                await asyncio.sleep(0.05)  # the save is the server's background task
    user, assistant = messages
    assert user["content"] == "What is the VAT rate in Ireland?"
    assert assistant["status"] == "partial" and assistant["content"]


async def test_health_and_openapi(app_parts):
    base, _, _ = app_parts
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        health = await client.get("/health")
        assert health.status_code == 200
        assert health.json()["checks"] == {
            "graph": {"status": "ok"},
            "conversations": {"status": "ok"},
        }
        schema = (await client.get("/openapi.json")).json()
        assert (
            "text/event-stream"
            in schema["paths"]["/api/chat"]["post"]["responses"]["200"]["content"]
        )


async def test_graph_uis_get_a_patch_when_a_captured_concept_is_confirmed(app_parts):
    base, _, _ = app_parts
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        async with client.stream("GET", "/api/graph/patches", headers=CAROL) as patches:
            assert patches.status_code == 200
            await chat(client, {"message": "Is there a wealth tax in Ireland?"})
            confirmed = await confirm_listed(client, "TAX:IE:WEALTH_TAX", OPERATOR)
            assert confirmed.json() == {"id": "TAX:IE:WEALTH_TAX", "outcome": "updated"}
            seen: list[str] = []
            with anyio.fail_after(10):
                async for event in sse_events(patches):
                    if event.event == "graph_patch":
                        nodes = event.payload["nodes"]
                        seen += [n["id"] for n in nodes["added"] + nodes["updated"]]
                        if "TAX:IE:WEALTH_TAX" in seen:
                            break
        snapshot = await client.get(
            "/api/graph/snapshot", params={"labels": "Concept"}, headers=ALICE
        )
        assert "TAX:IE:WEALTH_TAX" in {n["id"] for n in snapshot.json()["nodes"]}
