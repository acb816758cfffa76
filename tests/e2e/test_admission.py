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
from engine.providers.standin import Pacing
from tests.support.server import running_server, sse_events
from tests.support.standin import running_standin

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


async def test_one_turn_over_the_limit_gets_503_overloaded_and_the_admitted_ones_complete(stack):
    base, llm = stack
    outcomes: list[dict[str, Any]] = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                for _ in range(LIMIT + 1):
                    group.start_soon(turn, client, outcomes)
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
        again: list[dict[str, Any]] = []
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                for _ in range(LIMIT):
                    group.start_soon(turn, client, again)
        assert [o["status"] for o in again] == [200] * LIMIT


def test_the_openapi_schema_documents_overloaded_with_retry_after(seeded_data_dir):
    schema = create_app(Settings(data_dir=seeded_data_dir, log_json=False)).openapi()
    response = schema["paths"]["/api/chat"]["post"]["responses"]["503"]
    assert "overloaded" in response["description"]
    assert "Retry-After" in response["headers"]
