"""Answers rest on the text of the law, over real HTTP: the seeded graph with the AI Act and
the GDPR ingested, the real egress, the offline extractive provider."""

from typing import Any

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.server import running_server, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
AI_ACT = "EU:REG_2024_1689"


@pytest.fixture
def base(seeded_data_dir):
    with running_server(create_app(Settings(data_dir=seeded_data_dir, log_json=False))) as url:
        yield url


async def ask(base: str, message: str) -> tuple[str, dict[str, Any]]:
    async with (
        httpx.AsyncClient(base_url=base, timeout=60) as client,
        client.stream("POST", "/api/chat", json={"message": message}, headers=ALICE) as response,
    ):
        assert response.status_code == 200, await response.aread()
        events = [e async for e in sse_events(response) if e.event]
    answer = "".join(e.payload["delta"] for e in events if e.event == "text")
    return answer, events[-1].payload


async def test_an_ai_act_question_cites_ai_act_provisions_with_deep_links(base):
    answer, done = await ask(base, "What AI practices does the AI Act prohibit?")
    assert done["refused"] is None
    cited = [c["id"] for c in done["citations"]]
    assert f"{AI_ACT}:ART_5" in cited, answer
    assert done["citations"][0]["instrument"] == AI_ACT
    for citation in done["citations"]:
        # The AI Act, its provisions, or the rule node that summarises it: all link to it.
        assert citation["instrument"] in {AI_ACT, None}, citation
        url = citation["url"]
        assert url.startswith("https://eur-lex.europa.eu/"), citation
        assert "32024R1689" in url or "2024/1689" in url, citation
        assert f"[{citation['id']}]" in answer
    art_5 = next(c for c in done["citations"] if c["id"] == f"{AI_ACT}:ART_5")
    assert art_5["url"].endswith("#art_5") and "Prohibited AI practices" in art_5["heading"]
    assert 0 < done["confidence"] <= 1
    assert set(cited) <= set(done["referencedNodes"])


async def test_an_explicit_article_reference_is_answered_from_that_article(base):
    answer, done = await ask(base, "What does Article 17 GDPR say?")
    assert "EU:REG_2016_679:ART_17" in [c["id"] for c in done["citations"]], answer
    assert "erasure" in answer.lower()


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("What is the wealth tax rate in France?", "France"),
        ("What does the Digital Services Act require of online platforms?", "Digital Services Act"),
    ],
)
async def test_a_question_the_graph_cannot_answer_is_refused_and_cites_nothing(
    base, question, subject
):
    answer, done = await ask(base, question)
    assert answer.startswith("The rules graph has no evidence on"), answer
    assert subject in answer
    assert done["refused"] in {"out_of_coverage_jurisdiction", "unknown_instrument"}
    assert done["citations"] == [] and done["confidence"] == 0
    # Only the concepts the question named may be referenced: no provision, no rule node.
    assert not [n for n in done["referencedNodes"] if n.startswith(("EU:", "IE:", "UK:"))]
