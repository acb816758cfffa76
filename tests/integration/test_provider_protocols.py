"""Every provider through its real SDK over real HTTP to the stand-in, protocol by protocol.

The same scripted replies go to the OpenAI Responses, OpenAI chat-completions and Anthropic
Messages providers, each on both HTTP stacks the SDKs offer (aiohttp, the default here, and
httpx; ADR 0038); each must turn its protocol into the same chunks.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest
from pydantic import TypeAdapter

from egress.wire import ChatMessage, Done, Error, LlmProvider, LlmRequest, StreamChunk, Text, Tool
from engine.concepts import CAPTURE_TOOL, CAPTURE_TOOL_NAME
from engine.providers.anthropic_messages import AnthropicMessagesProvider
from engine.providers.openai_chat import OpenAIChatProvider
from engine.providers.openai_responses import OpenAIResponsesProvider
from tests.support.standin import Standin, eventually, running_standin
from tools.standin import Pacing, Reply, StandinServer, ToolCall
from tools.standin.chat_completions import chunk_sequence
from tools.standin.messages import event_sequence

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

KEY = "sk-test-protocols-SECRET"
CAPTURE = {"concepts": [{"domain": "TAX", "kind": "VAT", "jurisdiction": "IE", "prefLabel": "VAT"}]}
PROTOCOLS = ["responses", "chat", "anthropic"]
STACKS = ["aiohttp", "httpx"]
PATHS = {"responses": "/v1/responses", "chat": "/v1/chat/completions", "anthropic": "/v1/messages"}


def build(protocol: str, standin: Standin | str, **extra: Any) -> LlmProvider:
    """``standin``: the stand-in, or the base URL of a server that is not one."""
    options: dict[str, Any] = {"api_key": KEY, "max_retries": 0, "timeout": 10.0, **extra}
    url = standin if isinstance(standin, str) else standin.url
    if protocol == "responses":
        return OpenAIResponsesProvider(base_url=f"{url}/v1", **options)
    if protocol == "chat":
        return OpenAIChatProvider(base_url=f"{url}/v1", **options)
    return AnthropicMessagesProvider(base_url=url, **options)


def request(**overrides: Any) -> LlmRequest:
    fields: dict[str, Any] = {
        "provider": "p",
        "model": "model-x",
        "messages": [
            ChatMessage(role="system", content="Research only."),
            ChatMessage(role="user", content="VAT on books in [LOCATION_1]?"),
        ],
        "tools": [CAPTURE_TOOL],
        "max_output_tokens": 300,
    }
    return LlmRequest(**(fields | overrides))


@pytest.fixture(scope="module")
def standin() -> Iterator[Standin]:
    with running_standin() as running:
        yield running


@pytest.fixture
def server(standin: Standin) -> StandinServer:
    standin.server.script(Reply(text=["ok"]))
    return standin.server


@pytest.fixture(params=[(p, s) for p in PROTOCOLS for s in STACKS], ids="-".join)
async def provider(request: pytest.FixtureRequest, standin: Standin) -> AsyncIterator[LlmProvider]:
    protocol, stack = request.param
    made = build(protocol, standin, http_client=stack)
    yield made
    await made.aclose()


@pytest.mark.parametrize("stack", STACKS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_refused_connection_is_unreachable_not_a_timeout(protocol, stack):
    # aiohttp's errors reach the SDKs as a connect timeout; the provider reads the cause.
    with socket.socket() as sock:  # a port nothing listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    made = build(protocol, f"http://127.0.0.1:{port}", http_client=stack)
    try:
        chunks = await collect(made)
    finally:
        await made.aclose()
    assert [(c.code, c.type) for c in chunks if isinstance(c, Error)] == [
        ("provider_unreachable", "error")
    ]
    assert len(chunks) == 1


@pytest.mark.parametrize("stack", STACKS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_server_slower_than_the_timeout_is_a_timeout(protocol, stack, standin, server):
    server.script(Reply(text=["late"], delay_before_headers=1.5))
    made = build(protocol, standin, http_client=stack, timeout=0.3)
    try:
        chunks = await collect(made)
    finally:
        await made.aclose()
    assert [c.code for c in chunks if isinstance(c, Error)] == ["provider_timeout"]
    assert len(chunks) == 1


async def collect(provider: LlmProvider, req: LlmRequest | None = None) -> list[StreamChunk]:
    with anyio.fail_after(20):
        return [chunk async for chunk in provider.stream(req or request())]


def without_usage(chunks: list[StreamChunk]) -> list[Any]:
    return [Done() if isinstance(c, Done) else c for c in chunks]


async def test_a_text_and_tool_turn(provider, server):
    server.script(
        Reply(
            text=["VAT on ", "books is 0%."],
            calls=[ToolCall(CAPTURE_TOOL_NAME, json.dumps(CAPTURE), chunk_size=7)],
            usage=(40, 12),
        )
    )
    chunks = await collect(provider)
    assert without_usage(chunks) == [
        Text("VAT on "),
        Text("books is 0%."),
        Tool(CAPTURE_TOOL_NAME, CAPTURE),
        Done(),
    ]
    done = chunks[-1]
    assert isinstance(done, Done) and done.usage.input_tokens == 40
    assert done.usage.output_tokens == 12 and not done.answer_only


async def test_a_tool_only_turn(provider, server):
    server.script(Reply(calls=[ToolCall(CAPTURE_TOOL_NAME, json.dumps(CAPTURE))]))
    assert without_usage(await collect(provider)) == [Tool(CAPTURE_TOOL_NAME, CAPTURE), Done()]


async def test_malformed_tool_arguments_arrive_as_the_raw_text(provider, server):
    broken = '{"concepts": [{"domain": "TAX"'
    server.script(Reply(text=["A."], calls=[ToolCall(CAPTURE_TOOL_NAME, broken)]))
    assert without_usage(await collect(provider)) == [
        Text("A."),
        Tool(CAPTURE_TOOL_NAME, broken),
        Done(),
    ]


async def test_a_failure_mid_stream_keeps_the_text_then_errors(provider, server):
    server.script(Reply(text=["Partial ", "answer"], terminal="error", error_code="overloaded"))
    chunks = await collect(provider)
    assert chunks[:2] == [Text("Partial "), Text("answer")]
    [error] = chunks[2:]
    assert isinstance(error, Error) and error.code == "provider_failed"


async def test_a_503_before_the_first_token_is_provider_unavailable(provider, server):
    server.script(Reply(status=503))
    [error] = await collect(provider)
    assert isinstance(error, Error) and error.code == "provider_unavailable"


async def test_a_429_is_rate_limited_and_the_key_never_shows(provider, server):
    server.script(Reply(status=429, echo_key_in_error=True))
    [error] = await collect(provider)
    assert isinstance(error, Error) and error.code == "provider_rate_limited"
    assert "SECRET" not in error.error


async def test_a_dropped_connection_mid_stream_is_interrupted(provider, server):
    server.script(Reply(text=["one ", "two ", "three"], cut_after_tokens=2))
    chunks = await collect(provider)
    assert Text("one ") in chunks
    error = chunks[-1]
    assert isinstance(error, Error) and error.code in {
        "provider_stream_interrupted",
        "provider_stream_incomplete",
    }


async def test_stopping_early_closes_the_upstream_connection(provider, server):
    server.script(Reply(text=["late"], pacing=Pacing(first_token=5.0)))
    stream = provider.stream(request())
    with anyio.move_on_after(0.5):
        await anext(stream)
    await stream.aclose()
    await eventually(lambda: bool(server.received) and server.received[0].disconnected)


async def test_turns_reuse_one_pooled_connection(provider, server):
    server.script(Reply(text=["a", "b"], calls=[ToolCall(CAPTURE_TOOL_NAME, json.dumps(CAPTURE))]))
    for _ in range(8):
        chunks = await collect(provider)
        assert isinstance(chunks[-1], Done)
    assert len(server.received) == 8
    assert server.connections_opened == 1


async def test_pacing_delays_the_first_token(provider, server):
    server.script(Reply(text=["a", "b", "c"], pacing=Pacing(first_token=0.3, tokens_per_second=20)))
    start = time.monotonic()
    stream = provider.stream(request())
    first = await anext(stream)
    ttft = time.monotonic() - start
    rest = [chunk async for chunk in stream]
    total = time.monotonic() - start
    assert first == Text("a") and rest[:2] == [Text("b"), Text("c")]
    assert 0.3 <= ttft < 1.5 and total >= 0.3 + 2 * 0.05


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_the_recorded_body_is_the_request_sent(protocol, standin, server):
    provider = build(protocol, standin, tool_choice="required")
    try:
        await collect(provider)
    finally:
        await provider.aclose()
    [received] = server.received
    assert received.path == PATHS[protocol]
    body = received.body
    assert body["model"] == "model-x" and body["stream"] is True
    if protocol == "responses":
        assert body["instructions"] == "Research only."
        assert body["input"] == [
            {"type": "message", "role": "user", "content": "VAT on books in [LOCATION_1]?"}
        ]
        assert body["tool_choice"] == "required"
        assert body["tools"][0]["name"] == CAPTURE_TOOL_NAME
    elif protocol == "chat":
        assert body["messages"] == [
            {"role": "system", "content": "Research only."},
            {"role": "user", "content": "VAT on books in [LOCATION_1]?"},
        ]
        assert body["tool_choice"] == "required" and body["max_tokens"] == 300
        assert body["tools"][0]["function"]["parameters"] == CAPTURE_TOOL.parameters
        assert body["stream_options"] == {"include_usage": True}
    else:
        assert body["system"] == "Research only."
        assert body["messages"] == [{"role": "user", "content": "VAT on books in [LOCATION_1]?"}]
        assert body["tool_choice"] == {"type": "any"} and body["max_tokens"] == 300
        assert body["tools"][0]["input_schema"] == CAPTURE_TOOL.parameters


async def test_a_server_that_rejects_tools_is_asked_again_without_them(standin, server):
    server.script(Reply(text=["plain answer"], reject_tools=True))
    provider = build("chat", standin)
    try:
        chunks = await collect(provider)
    finally:
        await provider.aclose()
    assert chunks[0] == Text("plain answer")
    done = chunks[-1]
    assert isinstance(done, Done) and done.answer_only
    first, second = server.requests
    assert "tools" in first and "tool_choice" in first
    assert "tools" not in second and "tool_choice" not in second


async def test_a_chat_model_without_tools_runs_answer_only(standin, server):
    provider = build("chat", standin, tools=False)
    try:
        chunks = await collect(provider)
    finally:
        await provider.aclose()
    done = chunks[-1]
    assert isinstance(done, Done) and done.answer_only
    assert "tools" not in server.requests[0]


async def test_strict_responses_tools_send_a_strict_schema_and_drop_nulls(standin, server):
    args = {"concepts": [{**CAPTURE["concepts"][0], "altLabels": None, "definition": None}]}
    server.script(Reply(calls=[ToolCall(CAPTURE_TOOL_NAME, json.dumps(args))]))
    provider = build("responses", standin, strict_tools=True)
    try:
        chunks = await collect(provider)
    finally:
        await provider.aclose()
    assert chunks[0] == Tool(CAPTURE_TOOL_NAME, CAPTURE)
    [tool] = server.requests[0]["tools"]
    item = tool["parameters"]["properties"]["concepts"]["items"]
    assert tool["strict"] is True and item["additionalProperties"] is False
    assert set(item["required"]) == set(item["properties"])
    assert item["properties"]["definition"]["type"] == ["string", "null"]


async def test_reasoning_items_are_tolerated(standin, server):
    server.script(Reply(text=["thought through"], reasoning=True))
    provider = build("responses", standin)
    try:
        chunks = await collect(provider)
    finally:
        await provider.aclose()
    assert without_usage(chunks) == [Text("thought through"), Done()]


@pytest.mark.parametrize("terminal", ["completed", "incomplete", "error"])
def test_the_standin_frames_validate_against_the_sdk_models(terminal: str) -> None:
    from anthropic.types import RawMessageStreamEvent
    from openai.types.chat import ChatCompletionChunk

    reply = Reply(text=["a", "b"], calls=[ToolCall("f", '{"x": 1}')], terminal=terminal)  # type: ignore[arg-type]
    body = {"model": "m", "stream_options": {"include_usage": True}}
    for chunk, _ in chunk_sequence(reply, body, response_id="c"):
        if "error" not in chunk:
            ChatCompletionChunk.model_validate(chunk)
    messages = TypeAdapter(RawMessageStreamEvent)
    for event, _ in event_sequence(reply, body, response_id="m"):
        if event["type"] not in ("ping", "error"):
            messages.validate_python(event)
