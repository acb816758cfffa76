from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import pytest

from egress.pii import PiiDetector, build_pii_detector
from egress.wire import Done, LlmRequest, StreamChunk, Text


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def detector() -> PiiDetector:
    return build_pii_detector()


class FakeProvider:
    """Records every request it receives and replies with scripted chunks."""

    def __init__(self, name: str = "fake", chunks: Sequence[StreamChunk] = ()) -> None:
        self.name = name
        self.chunks = list(chunks) or [Text("ok"), Done()]
        self.requests: list[LlmRequest] = []

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        self.requests.append(request)
        for chunk in self.chunks:
            yield chunk

    async def aclose(self) -> None:
        return None
