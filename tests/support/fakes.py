"""Fakes for fast unit tests of logic. Every adapter also has a test against the real part."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from typing import Any

from egress.client import EgressContext
from egress.policy import EgressMode
from egress.sanitiser import SanitisedText
from egress.wire import Done, Error, LlmRequest, StreamChunk, Text, Tool, Usage


@dataclass(frozen=True)
class FakeFinding:
    entity_type: str
    start: int
    end: int


class EmailOnlyScanner:
    """A PII scanner that only knows e-mail addresses (the real one is egress's)."""

    _email = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")

    def detect(self, text: str) -> list[FakeFinding]:
        return [
            FakeFinding("EMAIL_ADDRESS", m.start(), m.end()) for m in self._email.finditer(text)
        ]


@dataclass
class ScriptedProvider:
    """A provider that replays a script of chunks and records every request it receives."""

    script: Sequence[StreamChunk] = (Text("Hello "), Text("world."), Done(Usage(1, 2)))
    name: str = "scripted"
    requests: list[LlmRequest] = field(default_factory=list)

    async def stream(self, request: LlmRequest) -> AsyncGenerator[StreamChunk, None]:
        self.requests.append(request)
        for chunk in self.script:
            yield chunk

    async def aclose(self) -> None:
        return None


def tool(args: Any) -> Tool:
    return Tool(name="capture_concepts", args=args)


def error(message: str) -> Error:
    return Error(error=message)


@dataclass
class PassThroughEgress:
    """Egress that changes nothing (the real ``EgressClient`` has its own tests)."""

    providers: dict[str, Any]

    async def effective_mode(self, ctx: EgressContext, **call: str) -> EgressMode:
        return EgressMode.ENFORCE

    async def bind_policy(self, ctx: EgressContext, **call: str) -> EgressContext:
        return ctx

    async def sanitise_message(self, ctx: EgressContext, text: str) -> SanitisedText:
        return SanitisedText(text=text)

    async def stream(
        self, request: LlmRequest, ctx: EgressContext
    ) -> AsyncGenerator[StreamChunk, None]:
        async for chunk in self.providers[request.provider].stream(request):
            yield chunk
