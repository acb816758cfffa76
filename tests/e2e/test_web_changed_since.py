"""Issue 26 (README sentence "told at the start of its next answer"): when a turn's ``metadata``
lists material changes of what the conversation relied on (``changed``, ADR 0035), the web app
says so at the start of the answer, above its text, whatever the model's text says.

The server side (a re-seeded rate reaching ``metadata.changed`` at the next turn) is
``tests/integration/test_change_events.py``; here the real server answers and a Playwright
route adds one change to the ``metadata`` event the page receives, so the test is about the
page alone (Debian's headless Chromium).
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Route, expect

from tests.e2e.test_web_app import Served, answered, ask, screenshot
from tests.e2e.test_web_app import served as served  # the module-scoped fixture

pytestmark = pytest.mark.e2e

CHANGE = {
    "nodeId": "IE:RATE:VAT_STANDARD",
    "changeId": "CHANGE:test",
    "description": "VAT standard rate: 23% -> 24%",
    "at": "2026-11-27T08:00:00+00:00",
}


def _with_a_change(route: Route) -> None:
    response = route.fetch()
    text = response.text()
    sep = "\r\n" if "\r\n" in text else "\n"  # the SSE line ending the server uses
    events = text.split(sep * 2)
    found = 0
    for k, event in enumerate(events):
        lines = event.split(sep)
        if "event: metadata" in lines:
            at = next(i for i, line in enumerate(lines) if line.startswith("data: "))
            data = json.loads(lines[at][len("data: ") :])
            data["changed"] = [CHANGE]
            lines[at] = "data: " + json.dumps(data)
            events[k] = sep.join(lines)
            found += 1
    assert found == 1, text[:300]
    route.fulfill(response=response, body=(sep * 2).join(events))


def test_a_change_since_the_last_question_is_told_above_the_answer(served: Served):
    page = served.page("dev-acme-alice")
    page.route("**/api/chat", _with_a_change)
    ask(page, "What is the standard rate of VAT in Ireland?")
    answered(page)
    answer = page.locator(".message.assistant").last
    told = answer.locator(".changed")
    expect(told).to_have_text("Changed since your last question: VAT standard rate: 23% -> 24%")
    expect(told).to_have_attribute("role", "note")
    order = answer.evaluate(
        "(li) => [...li.children].map((c) => c.className.split(' ')[0])"
        ".filter((c) => c === 'changed' || c === 'body')"
    )
    assert order == ["changed", "body"]  # at the start of the answer, above its text
    expect(answer.locator(".body")).not_to_be_empty()
    screenshot(page, "chat-changed-since-last-question")
    page.context.close()
