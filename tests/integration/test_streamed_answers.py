"""An answer written as it streams (ADR 0018), on both conversation stores and through the turn.

The store: the question and a ``streaming`` answer are saved together, checkpoints rewrite the
answer only while it streams, it is finished once, and a ``streaming`` answer that nobody has
written for the lease reads as ``interrupted``. The turn: while the model is still answering,
the store already holds the question and the text so far.
"""

import asyncio
import json
from typing import Any

import anyio
import pytest

from api.bootstrap import bootstrap
from api.settings import Settings
from conversations.models import ConversationContext, NewMessage
from conversations.sqlite import SqliteConversationStore
from egress.wire import Done, Text, Tool
from engine.ingestion import InMemoryIngestionQueue
from engine.lexicon import ConceptLexicon
from engine.router import LlmRouter, Route
from engine.turn import TurnRequest
from errors import NotFound
from tests.support.fakes import EmailOnlyScanner, PassThroughEgress, ScriptedProvider

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def store(conversation_backend):
    store = conversation_backend.open()
    await store.init()
    yield store
    await store.aclose()


def context():
    return ConversationContext()


def begun():
    return [
        NewMessage(role="user", content="q", content_sanitised="q"),
        NewMessage(role="assistant", content="", content_sanitised="", status="streaming"),
    ]


async def test_an_answer_is_checkpointed_while_streaming_and_finished_once(store):
    conversation = await store.create_conversation("acme", "alice")
    _, answer = await store.save_turn(
        "acme", conversation.id, begun(), ConversationContext(), user_id="alice"
    )
    assert await store.checkpoint_answer(
        "acme", conversation.id, answer.id, "It is", "It is", user_id="alice"
    )
    history = await store.recent_messages("acme", conversation.id, 10, user_id="alice")
    assert [(m.content, m.status) for m in history] == [("q", "complete"), ("It is", "streaming")]

    final = NewMessage(
        role="assistant",
        content="It is 23%.",
        content_sanitised="It is 23%.",
        status="complete",
        referenced_nodes=["IE:RATE:VAT_STANDARD"],
    )
    context = ConversationContext(active_node_ids=["IE:RATE:VAT_STANDARD"])
    assert await store.finish_answer(
        "acme", conversation.id, answer.id, final, context, user_id="alice"
    )
    # a checkpoint that arrives late, and a second finish, change nothing
    assert not await store.checkpoint_answer(
        "acme", conversation.id, answer.id, "It", "It", user_id="alice"
    )
    again = final.model_copy(update={"content": "other", "status": "partial"})
    assert not await store.finish_answer(
        "acme", conversation.id, answer.id, again, context, user_id="alice"
    )
    [_, stored] = await store.recent_messages("acme", conversation.id, 10, user_id="alice")
    assert (stored.content, stored.status, stored.referenced_nodes) == (
        "It is 23%.",
        "complete",
        ["IE:RATE:VAT_STANDARD"],
    )
    assert (await store.load_context("acme", conversation.id, user_id="alice")).active_node_ids == [
        "IE:RATE:VAT_STANDARD"
    ]


async def test_another_tenant_can_neither_checkpoint_nor_finish_an_answer(store):
    conversation = await store.create_conversation("acme", "alice")
    _, answer = await store.save_turn(
        "acme", conversation.id, begun(), ConversationContext(), user_id="alice"
    )
    assert not await store.checkpoint_answer(
        "globex", conversation.id, answer.id, "x", "x", user_id="carol"
    )
    final = NewMessage(role="assistant", content="x", content_sanitised="x")
    with pytest.raises(NotFound):
        await store.finish_answer(
            "globex", conversation.id, answer.id, final, context(), user_id="carol"
        )
    [_, stored] = await store.recent_messages("acme", conversation.id, 10, user_id="alice")
    assert (stored.content, stored.status) == ("", "streaming")


async def test_a_streaming_answer_nobody_writes_any_more_reads_as_interrupted(store):
    conversation = await store.create_conversation("acme", "alice")
    _, answer = await store.save_turn(
        "acme", conversation.id, begun(), ConversationContext(), user_id="alice"
    )
    await store.checkpoint_answer(
        "acme", conversation.id, answer.id, "half an", "half an", user_id="alice"
    )
    store.stream_lease = 0.05  # as a restarted process sees it once the lease has passed
    await asyncio.sleep(0.1)
    history = await store.recent_messages("acme", conversation.id, 10, user_id="alice")
    assert [(m.content, m.status) for m in history] == [
        ("q", "complete"),
        ("half an", "interrupted"),
    ]


class PausedProvider(ScriptedProvider):
    """Streams some text, then waits until the test lets it finish."""

    def __init__(self):
        super().__init__()
        self.go_on = asyncio.Event()

    async def stream(self, request):
        self.requests.append(request)
        yield Text("The standard rate ")
        yield Text("is 23%.")
        await self.go_on.wait()
        yield Text(" The end.")
        yield Done()


async def test_the_question_and_the_answer_so_far_are_stored_while_the_model_answers(tmp_path):
    provider = PausedProvider()
    container = await bootstrap(
        Settings(
            data_dir=tmp_path,
            log_json=False,
            answer_write_interval_seconds=0.01,
            answer_write_min_chars=1,
        ),
        conversations=SqliteConversationStore(tmp_path / "c.db"),
        pii_scanner=EmailOnlyScanner(),
        lexicon=ConceptLexicon(),
        ingestion=InMemoryIngestionQueue(),
        providers={"paced": provider},
        egress=PassThroughEgress({"paced": provider}),
        router=LlmRouter(Route("paced", "m")),
    )
    try:
        events: list[Any] = []

        async def run():
            request = TurnRequest("acme", "alice", "What is the VAT rate?")
            async for event in container.engine.run_turn(request):
                events.append(event)

        turn = asyncio.create_task(run())
        store = container.conversations
        with anyio.fail_after(10):
            while not events:  # noqa: ASYNC110 - the turn runs in its own task
                await asyncio.sleep(0.01)
            conversation_id = events[0].conversation_id
            while True:
                history = await store.recent_messages("acme", conversation_id, 10, user_id="alice")
                if history and history[-1].content == "The standard rate is 23%.":
                    break
                await asyncio.sleep(0.01)
        assert [(m.role, m.content, m.status) for m in history] == [
            ("user", "What is the VAT rate?", "complete"),
            ("assistant", "The standard rate is 23%.", "streaming"),
        ]
        provider.go_on.set()
        await turn
        assert events[-1].status == "complete"
        [_, answer] = await store.recent_messages("acme", conversation_id, 10, user_id="alice")
        assert (answer.content, answer.status) == ("The standard rate is 23%. The end.", "complete")
    finally:
        await container.aclose()


class JsonArgumentsProvider(ScriptedProvider):
    """Parses the tool call's JSON arguments the way the SDK-backed providers do."""

    async def stream(self, request):
        self.requests.append(request)
        yield Text("An answer.")
        arguments = '{"concepts": ' + "[" * 100_000 + "]" * 100_000 + "}"
        yield Tool(name="capture_concepts", args=json.loads(arguments))
        yield Done()


async def test_regression_deeply_nested_tool_arguments_ended_a_whole_answer_as_internal_error(
    tmp_path,
):
    """Regression: ``json.loads`` of 100,000 nested arrays raises ``RecursionError`` (not a
    ``ValueError``) in a provider; the turn reported ``internal_error`` after a whole answer."""
    nested: object = "x"
    for _ in range(100_000):
        nested = [nested]
    provider = ScriptedProvider(
        script=[
            Text("An answer."),
            Tool(name="capture_concepts", args={"concepts": [{"domain": nested}]}),
            Tool(name="capture_concepts", args='{"concepts": ' + "[" * 100_000),
            Done(),
        ]
    )
    events = await one_turn(tmp_path, provider)
    warnings = [e.warning.code for e in events if e.type == "warning"]
    assert warnings == ["malformed_tool_payload", "malformed_tool_payload"]
    assert [e.type for e in events if e.type == "error"] == []
    assert events[-1].status == "complete"

    events = await one_turn(tmp_path / "json", JsonArgumentsProvider())
    shown = [e for e in events if e.type != "progress"]
    assert [e.type for e in shown] == ["metadata", "text", "warning", "done"]
    assert shown[2].warning.code == "malformed_tool_payload"
    assert events[-1].status == "complete"


async def one_turn(tmp_path, provider):
    container = await bootstrap(
        Settings(data_dir=tmp_path, log_json=False),
        conversations=SqliteConversationStore(tmp_path / "c.db"),
        pii_scanner=EmailOnlyScanner(),
        lexicon=ConceptLexicon(),
        ingestion=InMemoryIngestionQueue(),
        providers={"scripted": provider},
        egress=PassThroughEgress({"scripted": provider}),
        router=LlmRouter(Route("scripted", "m")),
    )
    try:
        request = TurnRequest("acme", "alice", "What is the VAT rate?")
        return [event async for event in container.engine.run_turn(request)]
    finally:
        await container.aclose()


class CountingScanner(EmailOnlyScanner):
    """Records every text handed to PII detection."""

    def __init__(self):
        self.scanned: list[str] = []

    def detect(self, text):
        self.scanned.append(text)
        return super().detect(text)


class PacedProvider(ScriptedProvider):
    """Its script with a pause before each chunk (the journal gets its turns)."""

    async def stream(self, request):
        self.requests.append(request)
        for chunk in self.script:
            await asyncio.sleep(0.005)
            yield chunk


async def _real_egress_engine(tmp_path, provider, detector, **settings):
    return await bootstrap(
        Settings(data_dir=tmp_path, log_json=False, ingestion_worker=False, **settings),
        conversations=SqliteConversationStore(tmp_path / "c.db", stream_lease_seconds=0.05),
        pii_scanner=EmailOnlyScanner(),
        egress_detector=detector,
        lexicon=ConceptLexicon(),
        ingestion=InMemoryIngestionQueue(),
        providers={"scripted": provider},
        router=LlmRouter(Route("scripted", "m")),
    )


async def test_checkpoints_write_the_text_so_far_without_scanning_it(tmp_path):
    """The question and the final answer are scanned once each; the checkpoints in between
    (one per chunk here) hand the PII detector nothing (ADR 0038)."""
    chunks = [Text(f"part {n} of the answer, mary@example.ie. ") for n in range(40)]
    provider = PacedProvider(script=(*chunks, Done()))
    detector = CountingScanner()
    container = await _real_egress_engine(
        tmp_path, provider, detector, answer_write_interval_seconds=0.001, answer_write_min_chars=1
    )
    checkpoints = []
    original = container.conversations.checkpoint_answer

    async def counted(*args, **kwargs):
        checkpoints.append(args[3])
        return await original(*args, **kwargs)

    container.conversations.checkpoint_answer = counted
    try:
        request = TurnRequest("acme", "alice", "What is the VAT rate?")
        events = [event async for event in container.engine.run_turn(request)]
        answer = "".join(str(c.delta) for c in chunks)
        assert events[-1].status == "complete"
        conversation_id = events[0].conversation_id
        [_, stored] = await container.conversations.recent_messages(
            "acme", conversation_id, 10, user_id="alice"
        )
    finally:
        await container.aclose()
    assert len(checkpoints) >= 2 and all(answer.startswith(text) for text in checkpoints)
    assert detector.scanned == ["What is the VAT rate?", answer]
    assert stored.content == answer and "mary@example.ie" not in stored.content_sanitised


async def test_an_interrupted_answer_reaches_the_next_prompt_sanitised(tmp_path):
    """Its process died before the final save: the checkpoint kept what the user saw, and the
    next turn sanitises it before it goes to the model as history."""
    provider = ScriptedProvider()
    container = await _real_egress_engine(tmp_path, provider, EmailOnlyScanner())
    store = container.conversations
    try:
        conversation = await store.create_conversation("acme", "alice")
        _, answer = await store.save_turn(
            "acme", conversation.id, begun(), ConversationContext(), user_id="alice"
        )
        partial = "Write to mary@example.ie and ask"
        await store.checkpoint_answer(
            "acme", conversation.id, answer.id, partial, "", user_id="alice"
        )
        await asyncio.sleep(0.1)  # the lease passes: the answer reads as interrupted
        request = TurnRequest("acme", "alice", "And then?", conversation_id=conversation.id)
        events = [event async for event in container.engine.run_turn(request)]
        assert events[-1].status == "complete"
        [sent] = provider.requests
        history = [m.content for m in sent.messages if m.role == "assistant"]
        assert history == ["Write to [EMAIL_ADDRESS_1] and ask"]
        assert all("mary@example.ie" not in m.content for m in sent.messages)
        stored = await store.recent_messages("acme", conversation.id, 10, user_id="alice")
        assert (stored[1].content, stored[1].status) == (partial, "interrupted")
    finally:
        await container.aclose()
