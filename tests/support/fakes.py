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
from engine.evidence import EvidenceIndex
from graph.models import GraphCounts, GraphNode, GraphSnapshot


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


class SnapshotGraph:
    """A reader whose snapshot is whatever the test last put in it."""

    def __init__(self, nodes: Sequence[GraphNode]) -> None:
        self.nodes = list(nodes)

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        return [n for n in self.nodes if n.id in ids]

    async def find_concepts_by_label(self, normalised: str) -> list[GraphNode]:
        return []

    async def neighbourhood(self, ids: Sequence[str], limit: int = 200) -> GraphSnapshot:
        return GraphSnapshot()

    async def snapshot(
        self, labels: Sequence[str] | None = None, limit: int = 1000
    ) -> GraphSnapshot:
        return GraphSnapshot(nodes=self.nodes)

    async def changes_since(self, timestamp: str, limit: int = 1000) -> GraphSnapshot:
        return GraphSnapshot()

    async def counts(self) -> GraphCounts:
        return GraphCounts(nodes=len(self.nodes), edges=0)


async def built(*nodes: GraphNode) -> tuple[SnapshotGraph, EvidenceIndex]:
    """A graph holding ``nodes`` and an evidence index built from it."""
    graph = SnapshotGraph(nodes)
    index = EvidenceIndex(graph)
    await index.refresh()
    return graph, index
