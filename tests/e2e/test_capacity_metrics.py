"""Adaptive admission over real HTTP (ADR 0055): ``/metrics`` shows the limit, the turns in
flight, the refusals, the loop lag and the chunk delay of the turns streamed; a refusal's
``Retry-After`` stays within its bounds."""

import re

import anyio
import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.server import running_server, sse_events
from tests.support.standin import running_standin
from tools.standin import Pacing

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}


def settings(data_dir, url: str, **overrides) -> Settings:
    return Settings(
        data_dir=data_dir,
        log_json=False,
        llm_provider="openai",
        llm_model="gpt-test-mini",
        openai_api_key="sk-test-key",
        openai_base_url=url,
        **overrides,
    )


def figure(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} ([0-9.e+-]+)$", text, re.M)
    assert match, f"{name} is not in /metrics"
    return float(match.group(1))


async def status_of_turn(client: httpx.AsyncClient, seen: list[httpx.Response]) -> None:
    async with client.stream(
        "POST", "/api/chat", headers=ALICE, json={"message": "What is the VAT rate in Ireland?"}
    ) as response:
        if response.status_code == 200:
            events = [e.event async for e in sse_events(response) if e.event]
            assert events[-1] == "done"
        else:
            await response.aread()
        seen.append(response)


async def test_metrics_show_the_adaptive_limit_and_the_chunk_delay_of_streamed_turns(
    seeded_data_dir,
):
    with running_standin(Pacing(first_token=0.05, tokens_per_second=200)) as standin:
        app = create_app(settings(seeded_data_dir, standin.openai_url, max_turns_in_flight=64))
        with running_server(app) as base:
            async with httpx.AsyncClient(base_url=base, timeout=30) as client:
                seen: list[httpx.Response] = []
                await status_of_turn(client, seen)
                await status_of_turn(client, seen)
                assert [r.status_code for r in seen] == [200, 200]
                # A turn's slot is released once the server's response call returns, just
                # after the client read its last byte; the chunk-delay window is drained by
                # the probe every 100 ms: poll until both are done.
                with anyio.fail_after(10):
                    while True:
                        text = (await client.get("/metrics")).text
                        delay = figure(text, 'regintel_chunk_delay_seconds{quantile="0.99"}')
                        if figure(text, "regintel_turns_in_flight") == 0 and delay > 0:
                            break
                        await anyio.sleep(0.02)
    assert figure(text, "regintel_admission_ceiling") == 64
    assert 8 <= figure(text, "regintel_admission_limit") <= 64
    assert figure(text, "regintel_admission_refused_total") == 0
    assert figure(text, "regintel_event_loop_lag_seconds") >= 0


async def test_a_refusal_carries_a_spread_retry_after_and_is_counted(seeded_data_dir):
    with running_standin(Pacing(first_token=0.5, tokens_per_second=40)) as standin:
        app = create_app(
            settings(
                seeded_data_dir,
                standin.openai_url,
                max_turns_in_flight=1,
                admission_queue_seconds=0,
                overloaded_retry_after_seconds=1,
                overloaded_retry_after_max_seconds=3,
            )
        )
        with running_server(app) as base:
            async with httpx.AsyncClient(base_url=base, timeout=30) as client:
                seen: list[httpx.Response] = []
                with anyio.fail_after(30):
                    async with anyio.create_task_group() as group:
                        for _ in range(3):
                            group.start_soon(status_of_turn, client, seen)
                text = (await client.get("/metrics")).text
    statuses = sorted(r.status_code for r in seen)
    assert statuses == [200, 503, 503]
    for refused in (r for r in seen if r.status_code == 503):
        assert refused.json()["error"]["code"] == "overloaded"
        assert 1 <= int(refused.headers["retry-after"]) <= 3
    assert figure(text, "regintel_admission_refused_total") == 2
    assert figure(text, "regintel_admission_limit") == 1  # the ceiling bounds the adaptive limit
