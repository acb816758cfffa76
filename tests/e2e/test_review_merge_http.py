"""Merge and reject over real HTTP (ADR 0034): operators only; a merged capture becomes a
redirect that the next turn resolves through; a rejected one is gone; both are audited, and
another tenant's live patches never mention the quarantined capture."""

from collections.abc import Iterator

import anyio
import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from engine.lexicon import ConceptLexicon
from tests.e2e.test_quarantine import (
    ALICE,
    ALICE_ASKS,
    CAROL,
    CONCEPT,
    OPERATOR,
    EchoingModel,
    collect_patches,
    mentions,
    turn,
)
from tests.support.server import running_server

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

SURVIVOR = "TAX:IE:CAPITAL_ACQUISITIONS_TAX"  # seeded, reviewed


@pytest.fixture
def base(seeded_data_dir) -> Iterator[str]:
    settings = Settings(data_dir=seeded_data_dir, log_json=False, heartbeat_seconds=0.05)
    app = create_app(settings, lexicon=ConceptLexicon(), providers={"extractive": EchoingModel()})
    with running_server(app) as url:
        yield url


async def test_an_operator_merges_a_capture_and_the_next_turn_resolves_to_the_survivor(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        first = await turn(client, ALICE, ALICE_ASKS, None)
        assert [c["id"] for c in first["concepts"]["concepts"]] == [CONCEPT]
        conversation = first["metadata"]["conversationId"]

        merge = f"/api/review/concepts/{CONCEPT}/merge"
        member = await client.post(merge, json={"into": SURVIVOR}, headers=ALICE)
        assert (member.status_code, member.json()["error"]["code"]) == (403, "forbidden")
        assert (await client.get("/api/review/audit", headers=ALICE)).status_code == 403

        refused = {
            "itself": await client.post(merge, json={"into": CONCEPT}, headers=OPERATOR),
            "unknown": await client.post(merge, json={"into": "TAX:IE:NOPE"}, headers=OPERATOR),
            "missing": await client.post(
                "/api/review/concepts/TAX:IE:NOPE/merge", json={"into": SURVIVOR},
                headers=OPERATOR,
            ),
        }  # fmt: skip
        assert {k: (r.status_code, r.json()["error"]["code"]) for k, r in refused.items()} == {
            "itself": (409, "review_conflict"),
            "unknown": (422, "invalid_input"),
            "missing": (404, "not_found"),
        }

        patches: list[dict[str, object]] = []

        async def watch() -> None:
            patches.extend(
                await collect_patches(client, 30.0, until=lambda p: mentions(p, SURVIVOR))
            )

        async with anyio.create_task_group() as group:
            group.start_soon(watch)
            await anyio.sleep(0.5)
            merged = await client.post(merge, json={"into": SURVIVOR}, headers=OPERATOR)
        assert merged.status_code == 200, merged.text
        body = merged.json()
        assert (body["action"], body["concept"], body["into"]) == ("merge", CONCEPT, SURVIVOR)
        assert (body["by"][:4], body["previous_status"]) == ("api:", "provisional")
        again = await client.post(merge, json={"into": SURVIVOR}, headers=OPERATOR)
        assert (again.status_code, again.json()["error"]["code"]) == (409, "review_conflict")

        # Carol's patches show the survivor's new labels, never the capture's id.
        assert patches and not mentions(patches, CONCEPT)
        assert mentions(patches, SURVIVOR)

        second = await turn(client, ALICE, ALICE_ASKS, conversation)
        [resolved] = second["concepts"]["concepts"]
        assert (resolved["id"], resolved["matchedBy"]) == (SURVIVOR, "key")

        queue = await client.get("/api/review/concepts", headers=OPERATOR)
        assert CONCEPT not in {item["id"] for item in queue.json()}
        schema = (await client.get("/openapi.json")).json()
        documented = schema["paths"]["/api/review/concepts/{concept_id}/merge"]["post"]
        assert {"403", "404", "409", "422"} <= set(documented["responses"])
        audit = (await client.get("/api/review/audit", headers=OPERATOR)).json()
        assert [(r["action"], r["concept"], r["into"]) for r in audit] == [
            ("merge", CONCEPT, SURVIVOR)
        ]


async def test_an_operator_rejects_a_capture_and_it_is_gone(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        await turn(client, ALICE, ALICE_ASKS, None)
        reject = f"/api/review/concepts/{CONCEPT}/reject"
        member = await client.post(reject, headers=ALICE)
        assert (member.status_code, member.json()["error"]["code"]) == (403, "forbidden")
        reviewed = await client.post(f"/api/review/concepts/{SURVIVOR}/reject", headers=OPERATOR)
        assert (reviewed.status_code, reviewed.json()["error"]["code"]) == (409, "review_conflict")

        patches: list[dict[str, object]] = []

        async def watch() -> None:
            patches.extend(await collect_patches(client, 1.5))

        async with anyio.create_task_group() as group:
            group.start_soon(watch)
            await anyio.sleep(0.5)
            rejected = await client.post(reject, headers=OPERATOR)
        assert rejected.status_code == 200, rejected.text
        assert rejected.json()["removed"][0] == CONCEPT
        assert not mentions(patches, CONCEPT)  # tenants never saw it; its removal is no news

        gone = await client.post(reject, headers=OPERATOR)
        assert (gone.status_code, gone.json()["error"]["code"]) == (404, "not_found")
        queue = await client.get("/api/review/concepts", headers=OPERATOR)
        assert CONCEPT not in {item["id"] for item in queue.json()}
        snapshot = await client.get("/api/graph/snapshot", headers=CAROL)
        assert not mentions(snapshot.json(), CONCEPT)
