"""Compaction in the web app (headless Chromium, ADR 0065): the owner sees where the earlier
turns of the shown branch were summarised for the model and rolls the summary back there; the
server agrees. The server side (budget, prompt, rollback rules) is
``tests/e2e/test_compaction_http.py``."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.e2e.test_web_app import ALICE, Served, answered, screenshot
from tests.e2e.test_web_app import served as served  # the module-scoped fixture

pytestmark = pytest.mark.e2e


def chat(base: str, message: str, conversation: str | None) -> str:
    body = {"message": message, **({"conversationId": conversation} if conversation else {})}
    with httpx.stream("POST", f"{base}/api/chat", json=body, headers=ALICE, timeout=60) as r:
        assert r.status_code == 200
        r.read()
    listed = httpx.get(f"{base}/api/conversations?limit=1", headers=ALICE, timeout=30).json()
    return str(listed[0]["id"])


def test_the_owner_sees_the_summary_and_rolls_it_back(served: Served):
    # six turns: the sixth prompt holds more than the window's 8 messages, so it summarises
    cid = None
    for n in range(1, 7):
        cid = chat(served.base, f"Question {n}: what is the standard rate of VAT in Ireland?", cid)
    assert cid is not None
    summaries = httpx.get(
        f"{served.base}/api/conversations/{cid}/summaries", headers=ALICE, timeout=30
    )
    [summary] = summaries.json()

    page = served.page("dev-acme-alice")
    page.locator(f"[data-conversation-id='{cid}']").click()
    answered(page)
    note = page.locator(".summary-note")
    expect(note).to_contain_text(f"{summary['messageCount']} messages up to here")
    # the note sits right after the last message the summary replaced
    last = page.locator(f".message[data-message-id='{summary['lastMessageId']}']")
    expect(last).to_have_count(1)
    assert page.evaluate(
        "(id) => document.querySelector(`.message[data-message-id='${id}']`)"
        ".nextElementSibling.classList.contains('summary-note')",
        summary["lastMessageId"],
    )
    screenshot(page, "chat-summary")
    note.get_by_role("button", name="Roll back this summary").click()
    expect(note).to_contain_text("Summary rolled back")
    rolled = httpx.get(
        f"{served.base}/api/conversations/{cid}/summaries", headers=ALICE, timeout=30
    ).json()
    assert rolled[0]["rolledBackAt"] is not None

    # pinned messages (ADR 0065 session 8): the owner pins an answer, the server agrees; unpins
    first = page.locator(".message.assistant").first
    message_id = first.get_attribute("data-message-id")
    first.get_by_role("button", name="Pin this message").click()
    expect(first.get_by_role("button", name="Unpin this message")).to_be_visible()
    pins = f"{served.base}/api/conversations/{cid}/pins"
    assert httpx.get(pins, headers=ALICE, timeout=30).json()["pinnedMessageIds"] == [message_id]
    screenshot(page, "chat-pinned")
    first.get_by_role("button", name="Unpin this message").click()
    expect(first.get_by_role("button", name="Pin this message")).to_be_visible()
    assert httpx.get(pins, headers=ALICE, timeout=30).json()["pinnedMessageIds"] == []
    page.context.close()
