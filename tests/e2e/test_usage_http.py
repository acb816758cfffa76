"""Token usage over real HTTP (``api/usage.py``, ``api/routes/usage.py``, ADR 0050) on SQLite
and on PostgreSQL with RLS: every turn's tokens (the provider's own usage) are priced with the
configured table and recorded; a user sees their own today and this month, a tenant admin the
tenant's totals, models and top users, never another tenant's."""

import sqlite3
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from api.app import create_app
from api.settings import Settings
from egress.wire import Done, LlmRequest, StreamChunk, Text, Usage
from engine.lexicon import ConceptLexicon
from tests.support.server import running_server, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

KEYS = {
    "k-acme-admin": "acme:ann:admin",
    "k-acme-alice": "acme:alice",
    "k-acme-bob": "acme:bob",
    "k-globex-admin": "globex:gus:admin",
    "k-globex-gina": "globex:gina",
}
ADMIN = {"Authorization": "Bearer k-acme-admin"}
ALICE = {"Authorization": "Bearer k-acme-alice"}
BOB = {"Authorization": "Bearer k-acme-bob"}
GLOBEX_ADMIN = {"Authorization": "Bearer k-globex-admin"}
GLOBEX_GINA = {"Authorization": "Bearer k-globex-gina"}
PRICES = {"extractive/extractive-v1": (2.0, 10.0)}  # per million input / output tokens


@dataclass
class CountingModel:
    """Reports 1,000 input and 200 output tokens a turn, as an SDK's usage would; counts the
    calls that reach it."""

    name: str = "extractive"
    calls: int = 0

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        self.calls += 1
        yield Text("An answer.")
        yield Done(Usage(input_tokens=1000, output_tokens=200))

    async def aclose(self) -> None:
        return None


@contextmanager
def serve(
    request: pytest.FixtureRequest, tmp_path: Path, model: CountingModel, **extra: Any
) -> Iterator[str]:
    store: dict[str, Any] = {}
    if request.param == "postgres":
        cluster = request.getfixturevalue("postgres_cluster")
        name = f"usage_{uuid.uuid4().hex[:12]}"
        store = {"conversation_store": "postgres", "postgres_dsn": cluster.create_database(name)}
    settings = Settings(
        data_dir=tmp_path / "data", log_json=False, api_keys=KEYS,
        usage_prices_per_million=PRICES, **store, **extra,
    )  # fmt: skip
    app = create_app(settings, lexicon=ConceptLexicon(), providers={"extractive": model})
    with running_server(app) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def base(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with serve(request, tmp_path, CountingModel()) as url:
        yield url


@dataclass
class Quoted:
    url: str
    model: CountingModel


@pytest.fixture(params=["sqlite", "postgres"])
def quoted(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Quoted]:
    """acme may use 1,500 tokens a month (a turn is 1,200), with a warning from 1,000; every
    other tenant 100,000."""
    model = CountingModel()
    quotas = {"acme": {"tokens": 1500, "softTokens": 1000}, "*": {"tokens": 100_000}}
    with serve(request, tmp_path, model, usage_monthly_quotas=quotas) as url:
        yield Quoted(url, model)


async def chat(client: httpx.AsyncClient, headers: dict[str, str], message: str) -> list[str]:
    """One turn; the codes of its warnings."""
    async with client.stream(
        "POST", "/api/chat", json={"message": message}, headers=headers
    ) as response:
        assert response.status_code == 200
        events = [e async for e in sse_events(response)]
    assert events[-1].event == "done", events[-1]
    return [str(e.payload["code"]) for e in events if e.event == "warning"]


async def test_turns_are_priced_and_shown_to_the_user_and_their_admin(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        empty = (await client.get("/api/usage", headers=ALICE)).json()
        assert empty["today"]["totals"] == {
            "turns": 0, "inputTokens": 0, "outputTokens": 0, "costMicros": 0
        }  # fmt: skip
        await chat(client, ALICE, "What is the VAT rate in Ireland?")
        await chat(client, ALICE, "And for food?")
        await chat(client, BOB, "What is PRSI?")

        mine = (await client.get("/api/usage", headers=ALICE)).json()
        assert mine["userId"] == "alice"
        today = datetime.now(UTC).date()
        assert mine["today"]["since"] == today.isoformat()
        assert mine["month"]["since"] == today.replace(day=1).isoformat()
        # 2 turns x (1,000 x 2.0 + 200 x 10.0) = 8,000 micro-units
        expected = {"turns": 2, "inputTokens": 2000, "outputTokens": 400, "costMicros": 8000}
        assert mine["today"]["totals"] == expected
        assert mine["month"]["totals"] == expected
        assert mine["today"]["byModel"] == [
            {"provider": "extractive", "model": "extractive-v1", **expected}
        ]

        tenant = await client.get("/api/admin/usage/tokens", headers=ADMIN)
        assert tenant.status_code == 200
        body = tenant.json()
        assert body["tenantId"] == "acme"
        assert body["totals"]["turns"] == 3 and body["totals"]["costMicros"] == 12000
        assert [(u["userId"], u["costMicros"]) for u in body["topUsers"]] == [
            ("alice", 8000), ("bob", 4000)
        ]  # fmt: skip
        top = await client.get("/api/admin/usage/tokens?top=1", headers=ADMIN)
        assert [u["userId"] for u in top.json()["topUsers"]] == ["alice"]

        assert (await client.get("/api/admin/usage/tokens", headers=ALICE)).status_code == 403
        assert (await client.get("/api/usage")).status_code == 401
        globex = (await client.get("/api/admin/usage/tokens", headers=GLOBEX_ADMIN)).json()
        assert globex["totals"]["turns"] == 0 and globex["topUsers"] == []
        later = await client.get("/api/admin/usage/tokens?since=2999-01-01", headers=ADMIN)
        assert later.json()["totals"]["turns"] == 0
        metrics = (await client.get("/metrics")).text  # by provider and model, no tenant
        labels = 'direction="input",model="extractive-v1",provider="extractive"'
        assert f"regintel_llm_tokens_total{{{labels}}} 3000.0" in metrics
        assert "regintel_llm_cost_micros_total" in metrics and "acme" not in metrics


async def turn(client: httpx.AsyncClient, headers: dict[str, str], message: str) -> str:
    """One turn that must succeed; its conversation's id."""
    async with client.stream(
        "POST", "/api/chat", json={"message": message}, headers=headers
    ) as response:
        assert response.status_code == 200
        events = [e async for e in sse_events(response)]
    assert events[-1].event == "done", events[-1]
    return str(events[-1].payload["conversationId"])


def refusal(response: httpx.Response) -> dict[str, Any]:
    """A 429 ``quota_exceeded``'s error, checked: the reset time in the body and the header."""
    assert response.status_code == 429, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == "quota_exceeded"
    today = datetime.now(UTC).date()
    reset = date(today.year + today.month // 12, today.month % 12 + 1, 1)
    assert error["resetsAt"] == f"{reset.isoformat()}T00:00:00Z"
    assert error["resetsAt"] in error["message"]
    assert 0 < int(response.headers["Retry-After"]) <= 31 * 24 * 3600
    return error


async def test_a_refused_question_is_stored_with_its_status_and_no_answer(
    quoted: Quoted,
) -> None:
    async with httpx.AsyncClient(base_url=quoted.url, timeout=60) as client:
        first = await turn(client, ALICE, "What is the VAT rate in Ireland?")  # 1,200 tokens
        await turn(client, BOB, "What is PRSI?")  # 2,400: past acme's hard quota
        calls = quoted.model.calls

        # in the conversation given, on its active branch, after its last answer
        given = refusal(
            await client.post(
                "/api/chat", json={"message": "And USC?", "conversationId": first}, headers=ALICE
            )
        )
        assert given["conversationId"] == first
        view = (await client.get(f"/api/conversations/{first}", headers=ALICE)).json()
        assert [(m["role"], m["status"]) for m in view["messages"]] == [
            ("user", "complete"), ("assistant", "complete"), ("user", "quota_exceeded")
        ]  # fmt: skip
        asked = view["messages"][-1]
        assert asked["content"] == "And USC?" and view["activeLeafId"] == asked["id"]

        # no conversation given: a new one, holding the question alone
        new = refusal(
            await client.post("/api/chat", json={"message": "What is LPT?"}, headers=ALICE)
        )
        assert new["conversationId"] not in (None, first)
        view = await client.get(f"/api/conversations/{new['conversationId']}", headers=ALICE)
        assert [(m["role"], m["content"], m["status"]) for m in view.json()["messages"]] == [
            ("user", "What is LPT?", "quota_exceeded")
        ]
        listed = (await client.get("/api/conversations", headers=ALICE)).json()
        assert new["conversationId"] in [c["id"] for c in listed]

        # an edit: the edited question on its new branch, the original kept
        original = (await client.get(f"/api/conversations/{first}", headers=ALICE)).json()[
            "messages"
        ][0]["id"]
        edited = refusal(
            await client.post(
                f"/api/conversations/{first}/messages/{original}/edit",
                json={"message": "What is the VAT rate in France?"},
                headers=ALICE,
            )
        )
        assert edited["conversationId"] == first
        view = (await client.get(f"/api/conversations/{first}", headers=ALICE)).json()
        assert [(m["content"], m["status"]) for m in view["messages"]] == [
            ("What is the VAT rate in France?", "quota_exceeded")
        ]
        assert [p["messageIds"][0] for p in view["branchPoints"]] == [original]

        assert quoted.model.calls == calls  # nothing of it reached the model
        assert (await client.get("/api/usage", headers=ALICE)).json()["month"]["totals"][
            "turns"
        ] == 1  # the refused turns used nothing


async def test_a_tenant_over_its_hard_quota_is_refused_before_the_model_is_called(
    quoted: Quoted,
) -> None:
    async with httpx.AsyncClient(base_url=quoted.url, timeout=60) as client:
        first = await chat(client, ALICE, "What is the VAT rate in Ireland?")  # 1,200 now
        assert "quota_warning" not in first
        second = await chat(client, BOB, "What is PRSI?")  # past the soft one: 2,400 now
        assert "quota_warning" in second
        calls = quoted.model.calls
        refused = await client.post("/api/chat", json={"message": "And USC?"}, headers=ALICE)
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "quota_exceeded"
        assert "resets at" in refused.json()["error"]["message"]
        assert 0 < int(refused.headers["Retry-After"]) <= 31 * 24 * 3600
        assert quoted.model.calls == calls  # nothing reached the model
        assert "regintel_quota_refusals_total 1.0" in (await client.get("/metrics")).text
        assert (await client.get("/api/usage", headers=ALICE)).json()["month"]["totals"][
            "turns"
        ] == 1  # the refused turn used nothing
        await chat(client, GLOBEX_GINA, "What is VAT?")  # another tenant is not held back
        assert quoted.model.calls == calls + 1


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
async def test_a_ledger_that_is_down_lets_turns_through_open_and_refuses_them_closed(
    store: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Issue 27, bad input and faults ("a quota store that is down: the configured fail-open or
    fail-closed, like the rate limiter"; ADR 0050): two servers over one store, one with
    ``REGINTEL_USAGE_QUOTA_WHEN_STORE_DOWN=open``, one ``closed``; the usage ledger's table is
    taken away (renamed on SQLite; the app role's grants revoked on PostgreSQL, RLS on):
    ``closed`` answers 503 ``quota_unavailable`` before the model is called; ``open`` answers
    the turn (its usage cannot be recorded and is logged, never a failed turn)."""
    model = CountingModel()
    quotas = {"*": {"tokens": 10**9}}
    extra: dict[str, Any] = {"usage_monthly_quotas": quotas}
    dsn = ""
    if store == "postgres":
        dsn = request.getfixturevalue("postgres_cluster").create_database(
            f"usage_{uuid.uuid4().hex[:12]}"
        )
        extra |= {"conversation_store": "postgres", "postgres_dsn": dsn}
    common = {"data_dir": tmp_path / "data", "log_json": False, "api_keys": KEYS, **extra}
    open_app = create_app(
        Settings(**common, usage_quota_when_store_down="open"),
        lexicon=ConceptLexicon(),
        providers={"extractive": model},
    )
    closed_app = create_app(
        Settings(**common, usage_quota_when_store_down="closed"),
        lexicon=ConceptLexicon(),
        providers={"extractive": model},
    )
    with running_server(open_app) as open_url, running_server(closed_app) as closed_url:
        async with httpx.AsyncClient(timeout=60) as client:
            for url in (open_url, closed_url):  # both answer while the ledger is there
                client.base_url = httpx.URL(url)
                await chat(client, ALICE, "What is the VAT rate in Ireland?")
            assert model.calls == 2
            if store == "sqlite":
                path = tmp_path / "data" / "conversations.db"
                with sqlite3.connect(path) as conn:
                    conn.execute("ALTER TABLE usage_daily RENAME TO usage_daily_away")
            else:
                async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
                    await conn.execute("REVOKE ALL ON regintel.usage_daily FROM regintel_app")
            refused = await client.post(
                f"{closed_url}/api/chat", json={"message": "And PRSI?"}, headers=ALICE
            )
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "quota_unavailable"
            assert model.calls == 2  # nothing reached the model
            client.base_url = httpx.URL(open_url)
            await chat(client, ALICE, "And USC?")  # let through, answered
            assert model.calls == 3
