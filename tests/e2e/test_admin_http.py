"""The admin page's endpoints over real HTTP (``api/routes/admin.py``): egress policies, users
and usage for a tenant's admins, of their own tenant, never another's (SQLite, and PostgreSQL
with RLS); guard rejections by type, never by value, for the platform operator only (ADR 0041).
"""

import json
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from egress.wire import Done, LlmRequest, StreamChunk, Text, Tool, Usage
from engine.concepts import CAPTURE_TOOL_NAME
from engine.lexicon import ConceptLexicon
from tests.support.server import running_server, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

KEYS = {
    "k-acme-admin": "acme:ann:admin",
    "k-acme-alice": "acme:alice",
    "k-acme-bob": "acme:bob",
    "k-globex-gina": "globex:gina",
    "k-globex-admin": "globex:gus:admin",
    "k-ops": "regintel:olga:operator",
}
OPERATOR = {"Authorization": "Bearer k-ops"}
ACME_ADMIN = {"Authorization": "Bearer k-acme-admin"}
ALICE = {"Authorization": "Bearer k-acme-alice"}
BOB = {"Authorization": "Bearer k-acme-bob"}
GINA = {"Authorization": "Bearer k-globex-gina"}
GLOBEX_ADMIN = {"Authorization": "Bearer k-globex-admin"}
LEAKED = "vat@revenue.gov"  # term-shaped: the capture screen passes it, the guard refuses it
LEAKY_CONCEPT = "TAX:IE:HERON_LEVY"


@dataclass
class LeakyModel:
    """Answers, and captures a concept with an e-mail address among its labels."""

    name: str = "extractive"

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        yield Text("Noted.")
        concept = {
            "domain": "TAX",
            "kind": "HERON_LEVY",
            "jurisdiction": "IE",
            "prefLabel": "Heron levy",
            "altLabels": [LEAKED],
        }
        yield Tool(name=CAPTURE_TOOL_NAME, args={"concepts": [concept]})
        yield Done(Usage(input_tokens=1, output_tokens=1))

    async def aclose(self) -> None:
        return None


@pytest.fixture(params=["sqlite", "postgres"])
def base(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    store: dict[str, Any] = {}
    if request.param == "postgres":
        cluster = request.getfixturevalue("postgres_cluster")
        name = f"admin_{uuid.uuid4().hex[:12]}"
        store = {"conversation_store": "postgres", "postgres_dsn": cluster.create_database(name)}
    settings = Settings(data_dir=tmp_path / "data", log_json=False, api_keys=KEYS, **store)
    app = create_app(settings, lexicon=ConceptLexicon(), providers={"extractive": LeakyModel()})
    with running_server(app) as url:
        yield url


def error_code(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, str(response.json()["error"]["code"])


ENDPOINTS = [
    ("GET", "/api/admin/guard-rejections", None),
    ("GET", "/api/admin/egress/tenant", None),
    ("PUT", "/api/admin/egress/tenant", {"defaultMode": "enforce"}),
    ("GET", "/api/admin/egress/users", None),
    ("PUT", "/api/admin/egress/users/bob", {"mode": "enforce"}),
    ("GET", "/api/admin/users", None),
    ("GET", "/api/admin/usage", None),
]


async def test_members_and_strangers_are_refused(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        for method, path, body in ENDPOINTS:
            anonymous = await client.request(method, path, json=body)
            assert error_code(anonymous) == (401, "unauthenticated"), path
            member = await client.request(method, path, json=body, headers=ALICE)
            assert error_code(member) == (403, "forbidden"), path
        # the member's refused writes changed nothing
        policy = (await client.get("/api/admin/egress/tenant", headers=ACME_ADMIN)).json()
        assert policy["defaultMode"] is None
        users = (await client.get("/api/admin/egress/users", headers=ACME_ADMIN)).json()
        assert users == {"tenantId": "acme", "users": []}


async def test_an_operator_edits_the_tenant_policy_and_bad_input_is_refused(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        start = await client.get("/api/admin/egress/tenant", headers=ACME_ADMIN)
        assert start.json() == {
            "tenantId": "acme", "globalDefault": "enforce", "defaultMode": None,
            "allowOffMode": False, "allowedProviders": [], "allowedModels": [],
        }  # fmt: skip
        wanted = {
            "defaultMode": "report-only",
            "allowOffMode": True,
            "allowedProviders": ["openai", "extractive"],
            "allowedModels": ["gpt-4o-mini", "meta-llama/Llama-3.1-8B"],
        }
        saved = await client.put("/api/admin/egress/tenant", json=wanted, headers=ACME_ADMIN)
        assert saved.status_code == 200, saved.text
        read = (await client.get("/api/admin/egress/tenant", headers=ACME_ADMIN)).json()
        assert read["defaultMode"] == "report-only" and read["allowOffMode"] is True
        assert read["allowedProviders"] == ["extractive", "openai"]
        assert read["allowedModels"] == ["gpt-4o-mini", "meta-llama/Llama-3.1-8B"]

        bad = [
            {"defaultMode": "loose"},
            {"defaultMode": "enforce", "tenantId": "globex"},  # no tenant in the body
            {"allowedProviders": ["openai, anthropic"]},
            {"allowedProviders": "openai"},
            {"allowOffMode": "sometimes"},
        ]
        for body in bad:
            refused = await client.put("/api/admin/egress/tenant", json=body, headers=ACME_ADMIN)
            assert error_code(refused) == (422, "invalid_input"), body
        for body in ({"mode": "loose"}, {"mode": "off", "extra": 1}, {}):
            refused = await client.put("/api/admin/egress/users/bob", json=body, headers=ACME_ADMIN)
            assert error_code(refused) == (422, "invalid_input"), body
        # nothing refused was written
        again = (await client.get("/api/admin/egress/tenant", headers=ACME_ADMIN)).json()
        assert again == read


async def test_user_policies_are_listed_with_their_effective_mode(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        for user, mode in [("bob", "report-only"), ("alice", "off"), ("carl", "enforce")]:
            put = await client.put(
                f"/api/admin/egress/users/{user}", json={"mode": mode}, headers=ACME_ADMIN
            )
            assert put.status_code == 200, put.text
        listed = (await client.get("/api/admin/egress/users", headers=ACME_ADMIN)).json()
        # the tenant enforces and does not allow off: alice's "off" is refused, bob is clamped
        assert listed["users"] == [
            {"userId": "alice", "mode": "off", "effectiveMode": "refused"},
            {"userId": "bob", "mode": "report-only", "effectiveMode": "enforce"},
            {"userId": "carl", "mode": "enforce", "effectiveMode": "enforce"},
        ]
        await client.put(
            "/api/admin/egress/tenant",
            json={"defaultMode": "enforce", "allowOffMode": True},
            headers=ACME_ADMIN,
        )
        cleared = await client.put(
            "/api/admin/egress/users/carl", json={"mode": None}, headers=ACME_ADMIN
        )
        assert cleared.json() == {"userId": "carl", "mode": None, "effectiveMode": "enforce"}
        listed = (await client.get("/api/admin/egress/users", headers=ACME_ADMIN)).json()
        assert [(u["userId"], u["effectiveMode"]) for u in listed["users"]] == [
            ("alice", "off"),
            ("bob", "report-only"),
            ("carl", "enforce"),
        ]


async def test_an_operator_never_sees_or_changes_another_tenants_policies(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        acme = {"defaultMode": "off", "allowOffMode": True, "allowedProviders": ["openai"]}
        assert (
            await client.put("/api/admin/egress/tenant", json=acme, headers=ACME_ADMIN)
        ).status_code == 200
        await client.put("/api/admin/egress/users/alice", json={"mode": "off"}, headers=ACME_ADMIN)

        theirs = (await client.get("/api/admin/egress/tenant", headers=GLOBEX_ADMIN)).json()
        assert theirs["tenantId"] == "globex"
        assert (theirs["defaultMode"], theirs["allowedProviders"]) == (None, [])
        users = (await client.get("/api/admin/egress/users", headers=GLOBEX_ADMIN)).json()
        assert users == {"tenantId": "globex", "users": []}

        # globex's operator writes: into globex, whatever the user id names
        globex = {"defaultMode": "enforce", "allowedProviders": ["anthropic"]}
        await client.put("/api/admin/egress/tenant", json=globex, headers=GLOBEX_ADMIN)
        await client.put(
            "/api/admin/egress/users/alice", json={"mode": "enforce"}, headers=GLOBEX_ADMIN
        )
        mine = (await client.get("/api/admin/egress/tenant", headers=ACME_ADMIN)).json()
        assert (mine["defaultMode"], mine["allowedProviders"]) == ("off", ["openai"])
        [alice] = (await client.get("/api/admin/egress/users", headers=ACME_ADMIN)).json()["users"]
        assert (alice["userId"], alice["mode"]) == ("alice", "off")
        [theirs_alice] = (await client.get("/api/admin/egress/users", headers=GLOBEX_ADMIN)).json()[
            "users"
        ]
        assert theirs_alice["mode"] == "enforce"


async def test_guard_rejections_are_shown_by_type_never_by_value(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        before = (await client.get("/api/admin/guard-rejections", headers=OPERATOR)).json()
        assert before["counts"] == {} and before["total"] == 0 and before["recent"] == []
        body = {"message": "Is there a heron levy in Ireland?"}
        async with client.stream("POST", "/api/chat", json=body, headers=ALICE) as response:
            assert response.status_code == 200
            events = [e async for e in sse_events(response)]
        warnings = [e.payload for e in events if e.event == "warning"]
        assert "graph_pii_rejected" in json.dumps(warnings)

        # the shared graph's rejections are the platform operator's business, not a tenant's
        for admin in (ACME_ADMIN, GLOBEX_ADMIN):
            refused = await client.get("/api/admin/guard-rejections", headers=admin)
            assert error_code(refused) == (403, "forbidden")
        got = await client.get("/api/admin/guard-rejections", headers=OPERATOR)
        assert got.status_code == 200
        report = got.json()
        assert report["counts"]["graph_pii_rejected"] >= 1
        assert report["total"] == sum(report["counts"].values())
        latest = report["recent"][0]
        assert set(latest) == {"code", "property", "entityTypes", "at"}
        assert latest["code"] == "graph_pii_rejected"
        assert latest["entityTypes"] == ["EMAIL_ADDRESS"]
        assert latest["at"] >= report["since"]
        text = got.text.lower()
        for leaked in (LEAKED, "revenue.gov", LEAKY_CONCEPT, "heron"):
            assert leaked.lower() not in text, leaked
        limited = await client.get(
            "/api/admin/guard-rejections", params={"limit": 0}, headers=OPERATOR
        )
        assert limited.json()["recent"] == []
        too_many = await client.get(
            "/api/admin/guard-rejections", params={"limit": 501}, headers=OPERATOR
        )
        assert error_code(too_many) == (422, "invalid_input")


async def ask(client: httpx.AsyncClient, headers: dict[str, str], text: str) -> None:
    async with client.stream("POST", "/api/chat", json={"message": text}, headers=headers) as r:
        assert r.status_code == 200
        events = [e async for e in sse_events(r)]
    assert events[-1].event == "done", events[-1]


async def test_a_tenant_admin_sees_its_own_users_and_usage_never_another_tenants(
    base: str,
) -> None:
    question = "Is there a heron levy in Ireland?"  # reaches the model (see the test above)
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        before = await client.get("/api/admin/users", headers=ACME_ADMIN)
        assert before.json() == {"tenantId": "acme", "users": []}
        await ask(client, ALICE, question)
        await ask(client, ALICE, "And in the UK?")
        await ask(client, BOB, question)
        await ask(client, GINA, "gina's private question about a heron levy")
        await client.put("/api/admin/egress/users/alice", json={"mode": "report-only"},
                         headers=ACME_ADMIN)  # fmt: skip

        got = await client.get("/api/admin/users", headers=ACME_ADMIN)
        assert got.status_code == 200, got.text
        users = got.json()
        assert users["tenantId"] == "acme"
        assert [(u["userId"], u["conversations"]) for u in users["users"]] == [
            ("alice", 2),
            ("bob", 1),
        ]
        alice, bob = users["users"]
        assert (alice["egressMode"], alice["effectiveMode"]) == ("report-only", "enforce")
        assert (bob["egressMode"], bob["effectiveMode"]) == (None, "enforce")
        assert bob["lastActivity"] > alice["lastActivity"]  # bob asked last
        for absent in ("gina", "globex", "heron", "UK?"):  # no other tenant, no chat text
            assert absent not in got.text, absent

        usage = (await client.get("/api/admin/usage", headers=ACME_ADMIN)).json()
        assert usage["tenantId"] == "acme" and usage["since"] is None
        counts = {
            u["userId"]: (u["conversations"], u["userMessages"], u["answers"], u["blockedCalls"])
            for u in usage["users"]
        }
        assert counts == {"alice": (2, 2, 2, 0), "bob": (1, 1, 1, 0)}
        assert all(u["modelCalls"] >= 1 for u in usage["users"])
        assert "gina" not in json.dumps(usage)

        # globex's admin: globex's user only, nothing of acme's users or admin
        for path in ("/api/admin/users", "/api/admin/usage"):
            theirs = await client.get(path, headers=GLOBEX_ADMIN)
            assert theirs.status_code == 200, theirs.text
            assert theirs.json()["tenantId"] == "globex"
            assert [u["userId"] for u in theirs.json()["users"]] == ["gina"], path
            for absent in ("alice", "bob", "ann", "acme"):
                assert absent not in theirs.text, (path, absent)

        # the platform operator is the admin of its own tenant only
        ops = (await client.get("/api/admin/users", headers=OPERATOR)).json()
        assert ops == {"tenantId": "regintel", "users": []}

        # a window after the chats: nobody; a window without a zone: refused
        future = "2999-01-01T00:00:00Z"
        later = await client.get("/api/admin/usage", params={"since": future}, headers=ACME_ADMIN)
        assert later.json()["users"] == []
        naive = await client.get(
            "/api/admin/usage", params={"since": "2026-01-01T00:00:00"}, headers=ACME_ADMIN
        )
        assert error_code(naive) == (422, "invalid_input")
        for params in ({"since": "yesterday"}, {"limit": 0}):
            bad = await client.get("/api/admin/usage", params=params, headers=ACME_ADMIN)
            assert error_code(bad) == (422, "invalid_input"), params
