"""Issue 27 in the web app (headless Chromium, ADR 0062): a question is edited and an answer
regenerated with the message's own buttons, each a new branch streamed like any turn; a switcher
(‹ 1/2 ›) at each branch point shows the other versions, its Compare button previews the
neighbouring version beside the shown one (merge preview, read-only until "Switch to version
N"), and the server agrees with the page.

The server side (prompts, contexts, concurrency, 404s) is ``tests/e2e/test_branches_http.py``.
"""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.e2e.test_web_app import ALICE, Served, answered, ask, screenshot
from tests.e2e.test_web_app import served as served  # the module-scoped fixture

pytestmark = pytest.mark.e2e

FIRST = "What is the standard rate of VAT in Ireland?"
EDITED = "What is the reduced rate of VAT in Ireland?"


def test_edit_regenerate_and_switch_branches(served: Served):
    page = served.page("dev-acme-alice")
    ask(page, FIRST)
    answered(page)
    question = page.locator(".message.user").first
    answer = page.locator(".message.assistant").first
    expect(question.locator(".message-actions")).to_be_visible()  # ids known: the page synced
    expect(question.locator(".branch-switcher")).to_have_count(0)  # one version: no switcher

    question.get_by_role("button", name="Edit this question").click()
    question.get_by_label("Edited question").fill(EDITED)
    question.get_by_role("button", name="Save and ask").click()
    answered(page)
    expect(page.locator(".message")).to_have_count(2)  # the earlier branch is off screen
    question = page.locator(".message.user").first
    expect(question.locator(".body")).to_have_text(EDITED)
    expect(question.locator(".branch-position")).to_have_text("2/2")
    expect(question.get_by_role("button", name="Next version")).to_be_disabled()

    # merge preview: the other version beside the shown one, nothing switched until asked
    question.get_by_role("button", name="Compare with version 1").click()
    panel = question.get_by_role("region", name="Version 1 compared")
    expect(panel.locator(".preview-theirs li").first).to_have_text(f"Q: {FIRST}")
    expect(panel.locator(".preview-ours li").first).to_have_text(f"Q: {EDITED}")
    expect(panel.locator(".preview-concepts")).to_contain_text("Context concepts it adds:")
    screenshot(page, "chat-branch-preview")
    panel.get_by_role("button", name="Close").click()
    expect(panel).to_have_count(0)
    expect(question.locator(".body")).to_have_text(EDITED)  # the preview switched nothing
    conversation_id = page.evaluate("() => window.regintel.chat.conversationId")
    shown = httpx.get(
        f"{served.base}/api/conversations/{conversation_id}", headers=ALICE, timeout=30
    ).json()
    assert shown["messages"][0]["content"] == EDITED

    question.get_by_role("button", name="Compare with version 1").click()
    panel.get_by_role("button", name="Switch to version 1").click()
    question = page.locator(".message.user").first
    expect(question.locator(".body")).to_have_text(FIRST)
    expect(question.locator(".branch-position")).to_have_text("1/2")

    answer = page.locator(".message.assistant").first
    first_answer = answer.locator(".body").text_content() or ""
    answer.get_by_role("button", name="Regenerate this answer").click()
    answered(page)
    answer = page.locator(".message.assistant").first
    expect(answer.locator(".branch-position")).to_have_text("2/2")
    expect(page.locator(".message.user").first.locator(".body")).to_have_text(FIRST)
    screenshot(page, "chat-branches")

    # what the page shows is the server's active branch
    shown = httpx.get(
        f"{served.base}/api/conversations/{conversation_id}", headers=ALICE, timeout=30
    ).json()
    assert shown["messages"][0]["content"] == FIRST
    assert len(shown["messages"][0]["siblingIds"]) == 2
    assert len(shown["messages"][1]["siblingIds"]) == 2
    answer.get_by_role("button", name="Previous version").click()
    expect(answer.locator(".branch-position")).to_have_text("1/2")
    expect(answer.locator(".body")).to_have_text(first_answer)
    page.locator(".message.user").first.get_by_role("button", name="Next version").click()
    expect(page.locator(".message.user").first.locator(".body")).to_have_text(EDITED)
    page.context.close()
