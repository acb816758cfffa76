"""issue 30: one member held 400 graph streams, and ``since=1970-…`` sent the whole graph
(1 MB) on every connect. Over real HTTP: at most REGINTEL_GRAPH_STREAMS_PER_USER streams per
user (another is 429, other users unaffected, a closed one frees its place) and a catch-up of
at most REGINTEL_GRAPH_CATCH_UP_MAX_ITEMS nodes, marked truncated."""

from contextlib import AsyncExitStack

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
PER_USER, CATCH_UP = 3, 7


@pytest.fixture(scope="module")
def served(seeded_template, tmp_path_factory):
    data_dir = copy_data_dir(seeded_template, tmp_path_factory.mktemp("caps") / "data")
    settings = Settings(
        data_dir=data_dir,
        log_json=False,
        heartbeat_seconds=0.2,
        graph_streams_per_user=PER_USER,
        graph_catch_up_max_items=CATCH_UP,
    )
    with running_server(create_app(settings)) as base:
        yield base


async def test_one_user_holds_at_most_its_streams(served):
    async with httpx.AsyncClient(base_url=served, timeout=30) as client:
        with anyio.fail_after(30):
            async with AsyncExitStack() as held:
                for _ in range(PER_USER):
                    response = await held.enter_async_context(
                        client.stream("GET", "/api/graph/stream", headers=ALICE)
                    )
                    assert response.status_code == 200
                refused = await client.get("/api/graph/stream", headers=ALICE)
                assert (refused.status_code, refused.json()["error"]["code"]) == (
                    429,
                    "rate_limited",
                )
                assert "retry-after" in refused.headers
                async with client.stream("GET", "/api/graph/stream", headers=BOB) as other:
                    assert other.status_code == 200  # another user is not affected
            # the three closed: their places are free again
            for _ in range(50):
                async with client.stream("GET", "/api/graph/stream", headers=ALICE) as again:
                    if again.status_code == 200:
                        break
                await anyio.sleep(0.1)
            assert again.status_code == 200


async def test_a_catch_up_from_1970_is_bounded_and_says_so(served):
    async with httpx.AsyncClient(base_url=served, timeout=30) as client:
        first = None
        with anyio.fail_after(30):
            async with client.stream(
                "GET", "/api/graph/stream", params={"since": "1970-01-01T00:00:00Z"}, headers=BOB
            ) as response:
                assert response.status_code == 200
                async for event in sse_events(response):
                    if event.event == "graph_patch":
                        first = event.payload
                        break
    assert first is not None and first["meta"]["catchUp"] is True
    nodes = first["nodes"]["added"] + first["nodes"]["updated"]
    assert len(nodes) == CATCH_UP
    assert first["meta"]["truncated"] is True
