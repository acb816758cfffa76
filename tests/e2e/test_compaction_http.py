"""Compaction over real HTTP (issue 27, ADR 0065), on SQLite and on PostgreSQL as
``regintel_app`` with row-level security: a conversation of 60 turns (written straight into
the store), then a real turn whose prompt, as the provider received it, stays within the token
budget and still names turn 1's question and the provision it cited, though turn 1's concepts
left the active concepts long ago; the summary is stored with its range, only the owner lists
or rolls it back, and a rolled-back range comes back word for word while it fits."""

import asyncio
import json
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from conversations.factory import build_conversation_store
from conversations.models import ConversationContext, NewMessage
from egress.wire import Done, LlmRequest, StreamChunk, Text, Usage
from engine.compaction import estimate_tokens
from engine.lexicon import ConceptLexicon
from engine.prompt import EARLIER_HEADER
from tests.support.server import running_server, sse_events
from tests.support.standin import eventually

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

KEYS = {"k-acme-alice": "acme:alice", "k-acme-bob": "acme:bob"}
ALICE = {"Authorization": "Bearer k-acme-alice"}
BOB = {"Authorization": "Bearer k-acme-bob"}
BUDGET = 2500
TURN_ONE = "What is the standard rate of VAT in Ireland for restaurant meals?"
TURN_ONE_NODE = "IE:RATE:VAT_STANDARD"


@dataclass
class PromptRecorder:
    """Keeps every request's messages (what the provider received) and answers briefly."""

    name: str = "extractive"
    prompts: list[list[str]] = field(default_factory=list)

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        self.prompts.append([str(m.content) for m in request.messages])
        yield Text("A short answer.")
        yield Done(Usage(input_tokens=1, output_tokens=1))

    async def aclose(self) -> None:
        return None


@dataclass
class Stack:
    url: str
    model: PromptRecorder
    settings: Settings


@pytest.fixture(params=["sqlite", "postgres"])
def stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stack]:
    store: dict[str, Any] = {}
    if request.param == "postgres":
        cluster = request.getfixturevalue("postgres_cluster")
        dsn = cluster.create_database(f"compaction_{uuid.uuid4().hex[:12]}")
        store = {"conversation_store": "postgres", "postgres_dsn": dsn}
    settings = Settings(
        data_dir=tmp_path / "data",
        log_json=False,
        api_keys=KEYS,
        conversation_token_budget=BUDGET,
        **store,
    )
    model = PromptRecorder()
    app = create_app(settings, lexicon=ConceptLexicon(), providers={"extractive": model})
    with running_server(app) as url:
        yield Stack(url, model, settings)


def said(role: str, text: str, nodes: list[str]) -> NewMessage:
    return NewMessage(role=role, content=text, content_sanitised=text, referenced_nodes=nodes)


async def a_long_conversation(settings: Settings, turns: int) -> str:
    """``turns`` turns written straight into the store: turn 1 about VAT, citing
    ``TURN_ONE_NODE``; each later one about another provision, which joins the active concepts
    (40 at most: turn 1's leaves them)."""
    store = build_conversation_store(
        settings.conversation_store,
        sqlite_path=settings.resolved_sqlite_path,
        postgres_dsn=settings.postgres_dsn.get_secret_value(),
        postgres_pool_max=2,
    )
    await store.init()
    try:
        cid = (await store.create_conversation("acme", "alice")).id
        for t in range(1, turns + 1):
            node = TURN_ONE_NODE if t == 1 else f"IE:FILLER:P{t}"
            question = TURN_ONE if t == 1 else f"Turn {t}: what does provision P{t} require?"
            answer = f"Provision {t} requires a filing [{node}]. " + "It has details. " * 30
            await store.save_turn(
                "acme",
                cid,
                [said("user", question, []), said("assistant", answer, [node])],
                ConversationContext(active_node_ids=[node]),
                user_id="alice",
            )
        context = await store.load_context("acme", cid, user_id="alice")
        assert TURN_ONE_NODE not in context.active_node_ids  # long gone from the context
        return cid
    finally:
        await store.aclose()


async def ask(client: httpx.AsyncClient, cid: str, message: str) -> None:
    body = {"message": message, "conversationId": cid}
    async with client.stream("POST", "/api/chat", json=body, headers=ALICE) as response:
        assert response.status_code == 200, await response.aread()
        events = [e async for e in sse_events(response) if e.event]
    assert events[-1].event == "done" and events[-1].payload["status"] == "complete", events


def prompt_tokens(messages: list[str]) -> int:
    return sum(estimate_tokens(text) for text in messages)


async def test_a_long_conversation_stays_within_the_budget_and_keeps_turn_one(
    stack: Stack,
) -> None:
    cid = await a_long_conversation(stack.settings, 60)
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        await ask(client, cid, "And what about the reduced rate?")
        sent = stack.model.prompts[-1]
        assert prompt_tokens(sent) <= BUDGET
        system, history = sent[0], sent[1:-1]
        assert EARLIER_HEADER in system
        assert TURN_ONE in system and TURN_ONE_NODE in system  # turn 1, summarised turns' ids
        assert "Turn 30: what does provision P30 require?" in system  # a summarised question
        assert history and "Turn 60" in history[-2]  # the newest turns word for word
        assert all(TURN_ONE not in text for text in history)

        listed = await client.get(f"/api/conversations/{cid}/summaries", headers=ALICE)
        assert listed.status_code == 200
        [summary] = listed.json()
        assert summary["messageCount"] >= 60 and TURN_ONE_NODE in summary["citedNodeIds"]
        assert summary["rolledBackAt"] is None

        # nobody else sees it or rolls it back
        rollback = f"/api/conversations/{cid}/summaries/{summary['id']}/rollback"
        assert (await client.post(rollback, headers=BOB)).status_code == 404
        assert (
            await client.get(f"/api/conversations/{cid}/summaries", headers=BOB)
        ).status_code == 404
        missing = f"/api/conversations/{cid}/summaries/no-such-summary/rollback"
        assert (await client.post(missing, headers=ALICE)).status_code == 404

        # the owner rolls it back: the next prompt summarises nothing of that range, still
        # within the budget (the range's messages came back as far as they fit), turn 1 kept
        rolled = await client.post(rollback, headers=ALICE)
        assert rolled.status_code == 200 and rolled.json()["rolledBackAt"] is not None
        await ask(client, cid, "And the zero rate?")
        sent = stack.model.prompts[-1]
        assert prompt_tokens(sent) <= BUDGET
        assert TURN_ONE in sent[0] and "Turn 30: what does" not in sent[0]
        listed = (await client.get(f"/api/conversations/{cid}/summaries", headers=ALICE)).json()
        # only what left the window since is summarised: the turn just asked, after the range
        assert len(listed) == 2 and listed[0]["id"] == summary["id"]
        assert listed[1]["messageCount"] == 2 and TURN_ONE_NODE not in listed[1]["citedNodeIds"]
        assert listed[1]["firstMessageId"] != summary["firstMessageId"]


async def test_later_turns_continue_the_stored_summary_and_a_rollback_of_it_holds(
    stack: Stack,
) -> None:
    """ADR 0065 addendum: each later turn reads only what follows the latest summary and
    stores one that continues it (same start, two more messages); its prompt stays within the
    budget and keeps turn 1 and the summarised turns. Rolling back the newest summary of such
    a chain takes the whole range out of the next prompt (the branch is read whole again)."""
    cid = await a_long_conversation(stack.settings, 60)
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        for n in range(3):
            await ask(client, cid, f"And the reduced rate, case {n}?")
            sent = stack.model.prompts[-1]
            assert prompt_tokens(sent) <= BUDGET
            assert TURN_ONE in sent[0] and TURN_ONE_NODE in sent[0]
            assert "Turn 50: what does provision P50 require?" in sent[0]
        listed = (await client.get(f"/api/conversations/{cid}/summaries", headers=ALICE)).json()
        assert len(listed) == 3
        assert len({s["firstMessageId"] for s in listed}) == 1
        counts = [s["messageCount"] for s in listed]
        assert counts == [counts[0], counts[0] + 2, counts[0] + 4]
        newest = listed[-1]["id"]
        rollback = f"/api/conversations/{cid}/summaries/{newest}/rollback"
        assert (await client.post(rollback, headers=ALICE)).status_code == 200
        await ask(client, cid, "And the zero rate?")
        sent = stack.model.prompts[-1]
        assert prompt_tokens(sent) <= BUDGET
        assert TURN_ONE in sent[0] and "Turn 50: what does" not in sent[0]


@dataclass
class SummaryModel:
    """The configured summary route's stand-in ("openai"): records every request (what egress
    sent), answers only once ``released`` (so the turn is seen to end before it), or fails."""

    name: str = "openai"
    fails: bool = False
    released: threading.Event = field(default_factory=threading.Event)
    requests: list[LlmRequest] = field(default_factory=list)

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        self.requests.append(request)
        if self.fails:
            raise ConnectionError("the summary provider is down")
        while not self.released.is_set():  # noqa: ASYNC110 - set from the test's thread
            await asyncio.sleep(0.01)
        yield Text(f"The user asked about VAT and {len(self.requests)} other provisions.")
        yield Done(Usage(input_tokens=700, output_tokens=20))

    async def aclose(self) -> None:
        self.released.set()


@dataclass
class SummarisedStack(Stack):
    summariser: SummaryModel = field(default_factory=SummaryModel)
    app: Any = None


@contextmanager
def summarised_stack(
    tmp_path: Path, summariser: SummaryModel, min_new_tokens: int = 0, **store: Any
) -> Iterator[SummarisedStack]:
    settings = Settings(
        data_dir=tmp_path / "data",
        log_json=False,
        api_keys=KEYS,
        conversation_token_budget=BUDGET,
        conversation_summary_by_model=True,
        conversation_summary_min_new_tokens=min_new_tokens,
        llm_task_routes={"conversation_summary": "openai:gpt-4o-mini"},
        **store,
    )
    model = PromptRecorder()
    providers = {"extractive": model, "openai": summariser}
    app = create_app(settings, lexicon=ConceptLexicon(), providers=providers)
    with running_server(app) as url:
        yield SummarisedStack(url, model, settings, summariser, app)


async def until(
    read: Callable[[], Awaitable[Any]], holds: Callable[[Any], Any], seconds: float = 20
) -> Any:
    """What ``read()`` returns once ``holds`` it (written in the background by the server)."""
    with anyio.fail_after(seconds):
        for _ in range(int(seconds / 0.05) + 1):
            found = await read()
            if holds(found):
                return found
            await anyio.sleep(0.05)
    raise AssertionError("the condition did not hold in time")


async def summaries_of(client: httpx.AsyncClient, cid: str) -> list[dict[str, Any]]:
    listed = await client.get(f"/api/conversations/{cid}/summaries", headers=ALICE)
    assert listed.status_code == 200
    return list(listed.json())


async def test_a_models_summary_is_written_after_the_turn_and_used_by_the_next(
    tmp_path: Path, postgres_cluster: Any
) -> None:
    """ADR 0065 third addendum, on PostgreSQL as the app role: the turn ends (its answer
    streamed and saved) while the summary call still waits; the call went through egress under
    its own task with the stored texts; its summary is then stored beside the extractive one,
    the next prompt sends it instead of the extractive lines, and the next call continues it;
    its tokens are in the user's usage under the summary's model."""
    dsn = postgres_cluster.create_database(f"summary_{uuid.uuid4().hex[:12]}")
    summariser = SummaryModel()
    with summarised_stack(
        tmp_path, summariser, conversation_store="postgres", postgres_dsn=dsn
    ) as stack:
        cid = await a_long_conversation(stack.settings, 60)
        async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
            await ask(client, cid, "And what about the reduced rate?")  # done, complete
            await eventually(lambda: bool(summariser.requests), 20)
            [first] = await summaries_of(client, cid)
            assert first["modelSummary"] is None  # the call is still waiting: the turn was not
            [request] = summariser.requests
            assert request.task == "conversation_summary" and request.model == "gpt-4o-mini"
            assert "Turn 30: what does provision P30 require?" in request.messages[1].content
            summariser.released.set()
            [first] = await until(
                lambda: summaries_of(client, cid), lambda found: found[0]["modelSummary"]
            )
            told = "The user asked about VAT and 1 other provisions."
            assert first["modelSummary"] == told
            assert first["modelSummaryBy"] == "openai:gpt-4o-mini"
            assert "Turn 30: what does" in first["summary"]  # the extractive one stays

            await ask(client, cid, "And the zero rate?")
            sent = stack.model.prompts[-1]
            assert prompt_tokens(sent) <= BUDGET
            assert told in sent[0] and TURN_ONE in sent[0] and TURN_ONE_NODE in sent[0]
            assert "Turn 30: what does" not in sent[0]  # the base's extractive lines gave way
            await eventually(lambda: len(summariser.requests) >= 2, 20)
            continued = summariser.requests[1].messages[1].content
            assert continued.startswith(f"Previous summary: {json.dumps(told)}")

            async def own_usage() -> list[dict[str, Any]]:
                usage = (await client.get("/api/usage", headers=ALICE)).json()
                return [m for m in usage["today"]["byModel"] if m["provider"] == "openai"]

            [used] = await until(own_usage, bool)
            assert used["model"] == "gpt-4o-mini" and used["inputTokens"] >= 700


async def test_a_summary_provider_that_is_down_leaves_the_turn_and_the_extractive_summary(
    tmp_path: Path,
) -> None:
    """The failure path: the summary provider refuses the connection. The turn completes as
    without it, the stored summary is the extractive one, and the next prompt sends its lines."""
    summariser = SummaryModel(fails=True)
    with summarised_stack(tmp_path, summariser) as stack:
        cid = await a_long_conversation(stack.settings, 60)
        counters = stack.app.state.container.engine.counters
        async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
            await ask(client, cid, "And what about the reduced rate?")  # done, complete
            await eventually(lambda: counters.get("model_summaries_failed") >= 1, 20)
            [first] = await summaries_of(client, cid)
            assert first["modelSummary"] is None and "Turn 30: what does" in first["summary"]
            await ask(client, cid, "And the zero rate?")
            sent = stack.model.prompts[-1]
            assert prompt_tokens(sent) <= BUDGET
            assert "Turn 30: what does" in sent[0] and TURN_ONE in sent[0]
            assert len(summariser.requests) >= 1


async def test_summary_calls_are_throttled_and_the_turns_between_carry_the_last_one(
    tmp_path: Path,
) -> None:
    """ADR 0065 fourth addendum, over HTTP: with REGINTEL_CONVERSATION_SUMMARY_MIN_NEW_TOKENS,
    the first compacting turn calls (its uncovered lines are the whole summary); the turns after
    it make no call until the lines no model summary covers reach the threshold, and each of
    their prompts sends the model summary followed by exactly those lines; the next call
    continues the model summary with them as extracts."""
    summariser = SummaryModel()
    summariser.released.set()
    with summarised_stack(tmp_path, summariser, min_new_tokens=120) as stack:
        cid = await a_long_conversation(stack.settings, 60)
        counters = stack.app.state.container.engine.counters
        async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
            await ask(client, cid, "And what about the reduced rate?")
            [first] = await until(
                lambda: summaries_of(client, cid), lambda found: found[0]["modelSummary"]
            )
            told = first["modelSummary"]
            assert len(summariser.requests) == 1
            between, pending = 0, []
            for n in range(12):
                await ask(client, cid, f"Follow-up {n}: and the zero rate?")
                sent = stack.model.prompts[-1]
                assert prompt_tokens(sent) <= BUDGET and TURN_ONE in sent[0]
                decided = n + 2  # this turn's summary decided: called, or deferred

                def summary_decided(decided: int = decided) -> bool:
                    deferred = counters.get("model_summaries_deferred")
                    return bool(deferred + len(summariser.requests) >= decided)

                await eventually(summary_decided, 20)
                if len(summariser.requests) > 1:
                    break
                between += 1
                # the carried model summary stands in the prompt, and the stored row says how
                # many of its newest lines it does not cover
                assert told in sent[0], n
                rows = await summaries_of(client, cid)
                assert rows[-1]["modelSummary"] == told and rows[-1]["modelPendingLines"] > 0
                pending = rows[-1]["summary"].splitlines()[-rows[-1]["modelPendingLines"] :]
                assert all(json.loads(line[6:]) in sent[0] or line in sent[0] for line in pending)
            assert 2 <= between < 12  # turns without a call, then one
            second = summariser.requests[1].messages[1].content
            assert second.startswith(f"Previous summary: {json.dumps(told)}")
            # the lines the carried summary did not cover, as the last row before it stored them
            assert "Extracts of later messages" in second and pending
            assert "\n".join(pending) in second


async def test_a_pinned_message_is_kept_word_for_word_and_unpinning_gives_its_room_back(
    stack: Stack,
) -> None:
    """Issue 27, must-have 2 ("pinned messages ... always kept"; ADR 0065 session 8): the owner
    pins turn 10's answer of a 60-turn conversation; the next prompt, within the budget, holds
    it word for word (not only its first sentence); nobody else may pin, an unknown message is
    404; unpinned, the next prompt has only its summary line."""
    cid = await a_long_conversation(stack.settings, 60)
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        view = (await client.get(f"/api/conversations/{cid}", headers=ALICE)).json()
        [answer] = [m for m in view["messages"] if m["content"].startswith("Provision 10 requires")]
        pin = f"/api/conversations/{cid}/messages/{answer['id']}/pin"
        assert (await client.put(pin, headers=BOB)).status_code == 404
        unknown = f"/api/conversations/{cid}/messages/no-such-message/pin"
        assert (await client.put(unknown, headers=ALICE)).status_code == 404
        pinned = await client.put(pin, headers=ALICE)
        assert pinned.status_code == 200 and pinned.json() == {"pinnedMessageIds": [answer["id"]]}
        listed = await client.get(f"/api/conversations/{cid}/pins", headers=ALICE)
        assert listed.json() == {"pinnedMessageIds": [answer["id"]]}
        assert (await client.get(f"/api/conversations/{cid}/pins", headers=BOB)).status_code == 404

        await ask(client, cid, "And what about the reduced rate?")
        sent = stack.model.prompts[-1]
        assert prompt_tokens(sent) <= BUDGET
        assert f"- [pinned A] {json.dumps(answer['content'])}" in sent[0]
        assert TURN_ONE in sent[0]  # the first question still kept

        unpinned = await client.delete(pin, headers=ALICE)
        assert unpinned.status_code == 200 and unpinned.json() == {"pinnedMessageIds": []}
        await ask(client, cid, "And the zero rate?")
        sent = stack.model.prompts[-1]
        assert prompt_tokens(sent) <= BUDGET
        assert "[pinned" not in sent[0] and answer["content"] not in sent[0]
