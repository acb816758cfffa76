"""Over real HTTP, authenticated by Supabase access tokens only (no API keys): the stable error
codes of bad tokens, and users inside a tenant — another user's private conversation is a 404
for reads and for posting; a shared one is read-only — on SQLite and on PostgreSQL (RLS)."""

import base64
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.server import running_server, sse_events
from tests.support.tokens import AUDIENCE, ISSUER, SigningKey, TokenIssuer, serving_jwks

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ISSUER_KEYS = TokenIssuer(published=[SigningKey.ec("ec-1")])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


ALICE = bearer(ISSUER_KEYS.hs256(ISSUER_KEYS.claims("alice", "acme")))
# bob's token is signed with the project's asymmetric key, checked through the JWKS
BOB = bearer(ISSUER_KEYS.signed(ISSUER_KEYS.published[0], ISSUER_KEYS.claims("bob", "acme")))
CAROL = bearer(ISSUER_KEYS.hs256(ISSUER_KEYS.claims("carol", "globex")))
OPERATOR = bearer(ISSUER_KEYS.hs256(ISSUER_KEYS.claims("op", "regintel", "operator")))
# tenant admins (ADR 0041): acme's through the JWKS (ES256), globex's with the HS256 secret
ACME_ADMIN = bearer(
    ISSUER_KEYS.signed(ISSUER_KEYS.published[0], ISSUER_KEYS.claims("ann", "acme", "admin"))
)
GLOBEX_ADMIN = bearer(ISSUER_KEYS.hs256(ISSUER_KEYS.claims("gus", "globex", "admin")))


@pytest.fixture(params=["sqlite", "postgres"])
def base(request: pytest.FixtureRequest, seeded_data_dir: Path) -> Iterator[str]:
    store: dict[str, Any] = {}
    if request.param == "postgres":
        cluster = request.getfixturevalue("postgres_cluster")
        name = f"users_{uuid.uuid4().hex[:12]}"
        store = {"conversation_store": "postgres", "postgres_dsn": cluster.create_database(name)}
    with serving_jwks(ISSUER_KEYS) as jwks:
        settings = Settings(
            data_dir=seeded_data_dir,
            log_json=False,
            api_keys={},  # tokens only, as in prod
            supabase_jwt_secret=ISSUER_KEYS.secret,
            supabase_jwks_url=jwks.url,
            supabase_jwt_issuer=ISSUER,
            supabase_jwt_audience=AUDIENCE,
            **store,
        )
        with running_server(create_app(settings)) as url:
            yield url


def forged_alg(alg: object) -> str:
    """A token whose header's ``alg`` is not a string (a list, an object): a 500 before any
    check once (issue 30)."""
    segment = ISSUER_KEYS.hs256(ISSUER_KEYS.claims("alice", "acme")).split(".")
    header = base64.urlsafe_b64encode(json.dumps({"alg": alg, "typ": "JWT"}).encode())
    return ".".join([header.rstrip(b"=").decode(), segment[1], segment[2]])


def error_code(response: httpx.Response) -> str:
    return str(response.json()["error"]["code"])


async def chat(client: httpx.AsyncClient, headers: dict[str, str], **body: Any) -> httpx.Response:
    """One turn; the response with its SSE events read (``done`` holds the conversation id)."""
    payload = {"message": "What is the standard rate of VAT in Ireland?", **body}
    async with client.stream("POST", "/api/chat", json=payload, headers=headers) as response:
        if response.status_code == 200:
            events = [e async for e in sse_events(response) if e.event]
            response.extensions["events"] = events
        else:
            await response.aread()
    return response


async def test_bad_tokens_get_stable_codes(base: str) -> None:
    expired = ISSUER_KEYS.hs256(ISSUER_KEYS.claims(exp=1_000_000_000))
    wrong_audience = ISSUER_KEYS.hs256(ISSUER_KEYS.claims(aud="anon"))
    wrong_key = ISSUER_KEYS.hs256(secret="not-the-projects-secret-at-all-32ch")
    no_tenant = ISSUER_KEYS.hs256(ISSUER_KEYS.claims("dave", tenant=None))
    cases = [
        ({}, 401, "unauthenticated"),
        (bearer("dev-acme-alice"), 401, "invalid_token"),  # no API keys here
        (bearer("not.a.jwt"), 401, "invalid_token"),
        (bearer(expired), 401, "token_expired"),
        (bearer(wrong_audience), 401, "invalid_token"),
        (bearer(wrong_key), 401, "invalid_token"),
        (bearer(no_tenant), 403, "no_tenant"),
        (bearer(forged_alg(["HS256"])), 401, "invalid_token"),
        (bearer(forged_alg({"HS256": 1})), 401, "invalid_token"),
        (bearer(forged_alg(None)), 401, "invalid_token"),
    ]
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        for headers, status, code in cases:
            for method, path in [("GET", "/api/conversations"), ("POST", "/api/chat")]:
                response = await client.request(
                    method, path, headers=headers, json={"message": "hi"}
                )
                assert (response.status_code, error_code(response)) == (status, code), (
                    headers,
                    path,
                )
        members = await client.get("/api/review/concepts", headers=ALICE)
        assert (members.status_code, error_code(members)) == (403, "forbidden")
        operators = await client.get("/api/review/concepts", headers=OPERATOR)
        assert operators.status_code == 200


async def test_another_users_conversation_private_then_shared(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        first = await chat(client, ALICE)
        assert first.status_code == 200
        conversation_id = first.extensions["events"][-1].payload["conversationId"]
        path = f"/api/conversations/{conversation_id}"

        # private: bob and carol get what an unknown id gets
        unknown = await client.get("/api/conversations/no-such-id", headers=BOB)
        assert (unknown.status_code, error_code(unknown)) == (404, "not_found")
        for headers in (BOB, CAROL):
            read = await client.get(path, headers=headers)
            assert (read.status_code, error_code(read)) == (404, "not_found")
            posted = await chat(client, headers, conversationId=conversation_id)
            assert (posted.status_code, error_code(posted)) == (404, "not_found")
            shared = await client.patch(path, json={"visibility": "tenant"}, headers=headers)
            assert (shared.status_code, error_code(shared)) == (404, "not_found")
            listed = await client.get("/api/conversations", headers=headers)
            assert conversation_id not in [c["id"] for c in listed.json()]

        own = await client.get(path, headers=ALICE)
        assert own.json()["visibility"] == "private" and own.json()["owned"] is True
        assert len(own.json()["messages"]) == 2  # nobody else's message got in

        # shared with the tenant: bob reads it, never posts into it; carol still sees nothing
        bad = await client.patch(path, json={"visibility": "everyone"}, headers=ALICE)
        assert (bad.status_code, error_code(bad)) == (422, "invalid_input")
        shared = await client.patch(path, json={"visibility": "tenant"}, headers=ALICE)
        assert shared.status_code == 200, shared.text
        assert (shared.json()["visibility"], shared.json()["ownerId"]) == ("tenant", "alice")

        read = await client.get(path, headers=BOB)
        assert read.status_code == 200
        body = read.json()
        assert (body["ownerId"], body["owned"], body["visibility"]) == ("alice", False, "tenant")
        assert [m["role"] for m in body["messages"]] == ["user", "assistant"]
        [item] = [c for c in (await client.get("/api/conversations", headers=BOB)).json()]
        assert (item["id"], item["owned"], item["ownerId"]) == (conversation_id, False, "alice")

        posted = await chat(client, BOB, conversationId=conversation_id)
        assert (posted.status_code, error_code(posted)) == (403, "conversation_read_only")
        unshare = await client.patch(path, json={"visibility": "private"}, headers=BOB)
        assert (unshare.status_code, error_code(unshare)) == (403, "conversation_read_only")
        for check in (
            client.get(path, headers=CAROL),
            chat(client, CAROL, conversationId=conversation_id),
        ):
            response = await check
            assert (response.status_code, error_code(response)) == (404, "not_found")

        # the owner goes on posting; the conversation holds only alice's turns
        again = await chat(client, ALICE, conversationId=conversation_id, message="And reduced?")
        assert again.status_code == 200
        assert len((await client.get(path, headers=BOB)).json()["messages"]) == 4

        # private again: bob is back to a 404
        await client.patch(path, json={"visibility": "private"}, headers=ALICE)
        assert (await client.get(path, headers=BOB)).status_code == 404
        assert (await client.get("/api/conversations", headers=BOB)).json() == []


REVIEW = [
    ("GET", "/api/review/concepts", None),
    ("GET", "/api/review/audit", None),
    ("POST", "/api/review/concepts/TAX:IE:ANYTHING/confirm", {"version": "v"}),
    ("POST", "/api/review/concepts/TAX:IE:ANYTHING/reject", {}),
    ("POST", "/api/review/concepts/TAX:IE:ANYTHING/merge", {"into": "TAX:IE:VAT"}),
    ("GET", "/api/admin/guard-rejections", None),
]


async def test_a_tenant_admin_is_not_the_graph_operator(base: str) -> None:
    """issue 30: a token with ``tenant_id: acme`` and ``role: admin`` listed the concepts
    captured from globex's chats with their phrasings, rejected them for every tenant, and
    globex's admin then read acme's admin's user id in the review audit. Now the shared
    graph's review is the platform ``operator``'s; a tenant ``admin`` manages its own
    tenant's egress policies only."""
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        # globex's chat captures a concept (quarantined: awaiting the operator)
        captured = await chat(client, CAROL, message="What is the Heron levy in Ireland?")
        assert captured.status_code == 200
        for admin in (ACME_ADMIN, GLOBEX_ADMIN):
            for method, path, body in REVIEW:
                refused = await client.request(method, path, json=body, headers=admin)
                assert (refused.status_code, error_code(refused)) == (403, "forbidden"), path
        queue = await client.get("/api/review/concepts", headers=OPERATOR)
        assert queue.status_code == 200
        audit = await client.get("/api/review/audit", headers=OPERATOR)
        assert audit.status_code == 200

        # each admin manages its own tenant, never the other's (PostgreSQL: RLS as well)
        acme_policy = {"defaultMode": "report-only", "allowedProviders": ["extractive"]}
        saved = await client.put("/api/admin/egress/tenant", json=acme_policy, headers=ACME_ADMIN)
        assert saved.status_code == 200 and saved.json()["tenantId"] == "acme"
        theirs = (await client.get("/api/admin/egress/tenant", headers=GLOBEX_ADMIN)).json()
        assert (theirs["tenantId"], theirs["defaultMode"]) == ("globex", None)
        mine = (await client.get("/api/admin/egress/tenant", headers=ACME_ADMIN)).json()
        assert (mine["tenantId"], mine["defaultMode"]) == ("acme", "report-only")
        # the operator administers its own (platform) tenant only
        ops = (await client.get("/api/admin/egress/tenant", headers=OPERATOR)).json()
        assert (ops["tenantId"], ops["defaultMode"]) == ("regintel", None)
        # a member is neither
        for method, path, body in [*REVIEW, ("GET", "/api/admin/egress/tenant", None)]:
            refused = await client.request(method, path, json=body, headers=ALICE)
            assert (refused.status_code, error_code(refused)) == (403, "forbidden"), path
        sessions = {
            who: (await client.get("/api/session", headers=headers)).json()["role"]
            for who, headers in (("ann", ACME_ADMIN), ("op", OPERATOR), ("alice", ALICE))
        }
        assert sessions == {"ann": "admin", "op": "operator", "alice": "member"}


async def test_tenant_admins_see_their_own_tenants_users_from_their_tokens(base: str) -> None:
    """Issue 30 item 2, users and usage (ADR 0041): the role and the tenant come from the
    token's ``app_metadata`` only; each admin lists its own tenant's users, never another's."""
    forged = ISSUER_KEYS.claims("mallory", "acme", user_metadata={"role": "admin"})
    mallory = bearer(ISSUER_KEYS.hs256(forged))
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        for headers in (ALICE, BOB, CAROL):
            assert (await chat(client, headers)).status_code == 200
        for path in ("/api/admin/users", "/api/admin/usage"):
            for member in (ALICE, mallory):  # a role in user_metadata is no role
                refused = await client.get(path, headers=member)
                assert (refused.status_code, error_code(refused)) == (403, "forbidden"), path
            acme = (await client.get(path, headers=ACME_ADMIN)).json()
            assert acme["tenantId"] == "acme"
            assert [u["userId"] for u in acme["users"]] == ["alice", "bob"], path
            globex = await client.get(path, headers=GLOBEX_ADMIN)
            assert [u["userId"] for u in globex.json()["users"]] == ["carol"], path
            assert "alice" not in globex.text and "ann" not in globex.text
        usage = (await client.get("/api/admin/usage", headers=ACME_ADMIN)).json()["users"]
        assert [(u["userMessages"], u["answers"]) for u in usage] == [(1, 1), (1, 1)]
