"""The router's fallback and timeouts, over fake egress streams (the real SDKs are covered in
``tests/integration/test_provider_protocols.py`` and ``tests/e2e/test_chat_providers.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import anyio
import pytest

from egress.client import EgressContext
from egress.wire import ChatMessage, Done, Error, LlmRequest, StreamChunk, Text
from engine.router import CallTimeouts, LlmRouter, Route, parse_route
from errors import EgressBlocked

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

CTX = EgressContext("acme", "alice", "c1")


class ScriptedEgress:
    def __init__(self, scripts: dict[str, list[StreamChunk | float | Exception]]) -> None:
        self.scripts = scripts
        self.calls: list[str] = []

    async def stream(
        self, request: LlmRequest, ctx: EgressContext
    ) -> AsyncGenerator[StreamChunk, None]:
        self.calls.append(request.provider)
        for step in self.scripts[request.provider]:
            if isinstance(step, float):
                await asyncio.sleep(step)
            elif isinstance(step, Exception):
                raise step
            else:
                yield step


def request(provider: str = "a") -> LlmRequest:
    return LlmRequest(
        provider=provider, model="m", messages=[ChatMessage(role="user", content="q")]
    )


def router(**options) -> LlmRouter:
    return LlmRouter(Route("a", "m"), fallbacks=[Route("b", "m")], **options)


async def run(r: LlmRouter, egress: ScriptedEgress) -> list[StreamChunk]:
    with anyio.fail_after(5):
        return [c async for c in r.stream(egress, request(), CTX)]


async def test_a_failure_before_the_first_token_falls_back():
    egress = ScriptedEgress(
        {"a": [Error("down", "provider_unavailable")], "b": [Text("hi"), Done()]}
    )
    assert await run(router(), egress) == [Text("hi"), Done()]
    assert egress.calls == ["a", "b"]


async def test_a_failure_after_text_never_falls_back():
    egress = ScriptedEgress(
        {"a": [Text("part"), Error("gone", "provider_unavailable")], "b": [Text("hi"), Done()]}
    )
    assert await run(router(), egress) == [Text("part"), Error("gone", "provider_unavailable")]
    assert egress.calls == ["a"]


async def test_a_rejected_request_does_not_fall_back():
    egress = ScriptedEgress({"a": [Error("bad", "provider_rejected_request")], "b": [Done()]})
    assert await run(router(), egress) == [Error("bad", "provider_rejected_request")]


async def test_when_every_route_fails_the_last_error_is_shown():
    egress = ScriptedEgress(
        {
            "a": [Error("a down", "provider_unavailable")],
            "b": [Error("b down", "provider_unreachable")],
        }
    )
    assert await run(router(), egress) == [Error("b down", "provider_unreachable")]


async def test_no_first_token_in_time_is_a_timeout_that_falls_back():
    egress = ScriptedEgress({"a": [5.0, Text("late")], "b": [Text("hi"), Done()]})
    r = router(timeouts=CallTimeouts(first_token=0.1, answer=5))
    assert await run(r, egress) == [Text("hi"), Done()]


async def test_an_answer_that_does_not_end_in_time_is_a_timeout_error():
    egress = ScriptedEgress({"a": [Text("x"), 5.0, Done()], "b": [Done()]})
    r = router(timeouts=CallTimeouts(first_token=1, answer=0.2))
    chunks = await run(r, egress)
    assert chunks[0] == Text("x")
    assert isinstance(chunks[1], Error) and chunks[1].code == "provider_timeout"
    assert egress.calls == ["a"]


async def test_a_blocked_first_route_raises_and_a_blocked_fallback_is_skipped():
    blocked = EgressBlocked("no")
    with pytest.raises(EgressBlocked):
        await run(router(), ScriptedEgress({"a": [blocked], "b": [Done()]}))
    egress = ScriptedEgress({"a": [Error("down", "provider_unavailable")], "b": [blocked]})
    assert await run(router(), egress) == [Error("down", "provider_unavailable")]


def test_routes_per_tenant_then_task_then_default():
    r = LlmRouter(
        Route("d", "m"),
        by_task={"repair": Route("t", "m")},
        by_tenant={"acme": {"main_chat": Route("x", "1")}, "globex": {"*": Route("y", "2")}},
    )
    assert r.route("main_chat", "acme") == Route("x", "1")
    assert r.route("repair", "acme") == Route("t", "m")
    assert r.route("repair", "globex") == Route("y", "2")
    assert r.route("main_chat", "initech") == Route("d", "m")
    assert parse_route("openai_chat:llama3:8b") == Route("openai_chat", "llama3:8b")
    with pytest.raises(ValueError):
        parse_route("no-model")
