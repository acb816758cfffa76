"""Questions in everyday words find the law, over real HTTP (issue 22, "Must show"): the seeded
graph (the AI Act, the GDPR, DORA), the semantic channel on (the local all-MiniLM-L6-v2 with
the shipped vectors), the real egress and the offline extractive provider.

The questions are not in the dev sets (``bench/data``); they are written the way people ask.
"""

from typing import Any

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.seeded import copy_data_dir
from tests.support.server import running_server, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
GDPR = "EU:REG_2016_679"
DORA = "EU:REG_2022_2554"


@pytest.fixture(scope="module")
def base(seeded_template, tmp_path_factory):
    # A copy: the session's template is shared, and the turns here capture concepts into it.
    data_dir = copy_data_dir(seeded_template, tmp_path_factory.mktemp("everyday") / "data")
    settings = Settings(data_dir=data_dir, log_json=False, embedder="local")
    with running_server(create_app(settings)) as url:
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


async def test_health_reports_the_semantic_channel(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        semantic = (await client.get("/health")).json()["graph"]["semantic"]
    assert semantic["enabled"] and semantic["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert semantic["dimension"] == 384 and semantic["vectors"] > 500


async def test_a_gdpr_right_asked_in_plain_words_cites_the_right_article(base):
    answer, done = await ask(
        base, "Can I get an online shop to delete all the personal data it has on me?"
    )
    assert done["refused"] is None, answer
    cited = [c["id"] for c in done["citations"]]
    assert f"{GDPR}:ART_17" in cited, (answer, cited)


async def test_dora_incident_reporting_cites_dora(base):
    answer, done = await ask(
        base, "Our bank had a serious IT outage. How do we report it to the supervisor under DORA?"
    )
    assert done["refused"] is None, answer
    cited = [c["id"] for c in done["citations"]]
    assert any(c.startswith(f"{DORA}:ART_19") for c in cited), (answer, cited)


@pytest.mark.parametrize(
    ("question", "reason", "subject"),
    [
        ("What does the Anti-Tax Avoidance Directive say about interest limitation?",
         "unknown_instrument", "Anti-Tax Avoidance Directive"),
        ("Under German labour law, how much notice must an employer give before a dismissal?",
         "out_of_coverage_jurisdiction", "Germany"),
    ],
)  # fmt: skip
async def test_an_unheld_act_and_national_law_are_refused_citing_nothing(
    base, question, reason, subject
):
    answer, done = await ask(base, question)
    assert answer.startswith("The rules graph has no evidence on"), answer
    assert subject in answer
    assert done["refused"] == reason
    assert done["citations"] == [] and done["confidence"] == 0
    assert not [n for n in done["referencedNodes"] if n.startswith(("EU:", "IE:", "UK:"))]
