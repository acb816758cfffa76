"""The web app in a real headless Chromium (Debian's ``chromium``, driven by Playwright), against
a real server on the seeded graph with the offline extractive provider.

Chromium comes from ``make system-deps`` (apt); Playwright never downloads a browser here.
Screenshots of the chat and graph views go to ``var/screenshots/``.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from api.app import create_app
from api.settings import Settings
from egress.wire import Done, LlmRequest, StreamChunk, Text, Tool
from engine.concepts import CAPTURE_TOOL_NAME
from engine.lexicon import ConceptLexicon
from engine.providers.extractive import ExtractiveProvider
from tests.support.review import confirm_listed_sync
from tests.support.server import running_server

pytestmark = pytest.mark.e2e

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
OPERATOR = {"Authorization": "Bearer dev-ops-admin"}
ALICE = {"Authorization": "Bearer dev-acme-alice"}
AI_ACT_ARTICLE_5 = "EU:REG_2024_1689:ART_5"
LEAKED = "vat@revenue.gov"  # term-shaped: the capture screen passes it, the guard refuses it
VIEW_LABELS = [  # web/graph.js VIEW_LABELS
    "Jurisdiction", "Region", "Agreement", "Treaty", "Regime", "Statute", "Section",
    "EURegulation", "EUDirective", "EUDecision", "Article", "Annex", "Chapter", "Benefit",
    "Relief", "Condition", "Obligation", "Threshold", "Rate", "Form", "Timeline", "Guidance",
    "Case", "Update", "Concept",
]  # fmt: skip


@dataclass
class PacedProvider:
    """The real extractive provider, optionally slowed down per chunk (for the stop button), or
    a script of chunks instead (a model that captures what a test needs)."""

    inner: ExtractiveProvider
    delay: float = 0.0
    name: str = "extractive"
    script: list[StreamChunk] | None = None

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        if self.script is not None:
            for chunk in self.script:
                yield chunk
            return
        async for chunk in self.inner.stream(request):
            if self.delay:
                await asyncio.sleep(self.delay)
            yield chunk

    async def aclose(self) -> None:
        return None


@dataclass
class Served:
    base: str
    provider: PacedProvider
    browser: Browser

    def page(self, key: str | None = None) -> Page:
        page = self.browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
        page.set_default_timeout(30_000)
        page.goto(self.base + "/")
        if key:
            sign_in(page, key)
            # the module's first page loads the graph cold: under load (8 agents on 2 cores) that
            # took over 30 s, so a generous wait (rule 11), not the page's default
            page.wait_for_function(
                "() => window.regintel && window.regintel.graph.cy.nodes().length > 0",
                timeout=120_000,
            )
            expect(page.locator("#graph-status")).to_have_text("Live")
        return page


@pytest.fixture(scope="module")
def served(seeded_template, tmp_path_factory) -> Iterator[Served]:
    if not CHROMIUM.exists():
        pytest.fail("Debian's chromium is missing: run `make system-deps` (installs it with apt)")
    data = tmp_path_factory.mktemp("web") / "data"
    shutil.copytree(seeded_template, data)
    provider = PacedProvider(ExtractiveProvider(ConceptLexicon.from_eurovoc()))
    settings = Settings(data_dir=data, log_json=False, heartbeat_seconds=1.0)
    app = create_app(settings, providers={"extractive": provider})
    with running_server(app) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
        # expect()'s own default is 5 s, apart from the page's 30 s: on a loaded machine a
        # turn's rendering took longer (issue 27: test_web_summaries failed once so)
        expect.set_options(timeout=30_000)
        try:
            yield Served(base, provider, browser)
        finally:
            expect.set_options(timeout=5_000)
            browser.close()


def sign_in(page: Page, key: str) -> None:
    page.get_by_label("API key or session token").fill(key)
    page.get_by_role("button", name="Sign in").click()


def ask(page: Page, question: str) -> None:
    page.get_by_label("Your question").fill(question)
    page.get_by_role("button", name="Ask").click()


def answered(page: Page) -> None:
    expect(page.locator(".message.assistant.streaming")).to_have_count(0)
    expect(page.get_by_role("button", name="Ask")).to_be_enabled()


def node(page: Page, node_id: str) -> dict[str, Any] | None:
    state: dict[str, Any] | None = page.evaluate(
        "(id) => window.regintel.graph.describe(id)", node_id
    )
    return state


def positions(page: Page) -> dict[str, dict[str, float]]:
    placed: dict[str, dict[str, float]] = page.evaluate("() => window.regintel.graph.positions()")
    return placed


def review_queue(served: Served) -> set[str]:
    got = httpx.get(served.base + "/api/review/concepts", headers=OPERATOR)
    return {c["id"] for c in got.json()}


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def test_a_wrong_key_shows_a_sign_in_error(served: Served):
    page = served.page()
    sign_in(page, "not-a-key")
    expect(page.get_by_role("alert")).to_contain_text("not accepted")
    expect(page.locator("#workspace")).to_be_hidden()
    page.context.close()


def test_an_ai_act_answer_streams_with_chips_that_focus_the_graph_and_continues(served: Served):
    page = served.page("dev-acme-alice")
    texts: list[str] = []
    served.provider.delay = 0.02
    try:
        ask(page, "What does Article 5 of the AI Act prohibit?")
        body = page.locator(".message.assistant .body").last
        expect(page.locator(".message.assistant.streaming")).to_have_count(1)
        expect(body).not_to_be_empty()
        texts.append(body.inner_text())  # text on the page before the turn is done
        answered(page)
    finally:
        served.provider.delay = 0.0
    assert texts[0] and texts[0] != body.inner_text()
    chip = page.locator(f'.citations .chip[data-node-id="{AI_ACT_ARTICLE_5}"] a')
    expect(chip).to_have_attribute(
        "href", "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:32024R1689#art_5"
    )
    for href in page.locator(".citations .chip a").evaluate_all("(as) => as.map(a => a.href)"):
        assert href.startswith("https://eur-lex.europa.eu/"), href
    expect(page.locator("#disclaimer")).to_contain_text("not legal, tax or financial advice")
    state = node(page, AI_ACT_ARTICLE_5)
    assert state and "focus" in state["classes"], state
    article_99 = node(page, "EU:REG_2016_679:ART_99")  # GDPR: not cited, faded
    assert article_99 and "faded" in article_99["classes"]
    screenshot(page, "chat-and-graph-ai-act")

    # Continue the conversation, then reopen it from the list.
    ask(page, "And what penalties apply?")
    answered(page)
    conversations = page.locator("#conversation-list .conversation")
    expect(conversations.first).to_have_text("What does Article 5 of the AI Act prohibit?")
    page.get_by_role("button", name="New conversation").click()
    expect(page.locator(".message")).to_have_count(0)
    conversations.first.click()
    expect(page.locator(".message")).to_have_count(4)
    expect(page.locator(".message.user").nth(1).locator(".body")).to_have_text(
        "And what penalties apply?"
    )
    mine = page.evaluate("() => window.regintel.chat.conversationId")
    listed = httpx.get(served.base + "/api/conversations", headers=ALICE).json()
    assert mine in [c["id"] for c in listed]
    bobs = httpx.get(
        served.base + "/api/conversations", headers={"Authorization": "Bearer dev-acme-bob"}
    )
    assert mine not in [c["id"] for c in bobs.json()]  # the list is the caller's own

    # Filters and legend: counts per label are those of the snapshot; filters hide nodes.
    snapshot = httpx.get(
        served.base + "/api/graph/snapshot",
        params={"labels": VIEW_LABELS, "limit": 2000},
        headers=ALICE,
    ).json()
    expected: dict[str, int] = {}
    for item in snapshot["nodes"]:
        expected[item["label"]] = expected.get(item["label"], 0) + 1
    shown = {
        item.get_attribute("data-label"): int(item.locator(".count").inner_text())
        for item in page.locator(".legend-item").all()
    }
    assert shown == expected
    page.get_by_role("combobox", name="Jurisdiction").select_option("IE")
    # A live patch may redraw meanwhile: wait for the filter's effect instead of sampling it.
    page.wait_for_function(
        "() => { const shown = window.regintel.graph.cy.nodes(':visible')"
        ".map(n => n.data('jurisdiction')); return shown.length > 0"
        " && shown.every(j => j === 'IE'); }",
        timeout=10_000,
    )
    page.get_by_role("combobox", name="Jurisdiction").select_option("")
    page.locator('.legend-item[data-label="Article"] input').uncheck()
    # The legend is rebuilt when a live patch arrives; wait for the style, do not sample it.
    page.wait_for_function(
        "(id) => !window.regintel.graph.describe(id).visible", arg=AI_ACT_ARTICLE_5, timeout=10_000
    )
    page.locator('.legend-item[data-label="Article"] input').check()

    # A node's details: text, source links, CITES / PART_OF neighbours to follow.
    page.evaluate(f"() => window.regintel.graph.select('{AI_ACT_ARTICLE_5}')")
    details = page.get_by_label("Node details")
    expect(details).to_contain_text("Prohibited AI practices")
    expect(details.locator(".sources a").first).to_have_attribute(
        "href", "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:32024R1689#art_5"
    )
    details.get_by_role("heading", name="PART_OF").wait_for()
    details.locator(".neighbour").first.click()
    expect(details.locator(".node-meta")).not_to_contain_text(AI_ACT_ARTICLE_5)
    screenshot(page, "graph-node-details")
    page.context.close()


def test_a_refusal_is_shown_as_one_and_stop_aborts_the_stream(served: Served):
    page = served.page("dev-acme-alice")
    ask(page, "What is the wealth tax rate in France?")
    answered(page)
    refused = page.locator(".message.assistant.refused")
    expect(refused.locator(".refusal")).to_contain_text("No answer")
    expect(refused.locator(".citations .chip")).to_have_count(0)
    screenshot(page, "chat-refusal")

    served.provider.delay = 0.4
    try:
        ask(page, "What does Article 5 of the AI Act prohibit?")
        expect(page.get_by_role("button", name="Stop")).to_be_enabled()
        expect(page.locator(".message.assistant .body").last).not_to_be_empty()
        page.get_by_role("button", name="Stop").click()
        last = page.locator(".message.assistant").last
        expect(last.locator(".status")).to_have_text("(stopped)")
        expect(page.get_by_role("button", name="Stop")).to_be_disabled()
        expect(last.locator(".citations .chip")).to_have_count(0)
    finally:
        served.provider.delay = 0.0
    # The server saw the client go: the answer so far is kept as partial.
    conversation = page.evaluate("() => window.regintel.chat.conversationId")
    deadline = time.monotonic() + 10
    status = ""
    while time.monotonic() < deadline and status != "partial":
        got = httpx.get(f"{served.base}/api/conversations/{conversation}", headers=ALICE).json()
        status = got["messages"][-1]["status"]
        time.sleep(0.1)
    assert status == "partial"
    page.context.close()


def test_a_captured_concept_appears_provisional_and_live_patches_add_it_without_moving_nodes(
    served: Served,
):
    alice = served.page("dev-acme-alice")
    bob = served.page("dev-acme-bob")  # same tenant: sees it only once reviewed (ADR 0020)
    carol = served.page("dev-globex-carol")  # its stream drops before the confirmation

    ask(alice, "Is there a wealth tax in Ireland?")
    answered(alice)
    [concept] = alice.evaluate(
        "() => window.regintel.chat.captured.filter(c => c.created).map(c => c.id)"
    )
    deadline = time.monotonic() + 10  # the capture is written beside the stream, not before it
    while time.monotonic() < deadline and concept not in review_queue(served):
        time.sleep(0.1)
    assert concept in review_queue(served)
    captured = node(alice, concept)
    assert captured and "provisional" in captured["classes"], captured
    screenshot(alice, "graph-provisional-concept")
    assert node(bob, concept) is None and node(carol, concept) is None

    placed = positions(bob)
    carol.evaluate("() => window.regintel.graph.dropStream()")
    confirmed = confirm_listed_sync(served.base, concept, OPERATOR).json()
    assert confirmed["outcome"] == "updated"

    bob.wait_for_function("(id) => window.regintel.graph.describe(id) !== null", arg=concept)
    after = positions(bob)
    assert concept in after and set(placed) <= set(after)
    moved = [i for i in placed if placed[i] != after[i]]
    assert moved == []
    assert "provisional" not in (node(bob, concept) or {})["classes"]
    # Carol reconnected (Last-Event-ID, since=) and caught up with the write she missed.
    carol.wait_for_function("(id) => window.regintel.graph.describe(id) !== null", arg=concept)
    assert carol.evaluate("() => window.regintel.graph.reconnects") >= 1
    # Alice's own provisional mark goes away with the confirmation patch.
    alice.wait_for_function(
        "(id) => !window.regintel.graph.describe(id).classes.includes('provisional')",
        arg=concept,
    )
    for page in (alice, bob, carol):
        page.context.close()


def open_admin(page: Page) -> None:
    page.get_by_role("button", name="Admin").click()
    expect(page.get_by_role("heading", name="Concepts awaiting review")).to_be_visible()


def test_an_operator_confirms_a_captured_concept_on_the_admin_page_and_the_mark_goes_away(
    served: Served,
):
    alice = served.page("dev-acme-alice")
    operator = served.page("dev-ops-admin")
    member = served.page("dev-acme-bob")
    expect(member.get_by_role("button", name="Admin")).to_be_hidden()  # operators only
    member.context.close()

    ask(alice, "Is there a property tax in Ireland?")
    answered(alice)
    [concept] = alice.evaluate(
        "() => window.regintel.chat.captured.filter(c => c.created).map(c => c.id)"
    )
    captured = node(alice, concept)
    assert captured and "provisional" in captured["classes"], captured

    open_admin(operator)
    row = operator.locator(f'#review-table tr[data-concept-id="{concept}"]')
    deadline = time.monotonic() + 10  # the capture is written beside the stream, not before it
    while row.count() == 0 and time.monotonic() < deadline:
        operator.get_by_role("button", name="Refresh").first.click()
        operator.wait_for_timeout(200)
    expect(row).to_contain_text("property tax")
    expect(row.locator(".phrasings li").first).to_be_visible()
    screenshot(operator, "admin-review-queue")
    status = operator.locator("#review-status")
    for _ in range(5):
        confirm = row.get_by_role("button", name="Confirm")
        confirm.focus()
        operator.keyboard.press("Enter")  # keyboard reachable
        expect(status).to_contain_text(re.compile("Confirmed|changed since it was listed"))
        if "Confirmed" in status.inner_text():
            break
        # The ingestion worker linked or defined the concept after the page listed it (ADR
        # 0044): the page listed it again; the operator confirms what it shows now.
        expect(row).to_have_count(1)
    expect(status).to_contain_text("Confirmed")
    expect(row).to_have_count(0)
    assert concept not in review_queue(served)

    # Alice's page: the confirmation patch clears the provisional mark, live.
    alice.wait_for_function(
        "(id) => !window.regintel.graph.describe(id).classes.includes('provisional')",
        arg=concept,
    )
    # The operator's own graph view got the reviewed concept through its live stream.
    operator.get_by_role("button", name="Research").click()
    operator.wait_for_function(
        "(id) => { const n = window.regintel.graph.describe(id);"
        " return n !== null && !n.classes.includes('provisional'); }",
        arg=concept,
    )
    for page in (alice, operator):
        page.context.close()


def test_the_admin_page_counts_guard_rejections_without_their_values_and_edits_policies(
    served: Served,
):
    alice = served.page("dev-acme-alice")
    concept = {
        "domain": "TAX", "kind": "HERON_LEVY", "jurisdiction": "IE",
        "prefLabel": "Heron levy", "altLabels": [LEAKED],
    }  # fmt: skip
    served.provider.script = [
        Text("Noted."),
        Tool(name=CAPTURE_TOOL_NAME, args={"concepts": [concept]}),
        Done(),
    ]
    try:
        ask(alice, "Is there a heron levy in Ireland?")
        answered(alice)
    finally:
        served.provider.script = None
    alice.context.close()

    operator = served.page("dev-ops-admin")
    open_admin(operator)
    counted = operator.locator('#guard-counts tr[data-code="graph_pii_rejected"] td.number')
    expect(counted).to_have_text(re.compile(r"^[1-9]\d*$"))
    expect(operator.locator("#guard-recent tbody tr").first).to_contain_text("EMAIL_ADDRESS")
    expect(operator.locator("#guard-recent tbody tr").first).to_contain_text("graph_pii_rejected")
    for shown in (operator.locator("#admin").inner_text(), operator.content()):
        assert LEAKED not in shown and "revenue.gov" not in shown
    screenshot(operator, "admin-guard-and-egress")

    # The tenant's egress policy, edited with the keyboard-reachable form.
    operator.get_by_label("Default mode").select_option("report-only")
    operator.get_by_label("Allowed providers").fill("extractive, openai")
    operator.get_by_role("button", name="Save tenant policy").click()
    expect(operator.locator("#egress-status")).to_contain_text("Saved the policy of regintel")
    saved = httpx.get(served.base + "/api/admin/egress/tenant", headers=OPERATOR).json()
    assert (saved["defaultMode"], saved["allowedProviders"]) == (
        "report-only",
        ["extractive", "openai"],
    )
    operator.get_by_label("User id").fill("auditor")
    operator.get_by_label("Mode", exact=True).select_option("enforce")
    operator.get_by_role("button", name="Set user policy").click()
    expect(operator.locator('#user-policies tr[data-user-id="auditor"]')).to_contain_text("enforce")
    operator.context.close()


def test_an_answer_links_only_to_citations_and_official_hosts(served: Served):
    """issue 30: model output rendered links to any site as clickable. Now only a citation's
    URL or a page on an official host is an ``<a>``; any other link shows as text."""
    served.provider.script = [
        Text(
            "Read [the official text](https://eur-lex.europa.eu/eli/reg/2024/1689/oj), "
            "[Revenue](https://www.revenue.ie/en/vat/index.aspx), "
            "[claim your refund](https://evil.example/phish), "
            "[plain http](http://eur-lex.europa.eu/x) and "
            "[a look-alike](https://europa.eu.evil.example/x)."
        ),
        Done(),
    ]
    alice = served.page("dev-acme-alice")
    try:
        ask(alice, "Where is the AI Act published?")
        answered(alice)
    finally:
        served.provider.script = None
    body = alice.locator(".message.assistant .body").last
    hrefs = body.locator("a").evaluate_all("(links) => links.map((a) => a.href)")
    assert hrefs == [
        "https://eur-lex.europa.eu/eli/reg/2024/1689/oj",
        "https://www.revenue.ie/en/vat/index.aspx",
    ]
    text = body.inner_text()
    for shown in (
        "claim your refund (https://evil.example/phish)",
        "plain http (http://eur-lex.europa.eu/x)",
        "a look-alike (https://europa.eu.evil.example/x)",
    ):
        assert shown in text
    # a citation's own URL is a link whatever its host (checked on the module itself)
    allowed = alice.evaluate(
        """async () => {
            const { linkAllowed } = await import("/app/markdown.js");
            return [linkAllowed("https://example.org/cited", ["https://example.org/cited"]),
                    linkAllowed("https://example.org/cited"),
                    linkAllowed("javascript:alert(1)"),
                    linkAllowed("https://user:pw@gov.ie/")];
        }"""
    )
    assert allowed == [True, False, False, False]
    alice.context.close()


def test_the_review_page_shows_the_definition_sources_and_flags_and_a_tenant_admin_no_queue(
    served: Served,
):
    """issue 30: the admin page never showed definitions or source URLs, so an operator
    approved blind; and a tenant's admin was the shared graph's operator."""
    concept = {
        "domain": "TAX", "kind": "EGRET_LEVY", "jurisdiction": "IE",
        "prefLabel": "Egret levy", "altLabels": ["<img src=x onerror=alert(1)>", "egret duty"],
        "definition": "A levy on egrets at 0 percent.",
        "sourceUrls": ["https://www.revenue.ie/en/egret-levy"],
    }  # fmt: skip
    served.provider.script = [
        Text("Noted."),
        Tool(name=CAPTURE_TOOL_NAME, args={"concepts": [concept]}),
        Done(),
    ]
    alice = served.page("dev-acme-alice")
    try:
        ask(alice, "Is there an egret levy in Ireland?")
        answered(alice)
    finally:
        served.provider.script = None
    alice.context.close()

    operator = served.page("dev-ops-admin")
    open_admin(operator)
    row = operator.locator('#review-table tr[data-concept-id="TAX:IE:EGRET_LEVY"]')
    deadline = time.monotonic() + 10
    while row.count() == 0 and time.monotonic() < deadline:
        operator.get_by_role("button", name="Refresh").first.click()
        operator.wait_for_timeout(200)
    expect(row.locator(".definition-text")).to_contain_text("A levy on egrets at 0 percent.")
    expect(row.locator(".definition-text")).to_contain_text("figure")  # flagged to check
    expect(row.locator(".sources li")).to_have_text(["https://www.revenue.ie/en/egret-levy"])
    expect(row.locator(".phrasings")).to_contain_text("egret duty")
    assert "onerror" not in row.inner_text()  # refused by the capture screen
    screenshot(operator, "admin-review-definition")
    operator.context.close()

    admin = served.page("dev-acme-admin")
    admin.get_by_role("button", name="Admin").click()
    expect(admin.get_by_role("heading", name="Egress policies")).to_be_visible()
    expect(admin.get_by_role("heading", name="Concepts awaiting review")).to_be_hidden()
    expect(admin.get_by_role("heading", name="Guard rejections")).to_be_hidden()
    # its own tenant's users and their usage, counts only (ADR 0041)
    expect(admin.get_by_role("heading", name="Users and usage")).to_be_visible()
    alices = admin.locator('#tenant-users tr[data-user-id="alice"]')
    expect(alices).to_have_count(1)
    assert int(alices.locator("td").nth(2).inner_text()) >= 1  # her questions
    users = admin.locator("#tenant-users").inner_text()
    assert "carol" not in users and "egret" not in users.lower()  # globex's user; chat text
    # issue 27 (must show, ADR 0050): the tenant's tokens and cost this month, by model and
    # by top user, from GET /api/admin/usage/tokens
    expect(admin.get_by_role("heading", name="Tokens and cost this month")).to_be_visible()
    expect(admin.locator("#token-totals")).to_contain_text(re.compile(r"\b(1 call|\d+ calls),"))
    expect(admin.locator("#token-models tbody tr").first).to_be_visible()
    top = admin.locator('#token-users tr[data-user-id="alice"]')
    expect(top).to_have_count(1)
    assert int(top.locator("td").nth(1).inner_text()) >= 1  # her calls
    assert "carol" not in admin.locator("#token-users").inner_text()  # another tenant's
    screenshot(admin, "admin-token-usage")
    admin.context.close()


def test_the_review_page_lists_a_near_miss_candidates_and_merges_it_in_one_click(
    served: Served,
):
    """issue 24 (ADR 0049): a near miss is never merged by resolution; the admin page shows the
    existing concept it may duplicate and merges it into that concept in one click."""
    concept = {
        "domain": "WELFARE", "kind": "MATERNITY_BENEFIT_SCHEME", "jurisdiction": "Ireland",
        "prefLabel": "Maternity Benefit scheme",
    }  # fmt: skip
    served.provider.script = [
        Text("Noted."),
        Tool(name=CAPTURE_TOOL_NAME, args={"concepts": [concept]}),
        Done(),
    ]
    alice = served.page("dev-acme-alice")
    try:
        ask(alice, "How does the Maternity Benefit scheme work in Ireland?")
        answered(alice)
    finally:
        served.provider.script = None
    alice.context.close()

    operator = served.page("dev-ops-admin")
    open_admin(operator)
    row = operator.locator(
        '#review-table tr[data-concept-id="WELFARE:IE:MATERNITY_BENEFIT_SCHEME"]'
    )
    deadline = time.monotonic() + 10
    while row.count() == 0 and time.monotonic() < deadline:
        operator.get_by_role("button", name="Refresh").first.click()
        operator.wait_for_timeout(200)
    candidate = row.locator('.candidates li[data-candidate-id="WELFARE:IE:MATERNITY_BENEFIT"]')
    expect(candidate).to_contain_text("Maternity Benefit")
    expect(candidate).to_contain_text("parent child")
    screenshot(operator, "admin-review-candidates")
    candidate.get_by_role(
        "button", name="Merge Maternity Benefit scheme into Maternity Benefit"
    ).click()
    expect(operator.locator("#review-status")).to_contain_text("Merged")
    assert "WELFARE:IE:MATERNITY_BENEFIT_SCHEME" not in review_queue(served)
    audit = httpx.get(served.base + "/api/review/audit", headers=OPERATOR).json()
    assert ("merge", "WELFARE:IE:MATERNITY_BENEFIT_SCHEME", "WELFARE:IE:MATERNITY_BENEFIT") in {
        (a["action"], a["concept"], a["into"]) for a in audit
    }
    operator.context.close()
