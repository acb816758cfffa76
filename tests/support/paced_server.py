"""``python -m tests.support.paced_server --port P --pace S``: the real API in its own process,
served like ``regintel serve`` (``api.server``), with the offline extractive provider paced to
one chunk every ``S`` seconds, so a test can act (kill the process) while an answer streams.
``--record FILE`` appends every request the provider gets (its messages) to FILE as one JSON
line, so a test can read the prompts a worker process built. ``--gate DIR`` holds an answer
half-way for a test in another process: a question whose first word starts with ``Hold``
streams its first piece, writes ``DIR/<word>.waiting`` and waits until ``DIR/<word>.release``
exists. Everything else comes from ``REGINTEL_*`` variables, as in production."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path

from api.app import create_app
from api.server import serve
from api.settings import Settings
from egress.wire import LlmRequest, StreamChunk, Text
from engine.lexicon import ConceptLexicon
from engine.providers.extractive import ExtractiveProvider


@dataclass
class PacedProvider:
    """The extractive provider, waiting ``pace`` seconds before each piece of text."""

    inner: ExtractiveProvider
    pace: float
    name: str = "extractive"
    record: Path | None = None
    gate: Path | None = None

    async def stream(self, request: LlmRequest) -> AsyncGenerator[StreamChunk, None]:
        if self.record is not None:
            with self.record.open("a", encoding="utf-8") as out:
                out.write(request.model_dump_json(include={"task", "messages"}) + "\n")
        held = self._held(request)
        texts = 0
        async for chunk in self.inner.stream(request):
            if isinstance(chunk, Text) and self.pace:
                await asyncio.sleep(self.pace)
            if isinstance(chunk, Text) and held is not None and texts == 1:
                (held.parent / f"{held.name}.waiting").touch()
                # released by a test in another process: a file, polled
                while not (held.parent / f"{held.name}.release").exists():  # noqa: ASYNC110
                    await asyncio.sleep(0.01)
            texts += isinstance(chunk, Text)
            yield chunk

    def _held(self, request: LlmRequest) -> Path | None:
        """``gate/<word>`` for a question whose first word starts with ``Hold``."""
        if self.gate is None or not request.messages:
            return None
        words = str(request.messages[-1].content).split()
        return self.gate / words[0] if words and words[0].startswith("Hold") else None

    async def aclose(self) -> None:
        await self.inner.aclose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pace", type=float, default=0.0)
    parser.add_argument("--record", type=Path, default=None)
    parser.add_argument("--gate", type=Path, default=None)
    args = parser.parse_args()
    settings = Settings()
    lexicon = ConceptLexicon.from_eurovoc()
    provider = PacedProvider(
        ExtractiveProvider(lexicon), args.pace, record=args.record, gate=args.gate
    )
    app = create_app(settings, lexicon=lexicon, providers={"extractive": provider})
    serve(app, settings, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
