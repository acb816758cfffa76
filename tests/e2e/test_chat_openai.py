"""End to end with the OpenAI provider: our API over HTTP -> egress -> the real openai SDK ->
a local server speaking the Responses streaming protocol. Nothing leaves this machine."""

import json

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.server import running_server, sse_events
from tests.support.standin import running_standin
from tools.standin import Reply, ToolCall

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
CAPTURE = {
    "concepts": [
        {
            "domain": "TAX",
            "kind": "VAT",
            "jurisdiction": "IE",
            "prefLabel": "Value-Added Tax",
            "altLabels": ["VAT"],
        }
    ]
}


@pytest.fixture
def stack(seeded_data_dir):
    with running_standin() as standin:
        llm_url, llm = standin.openai_url, standin.server
        settings = Settings(
            data_dir=seeded_data_dir,
            log_json=False,
            llm_provider="openai",
            llm_model="gpt-test-mini",
            openai_api_key="sk-test-key",
            openai_base_url=llm_url,
        )
        with running_server(create_app(settings)) as base:
            yield base, llm


async def turn(base, message):
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        async with client.stream(
            "POST", "/api/chat", headers=ALICE, json={"message": message}
        ) as response:
            assert response.status_code == 200
            return [e async for e in sse_events(response) if e.event]


async def test_a_turn_through_the_openai_sdk_streams_text_and_captures_concepts(stack):
    base, llm = stack
    llm.script(
        Reply(
            text=["Hello [PERSON_1], the standard rate is 23% ", "[IE:RATE:VAT_STANDARD]."],
            calls=[ToolCall("capture_concepts", json.dumps(CAPTURE))],
        )
    )
    events = await turn(base, "I'm Mary Murphy. What is the standard rate of VAT in Ireland?")
    answer = "".join(e.data["delta"] for e in events if e.event == "text")
    assert answer == "Hello Mary Murphy, the standard rate is 23% [IE:RATE:VAT_STANDARD]."
    done = events[-1].data
    assert done["referencedNodes"] == ["IE:RATE:VAT_STANDARD", "TAX:IE:VAT"]
    assert done["usage"] == {"inputTokens": 11, "outputTokens": 7}
    [body] = llm.requests
    assert body["model"] == "gpt-test-mini" and body["stream"] is True
    assert "Mary Murphy" not in json.dumps(body) and "[PERSON_1]" in body["input"][-1]["content"]
    assert "GRAPH EVIDENCE" in body["instructions"]
    assert body["tools"][0]["name"] == "capture_concepts"


async def test_a_provider_failure_is_an_error_event_and_the_turn_still_completes(stack):
    base, llm = stack
    llm.script(Reply(status=500))
    events = await turn(base, "What is USC?")
    assert [e.event for e in events][-2:] == ["error", "done"]
    assert events[-2].data["code"].startswith("provider_")
    assert events[-1].data["status"] == "error"
