"""Admission control over real HTTP: a worker with a limit of N turns in flight, a stand-in
model paced like a real one, N+1 concurrent turns — one is refused with 503 ``overloaded`` and
``Retry-After`` once the queue time has passed, before any stream starts; the admitted turns
complete, and their slots are free again afterwards."""

import time
from typing import Any

import anyio
import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.server import running_server, sse_events
from tests.support.standin import eventually, running_standin
from tools.standin import Pacing

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
LIMIT, QUEUE_SECONDS = 2, 0.3


@pytest.fixture
def stack(seeded_data_dir):
    with running_standin(Pacing(first_token=0.5, tokens_per_second=40)) as standin:
        settings = Settings(
            data_dir=seeded_data_dir,
            log_json=False,
            llm_provider="openai",
            llm_model="gpt-test-mini",
            openai_api_key="sk-test-key",
            openai_base_url=standin.openai_url,
            max_turns_in_flight=LIMIT,
            admission_queue_seconds=QUEUE_SECONDS,
            overloaded_retry_after_seconds=3,
        )
        with running_server(create_app(settings)) as base:
            yield base, standin.server


async def turn(client: httpx.AsyncClient, outcomes: list[dict[str, Any]]) -> None:
    start = time.monotonic()
    async with client.stream(
        "POST", "/api/chat", headers=ALICE, json={"message": "What is the VAT rate in Ireland?"}
    ) as response:
        if response.status_code != 200:
            await response.aread()
            outcomes.append(
                {
                    "status": response.status_code,
                    "seconds": time.monotonic() - start,
                    "headers": response.headers,
                    "body": response.json(),
                }
            )
            return
        events = [e for e in [e async for e in sse_events(response)] if e.event]
        outcomes.append({"status": 200, "events": events})


async def concurrent_turns(client: httpx.AsyncClient, n: int) -> list[dict[str, Any]]:
    """``n`` turns at once; their outcomes, in the order they ended."""
    outcomes: list[dict[str, Any]] = []
    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            for _ in range(n):
                group.start_soon(turn, client, outcomes)
    return outcomes


async def test_one_turn_over_the_limit_gets_503_overloaded_and_the_admitted_ones_complete(stack):
    base, llm = stack
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        outcomes = await concurrent_turns(client, LIMIT + 1)
        [refused] = [o for o in outcomes if o["status"] != 200]
        assert refused["status"] == 503
        assert refused["headers"]["retry-after"] == "3"
        assert refused["headers"]["content-type"] == "application/json"
        assert refused["body"]["error"]["code"] == "overloaded"
        assert refused["seconds"] >= QUEUE_SECONDS * 0.9  # it waited in the queue first
        admitted = [o for o in outcomes if o["status"] == 200]
        assert len(admitted) == LIMIT
        for outcome in admitted:
            done = outcome["events"][-1]
            assert done.event == "done" and done.payload["status"] == "complete"
            assert any(e.event == "text" for e in outcome["events"])
        assert len(llm.received) == LIMIT  # the refused turn sent nothing upstream

        # The slots were released when the admitted responses ended.
        again = await concurrent_turns(client, LIMIT)
        assert [o["status"] for o in again] == [200] * LIMIT


def test_the_openapi_schema_documents_overloaded_with_retry_after(seeded_data_dir):
    schema = create_app(Settings(data_dir=seeded_data_dir, log_json=False)).openapi()
    response = schema["paths"]["/api/chat"]["post"]["responses"]["503"]
    assert "overloaded" in response["description"]
    assert "Retry-After" in response["headers"]


async def test_an_overloaded_worker_refuses_before_reading_the_request(stack):
    """The slot is taken first (ADR 0030): while the limit is full, a request without
    credentials or with a body that would be a 422 is refused as overloaded too — the
    refusal authenticated, parsed and stored nothing."""
    base, llm = stack
    outcomes: list[dict[str, Any]] = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                for _ in range(LIMIT):
                    group.start_soon(turn, client, outcomes)
                # both turns are streaming: the limit is full
                await eventually(lambda: len(llm.received) >= LIMIT, seconds=30)
                anonymous = await client.post("/api/chat", json={"message": "VAT?"})
                malformed = await client.post("/api/chat", headers=ALICE, content=b"{not json")
                listed = await client.get("/api/conversations", headers=ALICE)
        for refused in (anonymous, malformed):
            assert refused.status_code == 503
            assert refused.json()["error"]["code"] == "overloaded"
            assert refused.headers["retry-after"] == "3"
        assert listed.status_code == 200  # only chat turns are gated
        assert [o["status"] for o in outcomes] == [200] * LIMIT
        assert len(llm.received) == LIMIT


async def test_a_request_refused_further_in_gives_its_slot_back(stack):
    """401, 422 and 404 end the request inside the app: each releases the slot it held, so
    after more of them than the limit a turn is still admitted."""
    base, _ = stack
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        for _ in range(LIMIT + 1):
            assert (await client.post("/api/chat", json={"message": "VAT?"})).status_code == 401
            bad = await client.post("/api/chat", headers=ALICE, json={"message": ""})
            assert bad.status_code == 422
            unknown = await client.post(
                "/api/chat", headers=ALICE, json={"message": "VAT?", "conversationId": "nope"}
            )
            assert unknown.status_code == 404
        outcomes = await concurrent_turns(client, LIMIT)
        assert [o["status"] for o in outcomes] == [200] * LIMIT
