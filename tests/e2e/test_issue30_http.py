"""Issue 30's low findings, over real HTTP against a ``prod`` server (Supabase HS256 tokens),
on SQLite and on PostgreSQL: control characters in a message are a 422 before anything is
stored; titles show no bidi or control characters; an echoed id is cut; every ``/api/*``
answer is ``no-store``; the first ``Content-Type`` is the one the depth guard reads; ``/docs``
(a CDN's scripts outside the app's CSP) is off in ``prod``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.errors import MAX_MESSAGE_CHARS
from api.settings import Settings
from tests.support.server import running_server, sse_events
from tests.support.tokens import AUDIENCE, ISSUER, TokenIssuer

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

KEYS = TokenIssuer()


def bearer(user: str, tenant: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS.hs256(KEYS.claims(user, tenant))}"}


@pytest.fixture(params=["sqlite", "postgres"])
def base(request: pytest.FixtureRequest, seeded_data_dir: Path) -> Iterator[str]:
    store: dict[str, Any] = {}
    if request.param == "postgres":
        cluster = request.getfixturevalue("postgres_cluster")
        name = f"issue30_{uuid.uuid4().hex[:12]}"
        store = {"conversation_store": "postgres", "postgres_dsn": cluster.create_database(name)}
    settings = Settings(
        environment="prod",
        data_dir=seeded_data_dir,
        log_json=False,
        supabase_jwt_secret=KEYS.secret,
        supabase_jwt_issuer=ISSUER,
        supabase_jwt_audience=AUDIENCE,
        **store,
    )
    with running_server(create_app(settings)) as url:
        yield url


async def test_a_message_with_nul_or_another_control_character_is_422_and_stores_nothing(base):
    """On PostgreSQL a NUL once answered 503 ``conversation_store_unavailable`` and left an
    empty conversation behind each time."""
    user = bearer(f"u{uuid.uuid4().hex[:8]}", "acme")
    async with httpx.AsyncClient(base_url=base, timeout=60, headers=user) as client:
        for message in ("VAT\x00 rate?", "VAT\x1b[31m rate?", "a\x07b", "del\x7f"):
            response = await client.post("/api/chat", json={"message": message})
            assert response.status_code == 422, (message, response.text)
            assert response.json()["error"]["code"] == "invalid_input"
            assert "control character" in response.json()["error"]["message"]
        assert (await client.get("/api/conversations")).json() == []  # nothing stored
        # tabs and line breaks are text: a question over two lines is answered
        async with client.stream(
            "POST", "/api/chat", json={"message": "What is the VAT rate\tin Ireland?\r\nThanks"}
        ) as ok:
            assert ok.status_code == 200
            events = [e async for e in sse_events(ok) if e.event]
        assert events[-1].event == "done"


async def test_titles_show_no_bidi_override_and_echoed_ids_are_cut(base):
    user = bearer(f"u{uuid.uuid4().hex[:8]}", "acme")
    async with httpx.AsyncClient(base_url=base, timeout=60, headers=user) as client:
        question = "What is the \u202evat\u202c rate \u2066in\u2069 Ireland?"
        async with client.stream("POST", "/api/chat", json={"message": question}) as response:
            assert response.status_code == 200
            [e async for e in sse_events(response)]
        [listed] = (await client.get("/api/conversations")).json()
        assert listed["title"] == "What is the vat rate in Ireland?"

        long_id = "x" * 10_000
        unknown = await client.get(f"/api/conversations/{long_id}")
        assert unknown.status_code in (404, 422)
        assert len(unknown.json()["error"]["message"]) <= MAX_MESSAGE_CHARS
        assert len(unknown.content) < 1000


async def test_api_answers_are_no_store_and_docs_are_off_in_prod(base):
    user = bearer("alice", "acme")
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        for response in (
            await client.get("/api/conversations", headers=user),
            await client.get("/api/session", headers=user),
            await client.get("/api/conversations"),  # 401
            await client.get("/api/graph/nodes/NOPE/neighbourhood", headers=user),
        ):
            assert response.headers["cache-control"] == "no-store", response.request.url
            assert response.headers["x-content-type-options"] == "nosniff"
        assert (await client.get("/docs")).status_code == 404
        assert (await client.get("/redoc")).status_code == 404
        assert (await client.get("/openapi.json")).status_code == 200  # the schema itself stays


async def test_the_first_content_type_is_the_one_the_depth_guard_reads(base):
    """Two ``Content-Type`` headers: the app parses the first (JSON); the guard once read the
    last (text/plain) and let a 30,000-deep body through to the parser."""
    user = bearer("alice", "acme")
    deep = b'{"visibility": ' + b"[" * 30_000 + b"]" * 30_000 + b"}"
    headers = [
        *user.items(),
        ("Content-Type", "application/json"),
        ("Content-Type", "text/plain"),
    ]
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        for method, path in (("PATCH", "/api/conversations/nope"), ("POST", "/api/chat")):
            response = await client.request(method, path, content=deep, headers=headers)
            assert (response.status_code, response.json()["error"]["code"]) == (
                400,
                "json_too_deep",
            ), path


def test_docs_stay_in_dev(seeded_data_dir):
    app = create_app(Settings(data_dir=seeded_data_dir, log_json=False))
    assert {"/docs", "/redoc"} <= {getattr(r, "path", "") for r in app.routes}
