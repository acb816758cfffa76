"""Email + password sign-in with Supabase Auth, in a real headless Chromium (Debian's
``chromium``, driven by Playwright), against a server that runs like production: ``prod``, no
API keys, Supabase access tokens only. Supabase Auth is a local stand-in of its token endpoint
(``tests/support/gotrue.py``) that signs HS256 tokens with the secret the server verifies."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import jwt
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from api.app import create_app
from api.settings import Settings
from tests.support.gotrue import ANON_KEY, GoTrueStandIn, GoTrueUser, serving_gotrue
from tests.support.server import running_server
from tests.support.tokens import AUDIENCE, ISSUER, TokenIssuer

pytestmark = pytest.mark.e2e

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
LIFETIME = 8  # seconds: the page refreshes half-way, so a refresh comes within the test
ALICE = GoTrueUser("alice@acme.example", "correct horse battery", "alice", "acme")


@dataclass
class Served:
    base: str
    auth: GoTrueStandIn
    browser: Browser


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    if not CHROMIUM.exists():
        pytest.fail("Debian's chromium is missing: run `make system-deps` (installs it with apt)")
    issuer = TokenIssuer()
    stand_in = GoTrueStandIn(issuer, users=[ALICE], lifetime=LIFETIME)
    with serving_gotrue(stand_in) as auth:
        settings = Settings(
            environment="prod",
            data_dir=tmp_path_factory.mktemp("sign-in") / "data",
            log_json=False,
            supabase_jwt_secret=issuer.secret,
            supabase_jwt_issuer=ISSUER,
            supabase_jwt_audience=AUDIENCE,
            supabase_jwt_leeway_seconds=0,  # an expired token is refused at once
            supabase_url=auth.url,
            supabase_anon_key=ANON_KEY,
        )
        with running_server(create_app(settings)) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
            try:
                yield Served(base, auth, browser)
            finally:
                browser.close()


def stored_token(page: Page) -> str:
    token: str = page.evaluate("() => sessionStorage.getItem('regintel.token') || ''")
    return token


def test_the_public_config_and_the_pages_policy_name_supabase_and_no_secret(served: Served):
    config = httpx.get(served.base + "/app/config.json").json()
    assert config == {
        "environment": "prod",
        "apiKeys": False,
        "devKeys": False,
        "supabase": {"url": served.auth.url, "anonKey": ANON_KEY},
    }
    page = httpx.get(served.base + "/")
    policy = page.headers["content-security-policy"]
    assert f"connect-src 'self' {served.auth.url};" in policy
    assert "default-src 'self'" in policy and "script-src 'self';" in policy
    assert served.auth.issuer.secret not in page.text + str(config)


def test_sign_in_with_email_and_password_refreshes_the_token_and_signs_out(served: Served):
    page = served.browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
    page.set_default_timeout(30_000)
    origins: set[str] = set()
    page.on("request", lambda request: origins.add("/".join(request.url.split("/")[:3])))
    page.goto(served.base + "/")
    expect(page.get_by_label("Email")).to_be_visible()
    expect(page.get_by_label("API key or session token")).to_be_hidden()  # prod: tokens only
    expect(page.locator("#dev-keys")).to_be_hidden()

    # A wrong password: GoTrue's message, shown as an alert; nothing stored.
    page.get_by_label("Email").fill(ALICE.email)
    page.get_by_label("Password").fill("wrong password")
    page.get_by_role("button", name="Sign in with email").click()
    expect(page.get_by_role("alert")).to_contain_text("Invalid login credentials")
    expect(page.locator("#workspace")).to_be_hidden()
    assert stored_token(page) == "" and served.auth.grants == []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "sign-in-supabase-error.png"))

    # The right one, typed and submitted with the keyboard.
    page.get_by_label("Email").fill(ALICE.email)
    page.get_by_label("Password").fill(ALICE.password)
    page.get_by_label("Password").press("Enter")
    expect(page.locator("#whoami-name")).to_have_text("alice · acme")
    expect(page.locator("#workspace")).to_be_visible()
    expect(page.get_by_role("button", name="Admin")).to_be_hidden()  # a member
    first = served.auth.issued[-1]
    assert stored_token(page) == first and served.auth.grants == ["password"]

    # Refreshed before it expires: the page's requests carry the new token.
    page.wait_for_function("() => window.regintel.auth.refreshes >= 1", timeout=LIFETIME * 1000)
    assert served.auth.grants[:2] == ["password", "refresh_token"]
    current = stored_token(page)
    assert current != first and current in served.auth.issued
    assert page.evaluate("() => window.regintel.api.token") == current
    # ... and past the first token's expiry the page still works, while that token does not.
    time.sleep(max(0.0, expiry(first) + 1 - time.time()))
    expired = httpx.get(served.base + "/api/session", headers={"Authorization": f"Bearer {first}"})
    assert (expired.status_code, expired.json()["error"]["code"]) == (401, "token_expired")
    page.get_by_role("button", name="New conversation").click()
    page.get_by_label("Your question").fill("What is the wealth tax rate in France?")
    page.get_by_role("button", name="Ask").click()
    expect(page.locator(".message.assistant .refusal")).to_be_visible()
    expect(page.locator("#sign-in")).to_be_hidden()

    # A reload keeps the session (this tab's sessionStorage); sign-out ends it at Supabase too.
    page.reload()
    expect(page.locator("#whoami-name")).to_have_text("alice · acme")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("Email")).to_be_visible()
    expect(page.locator("#workspace")).to_be_hidden()
    assert stored_token(page) == ""
    assert page.evaluate("() => sessionStorage.getItem('regintel.supabase')") is None
    deadline = time.monotonic() + 5
    while served.auth.logouts < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert served.auth.logouts == 1
    # Signing in again starts clean: one view, one question sent per question asked.
    page.get_by_label("Email").fill(ALICE.email)
    page.get_by_label("Password").fill(ALICE.password)
    page.get_by_role("button", name="Sign in with email").click()
    expect(page.locator("#whoami-name")).to_have_text("alice · acme")
    expect(page.locator(".message")).to_have_count(0)
    page.get_by_label("Your question").fill("What is the wealth tax rate in France?")
    page.get_by_role("button", name="Ask").click()
    expect(page.locator(".message.assistant .refusal")).to_be_visible()
    expect(page.locator(".message.user")).to_have_count(1)
    # the page spoke to its own server and to Supabase Auth, nothing else
    assert origins <= {served.base, served.auth.url}, origins
    page.context.close()


def expiry(token: str) -> float:
    return float(jwt.decode(token, options={"verify_signature": False})["exp"])
