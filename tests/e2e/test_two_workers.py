"""Two API worker processes sharing PostgreSQL 15, redis-server and the ArcadeDB Bolt graph, all
started by the harness (issue 11, must show): what one worker or the CLI writes reaches the
other worker's prompts, evidence and patch subscribers (exactly once), rate limits are one
bucket, and with Redis stopped turns still complete, rate limits fail open (the default) and
patches still arrive (ADR 0026, 0027).

The workers are real processes (``tests.support.paced_server``: the app served like ``regintel
serve``, the offline extractive provider, every request it gets recorded to a file so the test
can read the prompts a worker built). The CLI runs as a subprocess with the same settings.
The tests share one setup (module scope); each captures concepts of its own and empties the
bucket it needs itself, so any one of them also runs alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from api.bootstrap import open_graph
from api.settings import Settings
from engine.seeding import DEFAULT_SEEDS, seed_graph
from infra.redis_client import connect_redis
from tests.support.arcadedb import running_arcadedb
from tests.support.postgres import PostgresCluster, running_postgres
from tests.support.redis import RedisServer, running_redis
from tests.support.review import confirm_listed
from tests.support.server import sse_events
from tests.support.server_process import ROOT, ServerProcess, server_process

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer key-acme-alice"}
CAROL = {"Authorization": "Bearer key-globex-carol"}
DAVE = {"Authorization": "Bearer key-initech-dave"}  # the rate-limit test's own buckets
UMA = {"Authorization": "Bearer key-umbrella-uma"}  # the quota test's own tenant
HANK = {"Authorization": "Bearer key-hooli-hank"}  # the quota fill test's own tenant
OPERATOR = {"Authorization": "Bearer key-ops-admin"}
KEYS = {
    "key-acme-alice": "acme:alice",
    "key-globex-carol": "globex:carol",
    "key-initech-dave": "initech:dave",
    "key-umbrella-uma": "umbrella:uma",
    "key-hooli-hank": "hooli:hank",
    "key-ops-admin": "regintel:operator:operator",
}
USER_BURST = 20  # tokens in a user's bucket: 30 a minute, 40 seconds' worth
BATCH_WINDOW_MS = 100


@dataclass
class Cluster:
    a: ServerProcess
    b: ServerProcess
    env: dict[str, str]
    redis: RedisServer
    prompts: dict[str, Path]
    gate: Path  # answers to "Hold…" questions wait here (tests.support.paced_server)
    postgres: PostgresCluster


def _seed_rules(env: dict[str, str], folder: Path) -> None:
    """Ireland's seed rules (no EU acts, no rate history: start-up stays quick) into the Bolt
    graph."""
    for file in [DEFAULT_SEEDS / "jurisdictions.yaml", *DEFAULT_SEEDS.glob("ie_*.yaml")]:
        shutil.copy2(file, folder / file.name)
    settings = Settings(
        graph_backend="bolt",
        bolt_uri=env["REGINTEL_BOLT_URI"],
        bolt_user=env["REGINTEL_BOLT_USER"],
        bolt_password=env["REGINTEL_BOLT_PASSWORD"],
        bolt_database=env["REGINTEL_BOLT_DATABASE"],
        bolt_dialect="neo4j",
        log_json=False,
    )

    async def run() -> None:
        async with open_graph(settings) as handle:
            await seed_graph(
                handle.graph, handle.writer, folder, legal=[], tax_rates=None, validity=None
            )

    asyncio.run(run())


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("workers")
    with contextlib.ExitStack() as stack:
        graph = stack.enter_context(running_arcadedb())
        redis = stack.enter_context(running_redis())
        postgres = stack.enter_context(running_postgres())
        shared = {
            "REGINTEL_ENVIRONMENT": "dev",
            "REGINTEL_API_KEYS": json.dumps(KEYS),
            "REGINTEL_GRAPH_BACKEND": "bolt",
            "REGINTEL_BOLT_URI": graph.bolt_uri,
            "REGINTEL_BOLT_USER": graph.user,
            "REGINTEL_BOLT_PASSWORD": graph.password,
            "REGINTEL_BOLT_DATABASE": graph.database,
            "REGINTEL_BOLT_DIALECT": "neo4j",
            "REGINTEL_CONVERSATION_STORE": "postgres",
            "REGINTEL_POSTGRES_DSN": postgres.create_database(f"w_{uuid.uuid4().hex[:12]}"),
        }
        _seed_rules(shared, root)
        shared |= {
            "REGINTEL_REDIS_URL": redis.url(),
            "REGINTEL_REDIS_PREFIX": f"t{uuid.uuid4().hex[:8]}",
            "REGINTEL_REDIS_TIMEOUT_SECONDS": "0.5",
            "REGINTEL_RATE_LIMIT_USER_PER_MINUTE": "30",
            "REGINTEL_RATE_LIMIT_BURST_SECONDS": str(USER_BURST * 2),
            "REGINTEL_GRAPH_BATCH_WINDOW_MS": str(BATCH_WINDOW_MS),
            "REGINTEL_GRAPH_CATCH_UP_SECONDS": "1",  # the catch-up must not deliver twice
            "REGINTEL_HEARTBEAT_SECONDS": "0.2",
            # one turn spends it: the second is refused, whichever worker gets it
            # hooli: counted in Redis, never reached (the fill-race test)
            "REGINTEL_USAGE_MONTHLY_QUOTAS": json.dumps(
                {"umbrella": {"tokens": 1}, "hooli": {"tokens": 10**9}}
            ),
        }
        prompts = {name: root / f"{name}.prompts.jsonl" for name in "ab"}
        gate = root / "gate"
        gate.mkdir()
        managers = [
            server_process(
                {**shared, "REGINTEL_DATA_DIR": str(root / name)},
                root / f"{name}.log",
                record=prompts[name],
                gate=gate,
                startup_s=180.0,  # two start at once on a shared machine
            )
            for name in "ab"
        ]
        with ThreadPoolExecutor(2) as pool:  # both start at once (each indexes the graph)
            started = [pool.submit(manager.__enter__) for manager in managers]
        for manager in managers:  # stopped whatever happened to the other
            stack.push(manager.__exit__)
        a, b = (future.result() for future in started)
        yield Cluster(a, b, shared, redis, prompts, gate, postgres)


async def turn(
    base: str, headers: dict[str, str], message: str, conversation: str | None = None
) -> dict[str, Any]:
    """One chat turn; the events by type (the last of each)."""
    body: dict[str, Any] = {"message": message}
    if conversation:
        body["conversationId"] = conversation
    events: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        async with client.stream("POST", "/api/chat", json=body, headers=headers) as response:
            assert response.status_code == 200, await response.aread()
            async for event in sse_events(response):
                if event.event:
                    events[event.event] = event.data
    assert events["done"]["status"] == "complete", events
    return events


def last_prompt(cluster: Cluster, worker: str) -> str:
    """The system prompt of the last main chat request the worker's provider got."""
    lines = cluster.prompts[worker].read_text(encoding="utf-8").splitlines()
    requests = [json.loads(line) for line in lines]
    main = [r for r in requests if r["task"] == "main_chat"]
    return str(main[-1]["messages"][0]["content"])


async def capture(cluster: Cluster, base: str, question: str) -> tuple[str, str]:
    """A turn of Alice's that captures one provisional concept: (concept id, conversation)."""
    events = await turn(base, ALICE, question)
    [concept] = events["concepts"]["concepts"]
    assert concept["status"] == "provisional"
    return concept["id"], events["metadata"]["conversationId"]


async def confirm(base: str, concept_id: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        done = await confirm_listed(client, concept_id, OPERATOR)
    assert done.status_code == 200, done.text


@dataclass
class Subscriber:
    """A graph UI on one worker: every patch it received, in order."""

    patches: list[dict[str, Any]]
    ready: anyio.Event

    def versions_of(self, node_id: str) -> list[str]:
        """The ``updated_at`` of every version of the node received, in order."""
        return [
            str(node["properties"]["updated_at"])
            for patch in self.patches
            for node in patch["nodes"]["added"] + patch["nodes"]["updated"]
            if node["id"] == node_id
        ]

    def confirmed_once(self, node_id: str) -> bool:
        """The node arrived reviewed, and no version of it arrived twice (the capture's
        ingestion job may legitimately write it again after the confirmation: another
        version, another patch)."""
        versions = self.versions_of(node_id)
        return bool(versions) and len(versions) == len(set(versions))


async def subscribe(base: str, seconds: float, sub: Subscriber) -> None:
    with anyio.move_on_after(seconds):
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            params = {"jurisdictions": "IE"}
            async with client.stream(
                "GET", "/api/graph/stream", params=params, headers=CAROL
            ) as response:
                assert response.status_code == 200
                sub.ready.set()
                async for event in sse_events(response):
                    if event.event == "graph_patch":
                        sub.patches.append(event.payload)


def subscriber() -> Subscriber:
    return Subscriber([], anyio.Event())


async def until(holds: Callable[[], Awaitable[bool]], seconds: float, pause: float) -> None:
    """Ask ``holds()`` again every ``pause`` seconds until it is true; fail after ``seconds``."""
    with anyio.fail_after(seconds):
        for _ in itertools.count():
            if await holds():
                return
            await anyio.sleep(pause)


async def wait_for(sub: Subscriber, node_id: str, seconds: float = 30.0) -> None:
    async def arrived() -> bool:
        return bool(sub.versions_of(node_id))

    await until(arrived, seconds, 0.05)


async def in_evidence(base: str, concept: str, question: str) -> None:
    """Carol's turns on ``base`` come to use ``concept`` as evidence (within 40 s).

    One turn every 2 s at most: the cluster's user limit refills a token every 2 s, and Carol's
    bucket must still hold tokens for the next test's graph stream (polling every 0.2 s emptied
    it whenever the other worker took more than a few seconds, and that test got 429)."""

    async def used() -> bool:
        return concept in evidence_of(await turn(base, CAROL, question))

    await until(used, 40.0, 2.0)


async def healthy(base: str) -> None:
    async def ok() -> bool:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            return bool((await client.get("/health")).json()["status"] == "ok")

    await until(ok, 15.0, 0.1)


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``regintel *args`` in its own process, with the workers' settings."""
    return subprocess.run(
        [str(Path(sys.executable).with_name("regintel")), *args],
        cwd=ROOT,
        env={**os.environ, **env, "REGINTEL_LOG_JSON": "false"},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def evidence_of(events: dict[str, Any]) -> list[str]:
    return list(events["metadata"]["evidenceNodeIds"])


async def test_a_concept_created_through_a_is_in_bs_next_prompt_and_evidence_once_confirmed(
    cluster: Cluster,
) -> None:
    concept, conversation = await capture(
        cluster, cluster.a.base, "Is there a wealth tax in Ireland?"
    )
    # Alice's next turn in the same conversation lands on the other worker: its prompt
    # describes what worker A captured (her own conversation keeps its captures, ADR 0020).
    await turn(cluster.b.base, ALICE, "Who would pay it?", conversation)
    assert f"[{concept}]" in last_prompt(cluster, "b")
    # Another tenant does not see it anywhere until an operator confirms it (through A)...
    before = await turn(cluster.b.base, CAROL, "Is there a wealth tax in Ireland?")
    assert concept not in evidence_of(before)
    await confirm(cluster.a.base, concept)
    # ... and then worker B uses it as evidence without a restart (the bus, one batch later).
    await in_evidence(cluster.b.base, concept, "Is there a wealth tax in Ireland?")


async def test_a_patch_written_through_either_worker_reaches_the_other_exactly_once(
    cluster: Cluster,
) -> None:
    first, _ = await capture(cluster, cluster.a.base, "Is there a tax on capital in Ireland?")
    second, _ = await capture(cluster, cluster.b.base, "Is there a consumption tax in Ireland?")
    on_a, on_b = subscriber(), subscriber()
    async with anyio.create_task_group() as group:
        group.start_soon(subscribe, cluster.a.base, 180.0, on_a)
        group.start_soon(subscribe, cluster.b.base, 180.0, on_b)
        with anyio.fail_after(10):
            await on_a.ready.wait()
            await on_b.ready.wait()
        await anyio.sleep(0.3)  # registered with the detector
        await confirm(cluster.a.base, first)
        await confirm(cluster.b.base, second)
        for sub in (on_a, on_b):
            await wait_for(sub, first)
            await wait_for(sub, second)
        await anyio.sleep(3.0)  # three catch-up rounds later: still once
        group.cancel_scope.cancel()
    for sub in (on_a, on_b):
        assert sub.confirmed_once(first) and sub.confirmed_once(second), sub.patches


async def test_a_cli_confirmation_is_seen_by_both_workers_without_a_restart(
    cluster: Cluster,
) -> None:
    question = "Is there a property tax in Ireland?"
    concept, _ = await capture(cluster, cluster.a.base, question)
    for base in (cluster.a.base, cluster.b.base):
        assert concept not in evidence_of(await turn(base, CAROL, question))
    on_a, on_b = subscriber(), subscriber()
    async with anyio.create_task_group() as group:
        group.start_soon(subscribe, cluster.a.base, 180.0, on_a)
        group.start_soon(subscribe, cluster.b.base, 180.0, on_b)
        with anyio.fail_after(10):
            await on_a.ready.wait()
            await on_b.ready.wait()
        done = await anyio.to_thread.run_sync(cli, cluster.env, "concept", "confirm", concept)
        assert done.returncode == 0, done.stderr
        assert f"{concept}: updated" in done.stdout
        for sub in (on_a, on_b):
            await wait_for(sub, concept)
        await anyio.sleep(2.0)  # two catch-up rounds later: still once
        group.cancel_scope.cancel()
    assert on_a.confirmed_once(concept) and on_b.confirmed_once(concept)
    for base in (cluster.a.base, cluster.b.base):
        await in_evidence(base, concept, question)


async def drain(base: str, headers: dict[str, str], requests: int) -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        return [await client.get("/api/graph/nodes/IE/neighbourhood", headers=headers)
                for _ in range(requests)]  # fmt: skip


async def test_rate_limits_are_one_bucket_shared_by_the_workers(cluster: Cluster) -> None:
    began = time.monotonic()
    answers: list[httpx.Response] = []
    async with httpx.AsyncClient(timeout=30) as client:
        for i in range(USER_BURST * 3 // 2):  # each worker alone would let all of them pass
            base = (cluster.a, cluster.b)[i % 2].base
            answers.append(
                await client.get(f"{base}/api/graph/nodes/IE/neighbourhood", headers=DAVE)
            )
    refill = (time.monotonic() - began) * 30 / 60
    passed = [r for r in answers if r.status_code == 200]
    refused = [r for r in answers if r.status_code == 429]
    assert len(passed) + len(refused) == len(answers)
    assert len(passed) <= USER_BURST + refill + 1
    assert {str(r.url).split("/api")[0] for r in refused} == {cluster.a.base, cluster.b.base}
    assert all(r.json()["error"]["code"] == "rate_limited" for r in refused)
    assert all(int(r.headers["Retry-After"]) >= 1 for r in refused)


async def test_with_redis_stopped_turns_complete_limits_fail_open_and_patches_resume(
    cluster: Cluster,
) -> None:
    during, _ = await capture(cluster, cluster.a.base, "Is there a road tax in Ireland?")
    after, _ = await capture(cluster, cluster.a.base, "Is there a tax haven in Ireland?")
    async with httpx.AsyncClient(timeout=30) as client:
        dave = f"{cluster.a.base}/api/graph/nodes/IE/neighbourhood"
        with anyio.fail_after(30):
            while (await client.get(dave, headers=DAVE)).status_code != 429:
                pass  # Dave's bucket is empty
    on_b = subscriber()
    async with anyio.create_task_group() as group:
        group.start_soon(subscribe, cluster.b.base, 60.0, on_b)
        with anyio.fail_after(10):
            await on_b.ready.wait()
        cluster.redis.stop()
        try:
            for base in (cluster.a.base, cluster.b.base):
                events = await turn(base, CAROL, "What is the standard rate of VAT in Ireland?")
                assert events["done"]["status"] == "complete"
                # REGINTEL_RATE_LIMIT_WHEN_REDIS_DOWN=open (the default): Dave passes again.
                assert [r.status_code for r in await drain(base, DAVE, 3)] == [200] * 3
                async with httpx.AsyncClient(base_url=base, timeout=30) as client:
                    health = await client.get("/health")
                assert health.status_code == 200  # degraded, still in the load balancer
                assert health.json()["status"] == "degraded"
                assert health.json()["checks"]["redis"]["status"] == "down"
            # A write through A without the bus: B's timestamp catch-up still brings it.
            await confirm(cluster.a.base, during)
            await wait_for(on_b, during)
        finally:
            cluster.redis.start()  # empty: the buckets start full again
        for base in (cluster.a.base, cluster.b.base):
            await healthy(base)  # the bus is subscribed again
        await confirm(cluster.a.base, after)
        await wait_for(on_b, after)
        await anyio.sleep(2.0)  # two catch-up rounds later: still once
        group.cancel_scope.cancel()
    assert on_b.confirmed_once(during) and on_b.confirmed_once(after)


async def test_an_edit_through_one_worker_is_the_branch_the_other_continues(
    cluster: Cluster,
) -> None:
    """Issue 27 (ADR 0062), must show: an edit creates a branch whose next prompt holds only
    that branch's messages, whichever worker runs which turn; a regeneration keeps both."""

    def last_request(worker: str) -> str:
        lines = cluster.prompts[worker].read_text(encoding="utf-8").splitlines()
        main = [r for r in map(json.loads, lines) if r["task"] == "main_chat"]
        return "\n".join(str(m["content"]) for m in main[-1]["messages"])

    started = await turn(cluster.a.base, ALICE, "Alpha what is the standard rate of VAT?")
    cid = started["metadata"]["conversationId"]
    await turn(cluster.b.base, ALICE, "Bravo and what about France?", cid)
    async with httpx.AsyncClient(timeout=60) as client:
        shown = await client.get(f"{cluster.a.base}/api/conversations/{cid}", headers=ALICE)
        bravo = shown.json()["messages"][2]
        edit = f"{cluster.b.base}/api/conversations/{cid}/messages/{bravo['id']}/edit"
        body = {"message": "Gamma and the reduced rate in Ireland?"}
        async with client.stream("POST", edit, json=body, headers=ALICE) as response:
            assert response.status_code == 200, await response.aread()
            events = [e async for e in sse_events(response) if e.event]
        assert events[-1].payload["status"] == "complete"
        assert "Bravo" not in last_request("b") and "Alpha" in last_request("b")
    await turn(cluster.a.base, ALICE, "Kappa and the standard rate?", cid)
    prompt = last_request("a")
    assert "Gamma" in prompt and "Alpha" in prompt and "Bravo" not in prompt
    async with httpx.AsyncClient(timeout=60) as client:
        answer = (
            await client.get(f"{cluster.b.base}/api/conversations/{cid}", headers=ALICE)
        ).json()["messages"][-1]
        again = f"{cluster.a.base}/api/conversations/{cid}/messages/{answer['id']}/regenerate"
        async with client.stream("POST", again, headers=ALICE) as response:
            assert response.status_code == 200, await response.aread()
            [e async for e in sse_events(response)]
        shown = await client.get(f"{cluster.b.base}/api/conversations/{cid}", headers=ALICE)
    view = shown.json()
    assert [m["content"].split()[0] for m in view["messages"][::2]] == ["Alpha", "Gamma", "Kappa"]
    assert view["messages"][-1]["siblingIds"][0] == answer["id"]  # both answers kept
    assert len(view["messages"][-1]["siblingIds"]) == 2
    assert len(view["messages"][2]["siblingIds"]) == 2  # Bravo and Gamma


async def test_a_tenant_past_its_hard_quota_is_refused_by_both_workers_before_the_model(
    cluster: Cluster,
) -> None:
    """Issue 27 (ADR 0050, Redis addendum), must show: usage recorded through one worker
    counts in the other's quota check; past the hard quota both answer 429 before anything
    reaches the model (neither worker's provider gets the question), and the month's totals
    are counted in Redis."""

    def asked(worker: str, question: str) -> bool:
        record = cluster.prompts[worker]  # written at a worker's first model call
        return record.exists() and question in record.read_text(encoding="utf-8")

    await turn(cluster.a.base, UMA, "Umbrella what is the standard rate of VAT in Ireland?")
    async with httpx.AsyncClient(timeout=60) as client:
        for worker, base in (("b", cluster.b.base), ("a", cluster.a.base)):
            question = f"Umbrella again through {worker}: and the reduced rate?"
            refused = await client.post(f"{base}/api/chat", json={"message": question}, headers=UMA)
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"]["code"] == "quota_exceeded"
            assert not asked("a", question) and not asked("b", question)
    redis = connect_redis(cluster.redis.url())
    try:
        month = datetime.now(UTC).date().replace(day=1)
        key = f"{cluster.env['REGINTEL_REDIS_PREFIX']}:quota:umbrella:{month:%Y-%m}"
        tokens = await redis.hget(key, "tokens")
        assert tokens is not None and int(tokens) > 1
    finally:
        await redis.aclose()
    # the quota's counter (Redis) down: both workers read the store instead and still refuse
    # before the model (ADR 0050 Redis addendum; the modes open/closed are for a store that
    # cannot say: tests/e2e/test_usage_http.py)
    cluster.redis.stop()
    try:
        async with httpx.AsyncClient(timeout=60) as client:
            for worker, base in (("a", cluster.a.base), ("b", cluster.b.base)):
                question = f"Umbrella with Redis down, through {worker}: and the zero rate?"
                refused = await client.post(
                    f"{base}/api/chat", json={"message": question}, headers=UMA
                )
                assert refused.status_code == 429, refused.text
                assert refused.json()["error"]["code"] == "quota_exceeded"
                assert not asked("a", question) and not asked("b", question)
    finally:
        cluster.redis.start()
    for base in (cluster.a.base, cluster.b.base):
        await healthy(base)


async def test_turns_through_both_workers_while_the_quota_copy_expires_are_all_counted(
    cluster: Cluster,
) -> None:
    """Issue 27 (ADR 0050, session 8 addendum): eight turns at once through the two worker
    processes while the month's copy in Redis is dropped again and again (as when it expires):
    every worker that finds it missing fills it from the ledger while the others record; the
    copy is never behind the ledger's own total (GET /api/usage, the tenant's only user)."""
    redis = connect_redis(cluster.redis.url(), timeout_s=30)  # a loaded machine
    month = datetime.now(UTC).date().replace(day=1)
    key = f"{cluster.env['REGINTEL_REDIS_PREFIX']}:quota:hooli:{month:%Y-%m}"
    running = True

    async def expire() -> None:
        while running:
            await redis.delete(key)
            await asyncio.sleep(0.02)

    try:
        dropping = asyncio.create_task(expire())
        bases = [cluster.a.base, cluster.b.base] * 4
        try:
            await asyncio.wait_for(
                asyncio.gather(
                    *(
                        turn(base, HANK, f"Hooli {n}: what is the standard rate of VAT?")
                        for n, base in enumerate(bases)
                    )
                ),
                timeout=240,
            )
        finally:
            running = False
            await dropping
        # one more turn when all is quiet: it finds no copy (or one from the churn), fills or
        # adds to it, and records its own call
        await turn(cluster.b.base, HANK, "Hooli: and the reduced rate?")
        async with httpx.AsyncClient(timeout=30) as client:
            usage = (await client.get(f"{cluster.a.base}/api/usage", headers=HANK)).json()
        ledger = usage["month"]["totals"]
        assert ledger["turns"] == 9
        counted = await redis.hget(key, "tokens")
        assert counted is not None
        assert int(counted) >= ledger["inputTokens"] + ledger["outputTokens"] > 0
    finally:
        await redis.aclose()


async def test_erasure_through_one_worker_cancels_the_turn_streaming_on_the_other(
    cluster: Cluster,
) -> None:
    """Issue 27 (ADR 0048 addendum), bad input and faults: a turn streams on worker a, its
    conversation is erased through worker b; a learns it only from b's notice over Redis and
    cancels the turn (the held rest of the answer never reaches the client, which is told
    ``conversation_erased``); nothing of the turn survives: both workers answer 404, the
    export is empty, and a full ``pg_dump`` of the database holds neither the question, its
    e-mail address (the egress vault's original) nor any part of the answer."""
    # letters only: a digit inside the word let the name lists find a first name in its tail
    # ("Holdturn0b4bea" -> "bea"), the guard redacted it and the stand-in never held the turn
    word = "Holdturn" + uuid.uuid4().hex[:6].translate(str.maketrans("0123456789", "ghijklmnop"))
    email = f"{word.lower()}@example.com"
    body = {"message": f"{word} what is the standard rate of VAT for {email} invoices?"}
    async with httpx.AsyncClient(timeout=60) as client:
        url = f"{cluster.a.base}/api/chat"
        async with client.stream("POST", url, json=body, headers=ALICE) as response:
            assert response.status_code == 200
            events = sse_events(response)
            conversation_id = None
            async for event in events:
                if event.event == "metadata":
                    conversation_id = event.payload["conversationId"]
                if event.event == "text":
                    break  # the answer is streaming on a
            assert conversation_id is not None

            async def held() -> bool:
                return (cluster.gate / f"{word}.waiting").exists()

            await until(held, 30.0, 0.02)
            erased = await client.delete(
                f"{cluster.b.base}/api/conversations/{conversation_id}", headers=ALICE
            )
            assert erased.status_code == 200, erased.text
            # a hears of it over Redis, not from its own store: give the notice its time,
            # then let the model go on (the turn is cancelled at its next chunk)
            await asyncio.sleep(1.0)
            (cluster.gate / f"{word}.release").touch()
            rest = [e async for e in events]
        assert rest and rest[-1].event in ("done", "error"), rest
        assert not [e for e in rest if e.event == "text"], rest
        assert any(
            e.event == "error" and e.payload["code"] == "conversation_erased" for e in rest
        ), rest
        await asyncio.sleep(0.5)  # any late write (a capture's context) has had its chance
        for base in (cluster.a.base, cluster.b.base):
            gone = await client.get(f"{base}/api/conversations/{conversation_id}", headers=ALICE)
            assert gone.status_code == 404, (base, gone.text)
        exported = (
            await client.get(f"{cluster.a.base}/api/conversations/export", headers=ALICE)
        ).json()
        assert conversation_id not in json.dumps(exported)
    command = [
        str(cluster.postgres.bin_dir / "pg_dump"), "--data-only", "-d",
        cluster.env["REGINTEL_POSTGRES_DSN"],
    ]  # fmt: skip
    done = await asyncio.to_thread(
        subprocess.run, command, capture_output=True, text=True, check=True, timeout=120
    )
    dump = done.stdout
    assert word not in dump and email not in dump and word.lower() not in dump


async def test_a_200_turn_conversation_stays_within_the_budget_on_both_workers(
    cluster: Cluster,
) -> None:
    """Issue 27 (ADR 0065), must show: a conversation of 199 turns (written straight into the
    shared PostgreSQL store, each about another provision), then turn 200 through worker a and
    turn 201 through worker b: each prompt, as the worker's model received it, stays within the
    default token budget and still names turn 1's question and the provision it cited; the
    second continues the summary the first stored, whichever worker stored it."""
    from conversations.factory import build_conversation_store
    from conversations.models import ConversationContext, NewMessage
    from engine.compaction import estimate_tokens

    budget = Settings.model_fields["conversation_token_budget"].default
    first = "Firstturn: what is the standard rate of VAT in Ireland for restaurant meals?"
    first_node = "IE:RATE:VAT_STANDARD"
    store = build_conversation_store(
        "postgres",
        sqlite_path=Path("unused.db"),  # the PostgreSQL store is used
        postgres_dsn=cluster.env["REGINTEL_POSTGRES_DSN"],
        postgres_pool_max=2,
    )
    await store.init()
    try:
        cid = (await store.create_conversation("acme", "alice")).id
        for t in range(1, 200):
            node = first_node if t == 1 else f"IE:FILLER:P{t}"
            question = first if t == 1 else f"Turn {t}: what does provision P{t} require?"
            answer = f"Provision {t} requires a filing [{node}]. " + "It has details. " * 30
            await store.save_turn(
                "acme",
                cid,
                [
                    NewMessage(role="user", content=question, content_sanitised=question),
                    NewMessage(
                        role="assistant",
                        content=answer,
                        content_sanitised=answer,
                        referenced_nodes=[node],
                    ),
                ],
                ConversationContext(active_node_ids=[node]),
                user_id="alice",
            )
    finally:
        await store.aclose()

    def last_request(worker: str) -> list[str]:
        lines = cluster.prompts[worker].read_text(encoding="utf-8").splitlines()
        main = [r for r in map(json.loads, lines) if r["task"] == "main_chat"]
        return [str(m["content"]) for m in main[-1]["messages"]]

    for worker, base, question in (
        ("a", cluster.a.base, "Turn 200: and the reduced rate?"),
        ("b", cluster.b.base, "Turn 201: and the zero rate?"),
    ):
        await turn(base, ALICE, question, cid)
        sent = last_request(worker)
        assert question in sent[-1]
        tokens = sum(estimate_tokens(text) for text in sent)
        assert tokens <= budget, (worker, tokens)
        assert first in sent[0] and first_node in sent[0], worker
        assert "Turn 150: what does" not in "\n".join(sent[1:-1])  # summarised, not verbatim
    async with httpx.AsyncClient(timeout=60) as client:
        listed = await client.get(
            f"{cluster.a.base}/api/conversations/{cid}/summaries", headers=ALICE
        )
    summaries = listed.json()
    assert len(summaries) == 2 and summaries[1]["messageCount"] == summaries[0]["messageCount"] + 2
