"""The attack corpus through the real turn (issue 9's must-show), not only through its parts.

A stand-in model echoes what it receives: its answer repeats the (sanitised) question and its
``capture_concepts`` call is the crafted payload of the case, so everything an echoing, mangling
model could push towards the graph goes through the whole path: egress in ``enforce``, the turn,
the capture screen (ADR 0017), resolution and quarantine (ADRs 0020, 0023), the write service
and the ingress guard with the real detectors (ADR 0016), into Ladybug. Then:

- a full dump of the graph holds none of the values the cases must not pass (PII, chat
  fragments, tenant and user ids), nor any two labels joined;
- no request the model received holds a PII value of the evasive chat messages.

Each question names Ireland, so that captures are written (a capture under a jurisdiction the
conversation never named is skipped, which would make this test pass for the wrong reason).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

import pytest

from api.bootstrap import bootstrap
from api.settings import Settings
from conversations.sqlite import SqliteConversationStore
from egress.wire import Done, LlmRequest, StreamChunk, Text, Tool, Usage
from engine.concepts import CAPTURE_TOOL_NAME
from engine.lexicon import ConceptLexicon
from engine.router import LlmRouter, Route
from engine.turn import TurnRequest
from tests.support.attacks import graph_values, load_cases, passed_values

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

CAPTURES = load_cases("capture_payloads")
MESSAGES = load_cases("chat_messages")


@dataclass
class EchoingModel:
    """Answers with the question it received and calls the tool with the next payload."""

    name: str = "echo"
    payloads: list[Any] = field(default_factory=list)
    requests: list[LlmRequest] = field(default_factory=list)

    async def stream(self, request: LlmRequest) -> AsyncGenerator[StreamChunk, None]:
        self.requests.append(request)
        yield Text(f"You asked: {request.messages[-1].content}")
        if self.payloads:
            yield Tool(name=CAPTURE_TOOL_NAME, args=self.payloads.pop(0))
        yield Done(Usage(input_tokens=1, output_tokens=1))

    async def aclose(self) -> None:
        return None


@pytest.fixture
async def app(tmp_path):
    model = EchoingModel()
    container = await bootstrap(
        Settings(data_dir=tmp_path, log_json=False, ingestion_worker=False),
        conversations=SqliteConversationStore(tmp_path / "c.db"),
        lexicon=ConceptLexicon(),
        providers={"echo": model},
        router=LlmRouter(Route("echo", "m")),
    )
    yield container, model
    await container.aclose()


async def test_no_attack_payload_leaves_a_value_in_the_graph_through_the_real_turn(app):
    container, model = app
    before = {n.id for n in (await container.graph.snapshot(limit=100_000)).nodes}
    outcomes: dict[str, int] = {"concepts": 0, "warnings": 0}
    for case in CAPTURES:
        model.payloads.append(case["payload"])
        request = TurnRequest(case["tenant_id"], case["user_id"], f"In Ireland, {case['question']}")
        async for event in container.engine.run_turn(request):
            outcomes["concepts"] += event.type == "concepts"
            outcomes["warnings"] += event.type == "warning"
    await container.writer.drain()
    dump = await container.graph.snapshot(limit=100_000)
    assert len(dump.nodes) == (await container.graph.counts()).nodes  # the whole graph
    assert len(dump.nodes) > len(before)  # captures did reach the graph

    stored = graph_values(dump)
    leaked = {c["id"]: p for c in CAPTURES if (p := passed_values(c["must_not_pass"], stored))}
    assert leaked == {}
    assert outcomes["concepts"] > 20 and outcomes["warnings"] > 50


async def test_no_evasive_message_gets_a_value_past_egress_in_a_turn(app):
    container, model = app
    for case in MESSAGES:
        request = TurnRequest("acme", "alice", f"In Ireland: {case['message']}")
        async for _ in container.engine.run_turn(request):
            pass
        sent = [m.content for m in model.requests[-1].messages]
        assert passed_values(case["must_not_pass"], sent) == [], case["id"]
    assert len(model.requests) == len(MESSAGES)
