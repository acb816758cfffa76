"""The stand-in model server (``tools.standin``) on a loopback port, in a thread."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import anyio

from tests.support.server import running_server
from tools.standin import Pacing, StandinServer


@dataclass(frozen=True)
class Standin:
    url: str  # the root: Anthropic's SDK takes it as is
    server: StandinServer

    @property
    def openai_url(self) -> str:
        """The OpenAI SDKs' ``base_url`` (it ends in ``/v1``)."""
        return f"{self.url}/v1"


@contextmanager
def running_standin(pacing: Pacing | None = None) -> Iterator[Standin]:
    server = StandinServer(pacing=pacing)
    with running_server(server) as url:
        yield Standin(url, server)


async def eventually(predicate: Callable[[], bool], seconds: float = 5.0) -> None:
    """Wait until ``predicate()`` holds (the stand-in runs in another thread)."""
    for _ in range(int(seconds / 0.02)):
        if predicate():
            return
        await anyio.sleep(0.02)
    raise AssertionError("the condition did not hold in time")
