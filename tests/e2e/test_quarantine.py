"""Two tenants over real HTTP: what one tenant's conversation captured stays invisible to the
other (snapshot, neighbourhood, changes, live patches, prompts) until an operator confirms it
(ADR 0020). The model is a stand-in that echoes each user's phrasing into its capture, as a
real model that mirrors the user does."""

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from egress.wire import Done, LlmRequest, StreamChunk, Text, Tool, Usage
from engine.concepts import CAPTURE_TOOL_NAME
from engine.lexicon import ConceptLexicon
from tests.support.review import confirm_listed
from tests.support.server import running_server, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
CAROL = {"Authorization": "Bearer dev-globex-carol"}
OPERATOR = {"Authorization": "Bearer dev-ops-admin"}
CONCEPT = "TAX:IE:FALCON_ACQUISITION_RELIEF"
ALICE_ASKS = "In Ireland, does falcon acquisition relief cover our takeover of Kestrel Holdings?"
ALICE_PHRASE = "takeover of kestrel holdings"  # her words, echoed as a label


@dataclass
class EchoingModel:
    """Answers briefly and captures one concept whose alt label echoes the user's words after
    "cover our" (or the whole question): the capture path is what is under test."""

    name: str = "extractive"
    requests: list[LlmRequest] = field(default_factory=list)

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        self.requests.append(request)
        question = request.messages[-1].content
        echoed = question.partition("cover our ")[2].rstrip("?").lower() or question.lower()
        yield Text("I have noted the relief you asked about.")
        concept = {
            "domain": "TAX",
            "kind": "FALCON_ACQUISITION_RELIEF",
            "jurisdiction": "IE",
            "prefLabel": "Falcon acquisition relief",
            "altLabels": [echoed],
        }
        yield Tool(name=CAPTURE_TOOL_NAME, args={"concepts": [concept]})
        yield Done(Usage(input_tokens=10, output_tokens=8))

    async def aclose(self) -> None:
        return None


@pytest.fixture
def served(seeded_data_dir):
    model = EchoingModel()
    settings = Settings(data_dir=seeded_data_dir, log_json=False, heartbeat_seconds=0.05)
    app = create_app(settings, lexicon=ConceptLexicon(), providers={"extractive": model})
    with running_server(app) as base:
        yield base, model


async def turn(
    client: httpx.AsyncClient, headers: dict[str, str], message: str, conversation: str | None
) -> dict[str, Any]:
    """One chat turn; the events by type (the last of each)."""
    body: dict[str, Any] = {"message": message}
    if conversation:
        body["conversationId"] = conversation
    events: dict[str, Any] = {}
    async with client.stream("POST", "/api/chat", json=body, headers=headers) as response:
        assert response.status_code == 200, await response.aread()
        async for event in sse_events(response):
            if event.event:
                events[event.event] = event.data
    return events


async def collect_patches(
    client: httpx.AsyncClient,
    seconds: float,
    until: Callable[[list[dict[str, Any]]], bool] | None = None,
) -> list[dict[str, Any]]:
    """Carol's graph patches for ``seconds``, or until ``until(patches)`` holds: a test that
    expects a patch passes ``until`` and a generous ``seconds`` (a loaded machine delivers late,
    rule 11); one that expects none keeps a short window."""
    patches: list[dict[str, Any]] = []
    with anyio.move_on_after(seconds):
        async with client.stream("GET", "/api/graph/patches", headers=CAROL) as response:
            async for event in sse_events(response):
                if event.event == "graph_patch":
                    patches.append(event.payload)
                    if until is not None and until(patches):
                        break
    return patches


def mentions(data: Any, *needles: str) -> bool:
    text = json.dumps(data).lower()
    return any(needle.lower() in text for needle in needles)


async def test_another_tenants_capture_is_invisible_until_an_operator_confirms_it(served):
    base, model = served
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        start = (await client.get("/api/graph/snapshot", headers=CAROL)).json()
        since = max(n["properties"]["updated_at"] for n in start["nodes"])

        async with anyio.create_task_group() as group:
            watched: list[dict[str, Any]] = []

            async def watch() -> None:
                watched.extend(await collect_patches(client, 4.0))

            group.start_soon(watch)
            await anyio.sleep(0.5)  # subscribed before Alice's capture is written
            first = await turn(client, ALICE, ALICE_ASKS, None)
            conversation = first["metadata"]["conversationId"]
            [captured] = first["concepts"]["concepts"]
            assert (captured["id"], captured["status"]) == (CONCEPT, "provisional")
            # Her own conversation keeps what it captured, from its own context.
            await turn(client, ALICE, "And for an Irish partnership?", conversation)
            own_prompt = model.requests[-1].messages[0].content
            assert f"[{CONCEPT}]" in own_prompt

            # Carol (another tenant) sees none of it, whichever way she reads the graph.
            for path, params in [
                ("/api/graph/snapshot", {"labels": ["Concept", "Label"], "limit": 5000}),
                (f"/api/graph/nodes/{CONCEPT}/neighbourhood", {}),
                ("/api/graph/changes", {"since": since}),
            ]:
                got = await client.get(path, params=params, headers=CAROL)
                assert got.status_code == 200
                assert not mentions(got.json(), "falcon", "kestrel"), path
            # Her own question about the same relief: her prompt carries none of Alice's words,
            # and her capture is told in her own words.
            carol_asks = (
                "In Ireland, does falcon acquisition relief cover our merger with Retail Co?"
            )
            second = await turn(client, CAROL, carol_asks, None)
            carol_prompt = model.requests[-1].messages[0].content
            assert not mentions(carol_prompt, "kestrel", "takeover")
            assert not mentions(second, "kestrel", "takeover")
        # Nothing at all: a patch of quarantined writes is not sent (the stream works: below).
        assert watched == []

        # The operator sees both phrasings (no tenant ids: the graph has none) and confirms.
        queue = (await client.get("/api/review/concepts", headers=OPERATOR)).json()
        [item] = [c for c in queue if c["id"] == CONCEPT]
        assert ALICE_PHRASE in item["labels"]
        assert not mentions(queue, "acme", "globex", "alice", "carol")
        # How often each phrasing was used (ADR 0036): counts only, whoever used them.
        phrasings = item["phrasings"]
        assert set(phrasings) == set(item["labels"])
        assert (phrasings[ALICE_PHRASE], phrasings["merger with retail co"]) == (1, 1)
        assert item["mentions"] == phrasings["Falcon acquisition relief"] >= 2
        documented = (await client.get("/openapi.json")).json()["components"]["schemas"]
        assert {"phrasings", "mentions"} <= set(documented["ReviewConcept"]["required"])
        member = await confirm_listed(client, CONCEPT, CAROL)
        assert (member.status_code, member.json()["error"]["code"]) == (403, "forbidden")

        async with anyio.create_task_group() as group:
            after: list[dict[str, Any]] = []

            async def watch_again() -> None:
                after.extend(
                    await collect_patches(client, 30.0, until=lambda p: mentions(p, CONCEPT))
                )

            group.start_soon(watch_again)
            await anyio.sleep(0.5)
            done = await confirm_listed(client, CONCEPT, OPERATOR)
            assert done.json() == {"id": CONCEPT, "outcome": "updated"}
        assert mentions(after, CONCEPT)
        around = (
            await client.get(f"/api/graph/nodes/{CONCEPT}/neighbourhood", headers=CAROL)
        ).json()
        assert CONCEPT in {n["id"] for n in around["nodes"]}
        assert any(e["type"] == "HAS_ALT_LABEL" for e in around["edges"])


async def test_the_review_queue_is_for_operators_only(served):
    base, _ = served
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        member = await client.get("/api/review/concepts", headers=ALICE)
        anonymous = await client.get("/api/review/concepts")
        unknown = await confirm_listed(client, "TAX:IE:NO_SUCH", OPERATOR)
    assert (member.status_code, member.json()["error"]["code"]) == (403, "forbidden")
    assert anonymous.status_code == 401
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "not_found")
