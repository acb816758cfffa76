"""The web app and the request budget (``REGINTEL_RATE_LIMIT_USER_PER_MINUTE``, ADR 0026): the
page's own reads after a turn (its sync, pins, summaries, the list) spent a quick user's
budget, and a branch switch got 429 ``rate_limited`` and did nothing (the CI failure of
``test_web_branches``). A ``rate_limited`` refusal did nothing on the server, so the page
(``web/api.js``) tries again after its short ``Retry-After``; a quota spent for the month (429
``quota_exceeded``, a ``Retry-After`` of days) is shown, never waited on.

Here the real server answers, and a Playwright route refuses the first calls (Debian's headless
Chromium).
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Locator, Page, Route, expect

from tests.e2e.test_web_app import Served, answered, ask
from tests.e2e.test_web_app import served as served  # the module-scoped fixture

pytestmark = pytest.mark.e2e


def refuse_first(times: int, code: str, retry_after: str):
    """A route handler: the first ``times`` calls get 429 ``code``, the rest the server's."""
    calls: list[str] = []

    def handle(route: Route) -> None:
        calls.append(route.request.method)
        if len(calls) <= times:
            body = {"error": {"code": code, "message": "too many requests; retry later"}}
            route.fulfill(
                status=429,
                headers={"Retry-After": retry_after, "Content-Type": "application/json"},
                body=json.dumps(body),
            )
        else:
            route.continue_()

    return handle, calls


def two_versions(served: Served) -> tuple[Page, Locator]:
    """A page showing an answer regenerated once: its switcher reads 2/2."""
    page = served.page("dev-acme-alice")
    ask(page, "What is the standard rate of VAT in Ireland?")
    answered(page)
    answer = page.locator(".message.assistant").first
    answer.get_by_role("button", name="Regenerate this answer").click()
    answered(page)
    expect(answer.locator(".branch-position")).to_have_text("2/2")
    return page, answer


def test_a_rate_limited_branch_switch_is_tried_again_after_retry_after(served: Served):
    page, answer = two_versions(served)
    handle, calls = refuse_first(2, "rate_limited", "1")
    page.route("**/api/conversations/*/branch", handle)
    answer.get_by_role("button", name="Previous version").click()
    expect(answer.locator(".branch-position")).to_have_text("1/2")
    assert calls == ["PUT", "PUT", "PUT"]  # two refusals, then the server's answer
    expect(page.locator("#messages .error")).to_have_count(0)
    page.context.close()


def test_a_spent_quota_is_shown_and_not_waited_on(served: Served):
    page, answer = two_versions(served)
    handle, calls = refuse_first(5, "quota_exceeded", "86400")
    page.route("**/api/conversations/*/branch", handle)
    answer.get_by_role("button", name="Previous version").click()
    expect(page.locator("#messages .error")).to_contain_text("too many requests")
    assert calls == ["PUT"]  # once: a month's wait is the user's to know, not the page's
    expect(answer.locator(".branch-position")).to_have_text("2/2")
    page.context.close()
