"""Engine overhead of a chat turn with the offline extractive provider, over real HTTP.

Measures request -> first `text` event and request -> `done`, p50 and p99, over N turns with
1 and with 20 concurrent conversations, and beside it, in the same run, the provider called
directly with the same prompt (what the engine adds is the difference). Each turn of one
conversation continues it, so history and active concepts grow as in real use.

    .venv/bin/python bench/chat_turn_bench.py [--turns 200] [--concurrency 1 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.bootstrap import bootstrap
from api.settings import Settings
from egress.wire import ChatMessage, LlmRequest
from engine.concepts import CAPTURE_TOOL
from engine.prompt import PromptInputs, build_messages, detect_jurisdictions
from engine.seeding import seed_graph
from tests.support.server import sse_events

QUESTIONS = [
    "What is the standard rate of VAT in Ireland?",
    "How does PRSI class S work for the self-employed?",
    "What are the USC rates and bands?",
    "Is there capital gains tax relief when I sell my business in Ireland?",
    "When is the Form 11 return due?",
    "What VAT applies to goods moved to Northern Ireland?",
    "How does EU Regulation 883/2004 coordinate social security?",
    "What is the annual CGT exemption?",
]
HEADERS = {"Authorization": "Bearer dev-acme-alice"}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


async def one_conversation(base: str, turns: int, first: list[float], done: list[float]) -> None:
    conversation_id = None
    async with httpx.AsyncClient(base_url=base, headers=HEADERS, timeout=60) as client:
        for i in range(turns):
            body = {"message": QUESTIONS[i % len(QUESTIONS)]}
            if conversation_id:
                body["conversationId"] = conversation_id
            start = time.perf_counter()
            seen_text = False
            async with client.stream("POST", "/api/chat", json=body) as response:
                response.raise_for_status()
                async for event in sse_events(response):
                    if event.event == "text" and not seen_text:
                        first.append(time.perf_counter() - start)
                        seen_text = True
                    elif event.event == "done":
                        done.append(time.perf_counter() - start)
                        conversation_id = event.payload["conversationId"]


async def http_turns(base: str, concurrency: int, per: int) -> tuple[list[float], list[float]]:
    first: list[float] = []
    done: list[float] = []
    await asyncio.gather(*[one_conversation(base, per, first, done) for _ in range(concurrency)])
    return first, done


async def direct_provider(settings: Settings, turns: int) -> tuple[list[float], list[float]]:
    container = await bootstrap(settings)
    provider = container.providers["extractive"]
    first, done = [], []
    try:
        for i in range(turns):
            question = QUESTIONS[i % len(QUESTIONS)]
            jurisdictions = detect_jurisdictions(question)
            request = LlmRequest(
                provider="extractive", model="extractive-v1", tools=[CAPTURE_TOOL],
                messages=build_messages(PromptInputs(
                    question=ChatMessage(role="user", content=question, sanitised=True),
                    jurisdictions=jurisdictions,
                    evidence=container.evidence.search(question, 6, jurisdictions).hits,
                )),
            )  # fmt: skip
            start = time.perf_counter()
            seen = False
            async for chunk in provider.stream(request):
                if chunk.type == "text" and not seen:
                    first.append(time.perf_counter() - start)
                    seen = True
            done.append(time.perf_counter() - start)
    finally:
        await container.aclose()
    return first, done


async def seed(settings: Settings) -> None:
    container = await bootstrap(settings)
    try:
        await seed_graph(container.graph, container.writer)
    finally:
        await container.aclose()


@contextmanager
def served(settings: Settings) -> Iterator[str]:
    """The API as its own process (as in production), so the client does not share its GIL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "REGINTEL_DATA_DIR": str(settings.data_dir),
           "REGINTEL_LOG_LEVEL": "WARNING"}  # fmt: skip
    cli = Path(sys.executable).with_name("regintel")
    server = subprocess.Popen([cli, "serve", "--port", str(port)], env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def row(name: str, first: list[float], done: list[float]) -> str:
    return (
        f"{name:<34} {len(done):>5} {pct(first, 0.5):>9.1f} {pct(first, 0.99):>9.1f}"
        f" {pct(done, 0.5):>9.1f} {pct(done, 0.99):>9.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 20])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), log_level="WARNING", heartbeat_seconds=15)
        asyncio.run(seed(settings))
        rows = []
        first, done = asyncio.run(direct_provider(settings, args.turns))
        rows.append(row("provider called directly", first, done))
        with served(settings) as base:
            for concurrency in args.concurrency:
                first, done = asyncio.run(
                    http_turns(base, concurrency, max(1, args.turns // concurrency))
                )
                rows.append(row(f"engine over HTTP, {concurrency} concurrent", first, done))
    print(
        f"{'ms':<34} {'turns':>5} {'first p50':>9} {'first p99':>9} {'done p50':>9} {'done p99':>9}"
    )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
