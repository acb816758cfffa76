"""The OpenAI Responses provider through the real ``openai`` SDK over real HTTP.

The other end is the stand-in model server (``tools.standin``) on the loopback,
streaming the Responses API's events; nothing here reaches the internet.
"""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Iterator

import anyio
import pytest
from pydantic import TypeAdapter

from egress.wire import ChatMessage, Done, Error, LlmRequest, StreamChunk, Text, Tool, Usage
from engine.concepts import CAPTURE_TOOL, CAPTURE_TOOL_NAME, parse_capture_payload
from engine.providers.openai_responses import OpenAIResponsesProvider
from errors import MalformedToolPayload
from tests.support.standin import Standin, running_standin
from tools.standin import Reply, StandinServer, ToolCall
from tools.standin.responses import event_sequence

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

API_KEY = "sk-test-0123456789abcdefSECRET"
MODEL = "gpt-test-mini"
CONCEPTS = {
    "concepts": [
        {
            "domain": "TAX",
            "kind": "VAT",
            "jurisdiction": "IE",
            "prefLabel": "Value-Added Tax",
            "altLabels": ["VAT"],
            "sourceUrls": ["https://www.revenue.ie/en/vat/index.aspx"],
        }
    ]
}


def chat_request(**overrides) -> LlmRequest:
    fields = {
        "provider": "openai",
        "model": MODEL,
        "messages": [
            ChatMessage(role="system", content="You are a research assistant. Cite node ids."),
            ChatMessage(role="user", content="What is the VAT rate on books?"),
            ChatMessage(role="assistant", content="Which jurisdiction?"),
            ChatMessage(role="user", content="Ireland."),
        ],
        "tools": [CAPTURE_TOOL],
        "max_output_tokens": 512,
    }
    return LlmRequest(**(fields | overrides))


@pytest.fixture(scope="module")
def standin() -> Iterator[Standin]:
    with running_standin() as running:
        yield running


@pytest.fixture
def server(standin: Standin) -> StandinServer:
    standin.server.reset()
    return standin.server


@pytest.fixture
async def provider(standin: Standin) -> AsyncIterator[OpenAIResponsesProvider]:
    base_url = standin.openai_url
    provider = OpenAIResponsesProvider(api_key=API_KEY, base_url=base_url, timeout=10)
    yield provider
    await provider.aclose()


async def collect(provider: OpenAIResponsesProvider, request: LlmRequest) -> list[StreamChunk]:
    with anyio.fail_after(30):
        return [chunk async for chunk in provider.stream(request)]


async def test_text_deltas_stream_as_text_chunks_then_done_with_usage(provider, server):
    server.script(Reply(text=["VAT on ", "books is ", "0% in Ireland."], usage=(42, 9)))

    chunks = await collect(provider, chat_request())

    assert chunks == [
        Text("VAT on "),
        Text("books is "),
        Text("0% in Ireland."),
        Done(Usage(input_tokens=42, output_tokens=9)),
    ]


async def test_the_request_body_is_a_streaming_responses_call(provider, server):
    server.script(Reply(text=["ok"]))

    await collect(provider, chat_request())

    [body] = server.requests
    assert body["model"] == MODEL
    assert body["stream"] is True
    assert body["store"] is False
    assert body["max_output_tokens"] == 512
    assert body["instructions"] == "You are a research assistant. Cite node ids."
    assert body["input"] == [
        {"type": "message", "role": "user", "content": "What is the VAT rate on books?"},
        {"type": "message", "role": "assistant", "content": "Which jurisdiction?"},
        {"type": "message", "role": "user", "content": "Ireland."},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "name": CAPTURE_TOOL_NAME,
            "description": CAPTURE_TOOL.description,
            "parameters": CAPTURE_TOOL.parameters,
            "strict": False,
        }
    ]
    assert server.headers[0]["authorization"] == f"Bearer {API_KEY}"


async def test_a_request_without_system_message_or_tools_omits_them(provider, server):
    server.script(Reply(text=["ok"]))
    request = chat_request(messages=[ChatMessage(role="user", content="Hi")], tools=[])

    await collect(provider, request)

    [body] = server.requests
    assert "instructions" not in body and "tools" not in body
    assert body["input"] == [{"type": "message", "role": "user", "content": "Hi"}]


async def test_a_capture_concepts_call_arrives_once_with_parsed_args(provider, server):
    arguments = json.dumps(CONCEPTS)
    server.script(Reply(text=["Answer."], calls=[ToolCall(CAPTURE_TOOL_NAME, arguments)]))

    chunks = await collect(provider, chat_request())

    assert chunks == [
        Text("Answer."),
        Tool(name=CAPTURE_TOOL_NAME, args=CONCEPTS),
        Done(Usage(input_tokens=11, output_tokens=7)),
    ]
    tool = chunks[1]
    assert isinstance(tool, Tool)
    [concept] = parse_capture_payload(tool.args)
    assert concept.id == "TAX:IE:VAT"


async def test_invalid_tool_json_arrives_as_the_raw_string(provider, server):
    broken = '{"concepts": [{"domain": "TAX", "kind": "VAT"'
    server.script(Reply(calls=[ToolCall(CAPTURE_TOOL_NAME, broken)]))

    chunks = await collect(provider, chat_request())

    assert chunks == [
        Tool(name=CAPTURE_TOOL_NAME, args=broken),
        Done(Usage(input_tokens=11, output_tokens=7)),
    ]
    tool = chunks[0]
    assert isinstance(tool, Tool)
    with pytest.raises(MalformedToolPayload):
        parse_capture_payload(tool.args)


async def test_http_401_becomes_an_error_without_the_key(provider, server):
    server.script(Reply(status=401, error_code="invalid_api_key", echo_key_in_error=True))

    chunks = await collect(provider, chat_request())

    assert chunks == [
        Error(
            "openai: the API key was rejected (HTTP 401) (invalid_api_key)", "provider_auth_failed"
        )
    ]
    assert len(server.requests) == 1  # 401 is not retried
    assert "SECRET" not in repr(chunks)


async def test_http_500_is_retried_by_the_sdk_then_becomes_an_error(standin, server):
    base_url = standin.openai_url
    server.script(Reply(status=500, headers={"retry-after-ms": "10"}))
    provider = OpenAIResponsesProvider(api_key=API_KEY, base_url=base_url, max_retries=2)
    try:
        chunks = await collect(provider, chat_request())
    finally:
        await provider.aclose()

    assert chunks == [
        Error("openai: the provider is unavailable (HTTP 500)", "provider_unavailable")
    ]
    assert len(server.requests) == 3


async def test_a_500_then_a_stream_recovers_through_the_sdk_retry(provider, server):
    server.script(Reply(status=500, headers={"retry-after-ms": "10"}), Reply(text=["fine"]))

    chunks = await collect(provider, chat_request())

    assert chunks == [Text("fine"), Done(Usage(input_tokens=11, output_tokens=7))]
    assert len(server.requests) == 2


async def test_http_429_becomes_a_rate_limit_error(standin, server):
    base_url = standin.openai_url
    server.script(Reply(status=429, error_code="rate_limit_exceeded"))
    provider = OpenAIResponsesProvider(api_key=API_KEY, base_url=base_url, max_retries=0)
    try:
        chunks = await collect(provider, chat_request())
    finally:
        await provider.aclose()

    assert chunks == [
        Error(
            "openai: rate limited or out of quota (HTTP 429) (rate_limit_exceeded)",
            "provider_rate_limited",
        )
    ]


async def test_a_failed_response_becomes_an_error_after_the_text_so_far(provider, server):
    server.script(
        Reply(
            text=["Partial "],
            terminal="failed",
            error_code="server_error",
            error_message=f"boom near {API_KEY}",
        )
    )

    chunks = await collect(provider, chat_request())

    assert chunks == [
        Text("Partial "),
        Error(
            "openai: the response failed (server_error: boom near [redacted])", "provider_failed"
        ),
    ]


async def test_an_error_event_becomes_an_error(provider, server):
    server.script(Reply(terminal="error", error_code="rate_limit_exceeded", error_message="slow"))

    chunks = await collect(provider, chat_request())

    assert chunks == [
        Error(
            "openai: the provider reported an error (rate_limit_exceeded: slow)", "provider_failed"
        )
    ]


async def test_an_incomplete_response_becomes_an_error(provider, server):
    server.script(Reply(text=["Cut"], terminal="incomplete"))

    chunks = await collect(provider, chat_request())

    assert chunks == [
        Text("Cut"),
        Error("openai: the response stopped early (max_output_tokens)", "provider_incomplete"),
    ]


async def test_connection_refused_becomes_an_error():
    with socket.socket() as sock:  # a port that nothing listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    provider = OpenAIResponsesProvider(
        api_key=API_KEY, base_url=f"http://127.0.0.1:{port}/v1", max_retries=0
    )
    try:
        chunks = await collect(provider, chat_request())
    finally:
        await provider.aclose()

    assert chunks == [Error("openai: could not connect to the provider", "provider_unreachable")]


async def test_a_slow_server_becomes_a_timeout_error(standin, server):
    base_url = standin.openai_url
    server.script(Reply(text=["late"], delay_before_headers=1.5))
    provider = OpenAIResponsesProvider(
        api_key=API_KEY, base_url=base_url, timeout=0.3, max_retries=0
    )
    try:
        chunks = await collect(provider, chat_request())
    finally:
        await provider.aclose()

    assert chunks == [Error("openai: the request timed out", "provider_timeout")]


async def test_a_connection_dropped_mid_stream_becomes_an_error(provider, server):
    # created, in_progress, item added, part added, then the first delta; the socket drops.
    server.script(Reply(text=["One ", "two ", "three"], cut_after=5, cut="drop"))

    chunks = await collect(provider, chat_request())

    assert chunks == [
        Text("One "),
        Error(
            "openai: the connection broke while the response was streaming",
            "provider_stream_interrupted",
        ),
    ]
    assert len(server.requests) == 1  # nothing is retried once the stream has started


async def test_a_stream_that_ends_without_a_terminal_event_becomes_an_error(provider, server):
    server.script(Reply(text=["One ", "two "], cut_after=6, cut="end"))

    chunks = await collect(provider, chat_request())

    assert chunks == [
        Text("One "),
        Text("two "),
        Error(
            "openai: the stream ended before the response completed", "provider_stream_incomplete"
        ),
    ]


async def test_stopping_early_closes_the_stream_cleanly(provider, server):
    server.script(Reply(text=["a", "b", "c"]))

    stream = provider.stream(chat_request())
    first = await anext(stream)
    await stream.aclose()

    assert first == Text("a")
    server.script(Reply(text=["again"]))
    assert await collect(provider, chat_request()) == [
        Text("again"),
        Done(Usage(input_tokens=11, output_tokens=7)),
    ]


def test_the_fake_events_validate_against_the_sdk_models():
    from openai.types.responses.response_stream_event import ResponseStreamEvent

    adapter = TypeAdapter(ResponseStreamEvent)
    body = {"model": MODEL, "instructions": "x", "input": [], "tools": [], "stream": True}
    for terminal in ("completed", "failed", "incomplete", "error"):
        reply = Reply(
            text=["a", "b"],
            calls=[ToolCall(CAPTURE_TOOL_NAME, "{}")],
            terminal=terminal,
            error_code="server_error",
        )
        events = event_sequence(reply, body, response_id="resp_x")
        parsed = [adapter.validate_python(event) for event in events]
        assert [event.type for event in parsed] == [event["type"] for event in events]
        assert [event.sequence_number for event in parsed] == list(range(len(events)))


def test_an_empty_api_key_is_refused_at_construction():
    with pytest.raises(ValueError, match="API key"):
        OpenAIResponsesProvider(api_key="")
