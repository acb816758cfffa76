"""The graph stream, filtered snapshots, rate limits and metrics over real HTTP."""

import anyio
import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.seeded import copy_data_dir
from tests.support.server import running_server, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
BOB = {"Authorization": "Bearer dev-acme-bob"}
CAROL = {"Authorization": "Bearer dev-globex-carol"}


@pytest.fixture(scope="module")
def served(seeded_template, tmp_path_factory):
    """One server for the module (start-up indexes the shipped acts); each test spends the
    budget of a user of its own."""
    data_dir = copy_data_dir(seeded_template, tmp_path_factory.mktemp("stream") / "data")
    settings = Settings(
        data_dir=data_dir, log_json=False, heartbeat_seconds=0.2,
        rate_limit_user_per_minute=6, rate_limit_burst_seconds=50,  # 5 requests, then 429
        graph_batch_window_ms=50,
    )  # fmt: skip
    with running_server(create_app(settings)) as base:
        yield base


async def test_filtered_snapshots_are_bounded_and_bad_filters_are_422(served):
    async with httpx.AsyncClient(base_url=served, timeout=30) as client:
        irish = await client.get(
            "/api/graph", params={"jurisdictions": "IE", "limit": 5}, headers=CAROL
        )
        yesterday = await client.get("/api/graph", params={"since": "yesterday"}, headers=CAROL)
        label = await client.get("/api/graph", params={"labels": "NoSuchLabel"}, headers=CAROL)
        changes = await client.get("/api/graph/changes", params={"since": "soon"}, headers=CAROL)
    assert irish.status_code == 200
    body = irish.json()
    assert len(body["nodes"]) == 5 and body["truncated"] is True
    assert all(n["id"] == "IE" or n["properties"].get("jurisdiction", "IE") == "IE"
               or n["id"].startswith("IE:") for n in body["nodes"])  # fmt: skip
    for bad in (yesterday, label, changes):
        assert (bad.status_code, bad.json()["error"]["code"]) == (422, "invalid_input")


async def test_the_user_budget_is_a_429_with_retry_after_and_metrics_count_it(served):
    async with httpx.AsyncClient(base_url=served, timeout=30) as client:
        page = "/api/graph/nodes/IE/neighbourhood"
        codes = [(await client.get(page, headers=BOB)).status_code for _ in range(6)]
        refused = await client.get(page, headers=BOB)
        other_user = await client.get(page, headers=ALICE)
        metrics = await client.get("/metrics")
    assert codes == [200] * 5 + [429]
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1
    assert other_user.status_code == 200
    text = metrics.text
    assert 'regintel_rate_limited_total{area="graph"}' in text
    assert "regintel_patch_subscribers" in text
    assert "acme" not in text and "bob" not in text  # no tenant or user ids in labels


async def test_stream_patches_carry_ids_and_a_foreign_last_event_id_gets_resync(served):
    async with httpx.AsyncClient(base_url=served, timeout=30) as client:
        events: list[str] = []
        with anyio.move_on_after(3):
            async with client.stream(
                "GET", "/api/graph/stream", headers={**ALICE, "Last-Event-ID": "gone-42"}
            ) as response:
                assert response.status_code == 200
                async for event in sse_events(response):
                    if event.event:
                        events.append(event.event)
                        break
    assert events == ["resync"]
