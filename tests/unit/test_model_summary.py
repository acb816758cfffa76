"""A conversation's summary by a configured model, in the background after a turn (issue 27,
ADR 0065 third addendum): the call through egress under its own task, its answer sanitised and
stored; offline, nothing is called; a provider that fails leaves the extractive summary."""

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from conversations.models import StoredMessage, StoredSummary
from egress.client import EgressContext
from egress.sanitiser import SanitisedText
from egress.wire import Done, Error, LlmRequest, StreamChunk, Text, Usage
from engine.metrics import EngineCounters
from engine.model_summary import SUMMARY_TASK, ModelSummariser, SummaryJob, summary_job
from engine.router import LlmRouter, Route
from errors import ConversationStoreUnavailable

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

CTX = EgressContext("acme", "alice", "c1")
NOW = datetime(2026, 11, 27, tzinfo=UTC)


@dataclass
class FakeEgress:
    """Stands in for the egress client: records each request, answers with ``chunks`` (or
    raises ``fails``), and 'sanitises' by replacing an e-mail address."""

    chunks: list[StreamChunk] = field(default_factory=list)
    fails: Exception | None = None
    requests: list[LlmRequest] = field(default_factory=list)
    sanitised: list[str] = field(default_factory=list)

    async def stream(
        self, request: LlmRequest, ctx: EgressContext
    ) -> AsyncGenerator[StreamChunk, None]:
        self.requests.append(request)
        if self.fails is not None:
            raise self.fails
        for chunk in self.chunks:
            yield chunk

    async def sanitise_message(self, ctx: EgressContext, text: str) -> SanitisedText:
        self.sanitised.append(text)
        return SanitisedText(text=text.replace("jane@example.ie", "[EMAIL_1]"))


@dataclass
class FakeSummaries:
    stored: list[tuple[str, str, str, str, str, str]] = field(default_factory=list)
    gone: bool = False
    down: bool = False

    async def set_model_summary(
        self, tenant_id, conversation_id, last_message_id, text, by, *, user_id
    ):
        if self.down:
            raise ConversationStoreUnavailable("the store is down")
        if self.gone:
            return False
        self.stored.append((tenant_id, conversation_id, last_message_id, text, by, user_id))
        return True


def router(summary: str | None = "openai:gpt-4o-mini") -> LlmRouter:
    routes = {SUMMARY_TASK: Route(*summary.split(":"))} if summary else {}
    return LlmRouter(default=Route("extractive", "extractive-v1"), by_task=routes)


JOB = SummaryJob(
    conversation_id="c1",
    last_message_id="m8",
    previous='- [Q] "What is VAT?"',
    messages=(("user", "Is a meal 13.5%?"), ("assistant", "Yes [IE:RATE:VAT_REDUCED].")),
)


def summariser(egress, store, route="openai:gpt-4o-mini", **kwargs) -> ModelSummariser:
    return ModelSummariser(
        egress=egress, router=router(route), store=store, counters=EngineCounters(), **kwargs
    )


async def test_the_summary_is_asked_through_egress_sanitised_and_stored() -> None:
    egress = FakeEgress(
        [Text("Jane (jane@example.ie) asked "), Text("about VAT."), Done(Usage(120, 9))]
    )
    store = FakeSummaries()
    used = []

    async def on_usage(*args):
        used.append(args)

    model = summariser(egress, store, on_usage=on_usage)
    assert await model.summarise(CTX, JOB) is True
    [request] = egress.requests
    assert request.task == SUMMARY_TASK and (request.provider, request.model) == (
        "openai",
        "gpt-4o-mini",
    )
    assert not request.tools
    system, user = request.messages
    assert system.sanitised and user.sanitised  # stored sanitised texts, vouched for
    assert user.content.startswith('Previous summary: "- [Q] \\"What is VAT?\\""\n')
    assert user.content.endswith(
        'User: "Is a meal 13.5%?"\nAssistant: "Yes [IE:RATE:VAT_REDUCED]."'
    )
    assert store.stored == [
        ("acme", "c1", "m8", "Jane ([EMAIL_1]) asked about VAT.", "openai:gpt-4o-mini", "alice")
    ]
    assert used == [("acme", "alice", "openai", "gpt-4o-mini", 120, 9)]


async def test_offline_no_call_is_made_and_the_extractive_summary_stays() -> None:
    egress, store = FakeEgress([Text("x"), Done()]), FakeSummaries()
    model = summariser(egress, store, route=None)  # the default route: the offline provider
    assert not model.wanted("acme")
    assert await model.summarise(CTX, JOB) is False
    assert egress.requests == [] and store.stored == []


@pytest.mark.parametrize(
    "egress",
    [
        FakeEgress([Error("connection refused", code="provider_unavailable")]),
        FakeEgress(fails=ConnectionError("refused")),  # a provider bug, not a chunk
        FakeEgress([Text("   "), Done()]),  # answered nothing
    ],
    ids=["error-chunk", "raises", "empty"],
)
async def test_a_provider_that_fails_stores_nothing_and_raises_nothing(egress) -> None:
    store = FakeSummaries()
    model = summariser(egress, store)
    assert await model.summarise(CTX, JOB) is False
    assert store.stored == []
    assert model._counters.get("model_summaries_failed") == 1


async def test_a_store_that_is_down_or_an_erased_summary_is_no_failure_of_the_turn() -> None:
    answer: list[StreamChunk] = [Text("A summary."), Done()]
    assert (
        await summariser(FakeEgress(answer), FakeSummaries(down=True)).summarise(CTX, JOB) is False
    )
    assert (
        await summariser(FakeEgress(answer), FakeSummaries(gone=True)).summarise(CTX, JOB) is False
    )


async def test_the_transcript_keeps_the_newest_messages_within_its_limit() -> None:
    many = tuple(("user", f"question number {n:03d}") for n in range(200))
    egress = FakeEgress([Text("ok"), Done()])
    model = summariser(egress, FakeSummaries(), max_input_chars=600)
    await model.summarise(CTX, SummaryJob("c1", "m9", "", many))
    sent = egress.requests[0].messages[1].content
    assert len(sent) <= 600 and "Previous summary" not in sent
    assert sent.endswith('User: "question number 199"') and "number 000" not in sent


def test_a_job_continues_the_model_summary_of_its_base_else_its_extractive_lines() -> None:
    base = StoredSummary(
        first_message_id="m2",
        last_message_id="m6",
        message_count=5,
        summary='- [Q] "Q2"',
        id="s1",
        conversation_id="c1",
        created_at=NOW,
    )
    added = [
        StoredMessage(
            id="m7",
            conversation_id="c1",
            role="user",
            content="Q?",
            content_sanitised="Q?",
            created_at=NOW,
        ),
        StoredMessage(
            id="m8",
            conversation_id="c1",
            role="assistant",
            content="",
            content_sanitised="",
            created_at=NOW,
        ),  # an answer that failed says nothing
    ]
    assert summary_job("c1", "m8", base, added).previous == '- [Q] "Q2"'
    told = base.model_copy(update={"model_summary": "The user asked about Q2."})
    job = summary_job("c1", "m8", told, added)
    assert job.previous == "The user asked about Q2." and job.messages == (("user", "Q?"),)
    assert summary_job("c1", "m8", None, added).previous == ""


@dataclass
class HeldEgress(FakeEgress):
    """Answers only once ``release`` is set: a call still in flight."""

    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def stream(
        self, request: LlmRequest, ctx: EgressContext
    ) -> AsyncGenerator[StreamChunk, None]:
        self.requests.append(request)
        await self.release.wait()
        for chunk in self.chunks:
            yield chunk


def job(conversation: str, last: str, uncovered: int, continues_model: bool = True) -> SummaryJob:
    return SummaryJob(
        conversation,
        last,
        "Earlier.",
        (("user", "Is a meal 13.5%?"),),
        uncovered_tokens=uncovered,
        continues_model=continues_model,
    )


async def test_a_call_waits_until_the_uncovered_lines_reach_the_threshold() -> None:
    """ADR 0065 fourth addendum: fewer uncovered tokens than ``min_new_tokens``: no call (the
    row carries the previous model summary); at the threshold, a call."""
    egress, store = FakeEgress([Text("A summary."), Done()]), FakeSummaries()
    model = summariser(egress, store, min_new_tokens=300)
    assert await model.summarise(CTX, job("c1", "m8", 120)) is False
    assert await model.summarise(CTX, job("c1", "m10", 299)) is False
    assert egress.requests == [] and model._counters.get("model_summaries_deferred") == 2
    assert await model.summarise(CTX, job("c1", "m12", 300)) is True
    assert len(egress.requests) == 1 and [s[2] for s in store.stored] == ["m12"]


async def test_a_range_without_a_model_summary_yet_is_summarised_at_once() -> None:
    """The first compaction (or the first after a rollback or an edit) has no model summary to
    carry: its call is made whatever the threshold, so the next prompt can use one."""
    egress, store = FakeEgress([Text("A summary."), Done()]), FakeSummaries()
    model = summariser(egress, store, min_new_tokens=400)
    assert await model.summarise(CTX, job("c1", "m8", 50, continues_model=False)) is True
    assert len(egress.requests) == 1


async def test_one_call_at_a_time_per_conversation() -> None:
    """A turn that ends while its conversation's previous summary call is still running makes
    no second call (other conversations are not held up); once it has ended, the next does."""
    egress, store = HeldEgress([Text("A summary."), Done()]), FakeSummaries()
    model = summariser(egress, store, min_new_tokens=0)
    first = asyncio.create_task(model.summarise(CTX, job("c1", "m8", 500)))
    other = asyncio.create_task(model.summarise(CTX, job("c2", "m8", 500)))
    for _ in range(5):
        await asyncio.sleep(0)
    assert len(egress.requests) == 2  # c1's and c2's calls are in flight
    assert await model.summarise(CTX, job("c1", "m10", 500)) is False  # c1's is running
    assert len(egress.requests) == 2
    egress.release.set()
    assert await first is True and await other is True
    assert await model.summarise(CTX, job("c1", "m12", 500)) is True
    assert [(s[1], s[2]) for s in store.stored] == [("c1", "m8"), ("c2", "m8"), ("c1", "m12")]
    assert model._counters.get("model_summaries_deferred") == 1


async def test_after_a_failed_call_its_conversation_waits_retry_seconds() -> None:
    """A provider that keeps failing is not called on every turn: the conversation's next call
    waits ``retry_seconds`` (other conversations do not); then it is made again."""
    model = summariser(FakeEgress(fails=ConnectionError("refused")), FakeSummaries())
    assert await model.summarise(CTX, job("c1", "m8", 500)) is False
    egress = FakeEgress([Text("ok"), Done()])
    model._egress = egress
    assert await model.summarise(CTX, job("c1", "m10", 500)) is False  # within 60 s
    assert await model.summarise(CTX, job("c2", "m10", 500)) is True
    assert len(egress.requests) == 1
    model._retry_seconds = 0  # the wait is over
    assert await model.summarise(CTX, job("c1", "m12", 500)) is True
    assert await model.summarise(CTX, job("c1", "m14", 500)) is True  # a success clears it


async def test_the_transcript_gives_the_lines_between_a_carried_summary_and_the_new_messages():
    """A base carrying a model summary with pending lines: the call continues that summary,
    then the extractive lines it does not cover, then the turn's messages in full."""
    base = StoredSummary(
        first_message_id="m2",
        last_message_id="m6",
        message_count=5,
        summary='- [Q] "Q1"\n- [A] "A1."\n- [Q] "Q2"\n- [A] "A2."',
        id="s1",
        conversation_id="c1",
        created_at=NOW,
        model_summary="The user asked about Q1.",
        model_pending_lines=2,
    )
    added = [
        StoredMessage(
            id="m7", conversation_id="c1", role="user", content="Q3?",
            content_sanitised="Q3?", created_at=NOW,
        )
    ]  # fmt: skip
    made = summary_job("c1", "m7", base, added, uncovered_tokens=42)
    assert made.extracts == ('- [Q] "Q2"', '- [A] "A2."') and made.uncovered_tokens == 42
    assert made.continues_model
    plain = base.model_copy(update={"model_summary": None, "model_pending_lines": 0})
    assert not summary_job("c1", "m7", plain, added).continues_model
    egress = FakeEgress([Text("ok"), Done()])
    await summariser(egress, FakeSummaries()).summarise(CTX, made)
    assert egress.requests[0].messages[1].content == (
        'Previous summary: "The user asked about Q1."\n'
        "Extracts of later messages (each question, the answer's first sentence):\n"
        '- [Q] "Q2"\n- [A] "A2."\n'
        "Newer messages:\n"
        'User: "Q3?"'
    )
