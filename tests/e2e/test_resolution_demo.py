"""The demo questions of issue 10 over real HTTP, with the offline provider's lexicon capture:
EU acts resolve to the EU concepts, the UK inheritance question gets a UK concept with no Irish
facts, France is out of coverage, and nothing is written under a guessed jurisdiction."""

from typing import Any

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from engine.lexicon import ConceptLexicon
from tests.support.server import running_server, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
OPERATOR = {"Authorization": "Bearer dev-ops-admin"}


@pytest.fixture
def base(seeded_data_dir):
    settings = Settings(data_dir=seeded_data_dir, log_json=False)
    with running_server(create_app(settings, lexicon=ConceptLexicon.from_eurovoc())) as url:
        yield url


async def concepts_of(client: httpx.AsyncClient, message: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    body = {"message": message}
    async with client.stream("POST", "/api/chat", json=body, headers=ALICE) as response:
        assert response.status_code == 200
        async for event in sse_events(response):
            if event.event == "concepts":
                found = event.payload["concepts"]
    return found


async def test_the_demo_questions_resolve_to_the_right_concepts(base):
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        ai_act = await concepts_of(client, "Does the AI Act apply to a bank in Ireland?")
        gdpr = await concepts_of(client, "What does the GDPR say about consent?")
        uk = await concepts_of(client, "How much inheritance tax is due in the UK?")
        france = await concepts_of(client, "What is the wealth tax rate in France?")
        unstated = await concepts_of(client, "Is there a wealth tax?")
        queue = (await client.get("/api/review/concepts", headers=OPERATOR)).json()

    assert {c["id"] for c in ai_act} >= {"EU_LAW:EU:AI_ACT"}
    assert not any(c["id"].startswith("EU_LAW:IE:") for c in ai_act)
    assert {c["id"] for c in gdpr} >= {"EU_LAW:EU:GDPR"}

    [inheritance] = [c for c in uk if "INHERITANCE" in c["id"] or "ACQUISITIONS" in c["id"]]
    assert inheritance["id"] == "TAX:UK:INHERITANCE_TAX" and inheritance["created"]
    [written] = [item for item in queue if item["id"] == "TAX:UK:INHERITANCE_TAX"]
    assert "capital acquisitions tax" not in [label.lower() for label in written["labels"]]
    assert not any("IE" in target for target in written["alignedWith"])

    assert france and all(c.get("skipped") == "out_of_coverage" for c in france)
    assert not any(c["id"].startswith("TAX:IE:WEALTH") for c in france + unstated)
    assert not any(item["id"].startswith(("TAX:IE:WEALTH", "TAX:FR:")) for item in queue)
