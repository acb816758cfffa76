"""``python -m tests.support.paced_server --port P --pace S``: the real API in its own process,
served like ``regintel serve`` (``api.server``), with the offline extractive provider paced to
one chunk every ``S`` seconds, so a test can act (kill the process) while an answer streams.
``--record FILE`` appends every request the provider gets (its messages) to FILE as one JSON
line, so a test can read the prompts a worker process built. Everything else comes from
``REGINTEL_*`` variables, as in production."""

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

    async def stream(self, request: LlmRequest) -> AsyncGenerator[StreamChunk, None]:
        if self.record is not None:
            with self.record.open("a", encoding="utf-8") as out:
                out.write(request.model_dump_json(include={"task", "messages"}) + "\n")
        async for chunk in self.inner.stream(request):
            if isinstance(chunk, Text) and self.pace:
                await asyncio.sleep(self.pace)
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pace", type=float, default=0.0)
    parser.add_argument("--record", type=Path, default=None)
    args = parser.parse_args()
    settings = Settings()
    lexicon = ConceptLexicon.from_eurovoc()
    provider = PacedProvider(ExtractiveProvider(lexicon), args.pace, record=args.record)
    app = create_app(settings, lexicon=lexicon, providers={"extractive": provider})
    serve(app, settings, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
