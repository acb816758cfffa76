"""Issue 26, defect 2: a filtered ``Last-Event-ID`` replay dropped the node removals the live
stream delivered with the same filter, so a reconnecting UI kept a merged concept. Over real
HTTP: a concept is captured, confirmed (added to a filtered live stream) and merged into another
(removed from it); a reconnect with the same filter from the confirmation's id replays the
removal too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from engine.lexicon import ConceptLexicon
from tests.e2e.test_quarantine import ALICE, ALICE_ASKS, CONCEPT, OPERATOR, EchoingModel, turn
from tests.support.review import confirm_listed
from tests.support.server import running_server, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

SURVIVOR = "TAX:IE:CAPITAL_ACQUISITIONS_TAX"  # seeded, reviewed
FILTER = "/api/graph/stream?jurisdictions=IE&labels=Concept"


@pytest.fixture
def base(seeded_data_dir) -> Iterator[str]:
    settings = Settings(
        data_dir=seeded_data_dir, log_json=False, heartbeat_seconds=0.05, graph_batch_window_ms=50
    )
    app = create_app(settings, lexicon=ConceptLexicon(), providers={"extractive": EchoingModel()})
    with running_server(app) as url:
        yield url


async def patches(
    client: httpx.AsyncClient, seconds: float, last_event_id: str | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """The ``graph_patch`` events (id, data) of the filtered stream within ``seconds``."""
    headers = {**ALICE, **({"Last-Event-ID": last_event_id} if last_event_id else {})}
    found: list[tuple[str, dict[str, Any]]] = []
    with anyio.move_on_after(seconds):
        async with client.stream("GET", FILTER, headers=headers) as response:
            assert response.status_code == 200
            async for event in sse_events(response):
                if event.event == "graph_patch":
                    found.append((str(event.id), event.payload))
    return found


def shown(patch: dict[str, Any]) -> list[dict[str, Any]]:
    nodes: list[dict[str, Any]] = [*patch["nodes"]["added"], *patch["nodes"]["updated"]]
    return nodes


def removed(found: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [node for _, patch in found for node in patch["nodes"]["removed"]]


async def test_a_filtered_replay_keeps_the_removals_the_live_stream_sent(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        live: list[tuple[str, dict[str, Any]]] = []

        async def watch() -> None:
            live.extend(await patches(client, 6))

        async with anyio.create_task_group() as group:
            group.start_soon(watch)
            await anyio.sleep(0.5)
            await turn(client, ALICE, ALICE_ASKS, None)  # captured, quarantined: no patch
            assert (await confirm_listed(client, CONCEPT, OPERATOR)).status_code == 200
            await anyio.sleep(1)
            merge = f"/api/review/concepts/{CONCEPT}/merge"
            merged = await client.post(merge, json={"into": SURVIVOR}, headers=OPERATOR)
            assert merged.status_code == 200, merged.text

        sent = [i for i, p in live if CONCEPT in {n["id"] for n in shown(p)}]
        assert sent and CONCEPT in removed(live), live  # the live stream saw both
        replayed = await patches(client, 2, last_event_id=sent[0])
    assert CONCEPT in removed(replayed), replayed
