"""Issue 26 in the web app (Debian's headless Chromium, Playwright), against a real server:

- defect 3: the graph draws only the concepts the server wrote; one it skipped
  (``out_of_coverage``, ``jurisdiction_not_stated``) is no node, and the legend's count of
  concepts is the graph's;
- defect 5: while the turn waits for the model the answer shows the ``progress`` stages, and
  the first text replaces them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from egress.wire import Done, Text, Tool, Usage
from engine.concepts import CAPTURE_TOOL_NAME
from tests.e2e.test_web_app import Served, answered, ask, node, screenshot
from tests.e2e.test_web_app import served as served  # the module-scoped fixture

pytestmark = pytest.mark.e2e

WRITTEN = "TAX:IE:FALCON_RELIEF"
SKIPPED = "TAX:FR:WEALTH_TAX"  # France: out of the graph's coverage, never written
CAPTURE = {
    "concepts": [
        {"domain": "TAX", "kind": "FALCON_RELIEF", "jurisdiction": "IE",
         "prefLabel": "Falcon relief"},
        {"domain": "TAX", "kind": "WEALTH_TAX", "jurisdiction": "FR", "prefLabel": "Wealth tax"},
    ]
}  # fmt: skip


@pytest.fixture
def scripted(served: Served) -> Iterator[Served]:
    served.provider.script = [
        Text("Noted."),
        Tool(name=CAPTURE_TOOL_NAME, args=CAPTURE),
        Done(Usage(input_tokens=1, output_tokens=1)),
    ]
    try:
        yield served
    finally:
        served.provider.script = None


def test_a_concept_the_server_skipped_is_not_drawn(scripted: Served):
    alice = scripted.page("dev-acme-alice")
    ask(alice, "In Ireland, is there a falcon relief, and what of the wealth tax in France?")
    answered(alice)
    resolved = alice.evaluate(
        "() => window.regintel.chat.captured.map(c => [c.id, c.skipped || null])"
    )
    assert [WRITTEN, None] in resolved and [SKIPPED, "out_of_coverage"] in resolved
    drawn = node(alice, WRITTEN)
    assert drawn and "provisional" in drawn["classes"], drawn
    assert node(alice, SKIPPED) is None
    concepts = alice.evaluate(
        "() => window.regintel.graph.cy.nodes().filter(n => n.data('label') === 'Concept').length"
    )
    legend = alice.locator('#legend .legend-item[data-label="Concept"] .count')
    expect(legend).to_have_text(str(concepts))
    screenshot(alice, "graph-skipped-concept-not-drawn")
    alice.context.close()


def test_the_answer_shows_progress_until_its_first_text(served: Served):
    served.provider.delay = 1.5
    try:
        alice = served.page("dev-acme-alice")
        ask(alice, "What does Article 5 of the AI Act prohibit?")
        status = alice.locator(".message.assistant.streaming .status")
        expect(status).to_have_text("Waiting for the model…")
        expect(alice.locator(".message.assistant .body").last).not_to_be_empty(timeout=30_000)
        served.provider.delay = 0.0  # the rest of the answer at full speed
        answered(alice)
        assert "Waiting" not in alice.locator(".message.assistant .status").last.inner_text()
        alice.context.close()
    finally:
        served.provider.delay = 0.0
