"""Issue 26, defects 4 and 5, over real HTTP with the stand-in model behind the real SDK:

- a fallback is not silent: when the first route fails before its first token and the
  fallback answers, the client gets a ``warning`` (``llm_fallback``, naming the route that
  answered) before the first text, ``done`` lists it, and ``/metrics`` counts it;
- between the request and the first text the client sees ``progress`` events (retrieval with
  its hits, prompt sent, waiting for the model; capture resolving after the answer), framed
  like the others and documented in the OpenAPI schema.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from api.app import create_app
from tests.e2e.test_chat_providers import (
    Stack,
    answer,
    of,
    settings_for,
    turn,
)
from tests.support.server import running_server
from tests.support.standin import running_standin
from tools.standin import Pacing, Reply

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


@pytest.fixture
def stack(seeded_data_dir) -> Iterator[Stack]:
    with running_standin() as standin:
        settings = settings_for("openai_chat", standin.url, seeded_data_dir)
        with running_server(create_app(settings)) as base:
            yield Stack(base, standin.server, "openai_chat", settings.resolved_sqlite_path)


async def fallbacks_counted(stack: Stack) -> float:
    async with httpx.AsyncClient(base_url=stack.base, timeout=30) as client:
        text = (await client.get("/metrics")).text
    found = re.search(r"^regintel_llm_fallbacks_total (\S+)$", text, re.MULTILINE)
    assert found, text
    return float(found.group(1))


async def test_a_fallback_route_answering_is_a_warning_and_a_metric(stack):
    before = await fallbacks_counted(stack)
    stack.llm.script(Reply(status=503))
    events = await turn(stack)
    assert "From the rules graph" in answer(events)  # the extractive fallback answered
    [warning] = [w for w in of(events, "warning") if w["code"] == "llm_fallback"]
    assert "extractive:extractive-v1" in warning["message"], warning
    kinds = [e.event for e in events]
    assert kinds.index("warning") < kinds.index("text")  # said before the answer
    done = events[-1].payload
    assert [w["code"] for w in done["warnings"]].count("llm_fallback") == 1
    assert await fallbacks_counted(stack) == before + 1


async def test_no_warning_when_the_first_route_answers(stack):
    stack.llm.script(Reply(text=["The standard rate is 23% [IE:RATE:VAT_STANDARD]."]))
    events = await turn(stack)
    assert not [w for w in of(events, "warning") if w["code"] == "llm_fallback"]
    assert await fallbacks_counted(stack) == 0


async def test_progress_events_come_before_the_first_text(stack):
    stack.llm.script(
        Reply(text=["The standard rate is 23% [IE:RATE:VAT_STANDARD]."], pacing=Pacing(1.0))
    )
    events = await turn(stack)
    kinds = [e.event for e in events]
    stages = [p["stage"] for p in of(events, "progress")]
    assert stages[:3] == ["retrieval", "prompt_sent", "waiting_for_model"]
    [retrieval] = [p for p in of(events, "progress") if p["stage"] == "retrieval"]
    assert retrieval["type"] == "progress" and retrieval["hits"] >= 1
    assert kinds[0] == "metadata" and kinds.index("text") > kinds.index("progress") + 2
    assert kinds[-1] == "done"


async def test_the_openapi_schema_documents_progress_and_fallback(stack):
    async with httpx.AsyncClient(base_url=stack.base, timeout=30) as client:
        schema = (await client.get("/openapi.json")).json()
    described = schema["paths"]["/api/chat"]["post"]["responses"]["200"]["description"]
    assert "`progress`" in described and "waiting_for_model" in described
    assert "llm_fallback" in described
