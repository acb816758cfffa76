"""What the engine adds to a model's stream, over real HTTP, against a paced stand-in model.

The stand-in (``tools.standin``) runs in its own process, paced like a real model
(first token after 300 ms, then 40 tokens/s), and answers every request with text and a
``capture_concepts`` call. Each code tree given with ``--tree NAME=DIR`` is served in its own
process (``regintel serve``, the OpenAI Responses provider, the seeded graph, SQLite) and
measured side by side in one run, beside the same ``openai`` SDK calling the stand-in
directly. The load generator is a third process (this one).

Phases (each prints a table):

- ``ttft``: time to first token at each ``--concurrency`` (conversations in flight, each
  running turns back to back); the direct SDK at the same concurrency is the baseline, the
  engine's "added" figures are its percentiles minus the baseline's. A 503 ``overloaded`` is
  counted (and its latency kept), then the conversation waits ``Retry-After`` and goes on.
- ``cpu``: the worker's CPU time (``/proc/<pid>/stat``) over turns with a short (5-token) and
  a long (100-token) answer: per chunk = the difference / 95 tokens, per turn = the short
  turn minus its 5 chunks; upstream connections the stand-in saw per 100 turns. First the
  same streams through the SDK alone (``responses.create``, this process's CPU), on httpx and
  on aiohttp: what calling the model costs any client, so the engine's own part is a
  worker's figure minus the row of the stack it runs on.
- ``streams``: ``--streams`` concurrent paced streams for ``--seconds``: each stand-in token
  carries the wall-clock time it left the stand-in, so the client measures the delay to its
  arrival; errors and the worker's RSS.

    .venv/bin/python bench/turn_overhead_bench.py --tree before=/tmp/before --tree after=.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import socket
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HEADERS = {"Authorization": "Bearer dev-acme-alice"}
QUESTIONS = [
    "What is the standard rate of VAT in Ireland?",
    "How does PRSI class S work for the self-employed?",
    "What are the USC rates and bands?",
    "What does Article 5 of the AI Act prohibit?",
    "When must a controller notify a personal data breach under the GDPR?",
]
from tools.standin.stamped import SHORT  # noqa: E402

LONG = 100  # tokens of the long and the stamped answers (bench/capacity_bench.py sets it)
UNIQUE = False  # --unique-questions: a random reference appended to every engine question


# --- the stand-in process ------------------------------------------------------------------


def run_standin(port: int, first_token_ms: float, tokens_per_second: float) -> None:
    """The stamping stand-in (``tools.standin.stamped``), ``LONG`` tokens a long answer."""
    from tools.standin.stamped import run

    run(port, first_token_ms, tokens_per_second, LONG)


# --- processes -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_http(url: str, process: subprocess.Popen[bytes], seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url}: the process exited ({process.returncode})")
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not start")


@contextmanager
def standin_process(args: argparse.Namespace) -> Iterator[str]:
    port = free_port()
    command = [sys.executable, __file__, "--standin-port", str(port),
               "--first-token-ms", str(args.first_token_ms),
               "--tokens-per-second", str(args.tokens_per_second)]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/bench/stats", process)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


@dataclass
class Worker:
    name: str
    base: str
    pid: int

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> tuple[float, float]:
        status = Path(f"/proc/{self.pid}/status").read_text().splitlines()
        kb = {line.split(":")[0]: int(line.split()[1]) for line in status if "kB" in line}
        return kb["VmRSS"] / 1024, kb["VmHWM"] / 1024


@contextmanager
def worker_process(
    name: str, tree: Path, data: Path, standin: str, env: dict[str, str],
    serve_args: tuple[str, ...] = (), start_seconds: float = 180,
) -> Iterator[Worker]:  # fmt: skip
    port = free_port()
    full = {**os.environ, "PYTHONPATH": str(tree), "REGINTEL_DATA_DIR": str(data),
            "REGINTEL_LOG_LEVEL": "WARNING", "REGINTEL_LLM_PROVIDER": "openai",
            "REGINTEL_LLM_MODEL": "gpt-bench", "REGINTEL_OPENAI_API_KEY": "sk-bench",
            "REGINTEL_OPENAI_BASE_URL": f"{standin}/v1", "REGINTEL_HEARTBEAT_SECONDS": "15",
            # one tenant and user drive the whole load: the rate limiter would refuse it
            "REGINTEL_RATE_LIMIT_TENANT_PER_MINUTE": "0",
            "REGINTEL_RATE_LIMIT_USER_PER_MINUTE": "0",
            **env}  # fmt: skip
    command = [sys.executable, "-c", "from api.cli import app; app()", "serve",
               "--port", str(port), *serve_args]  # fmt: skip
    log = open(data.parent / f"{name}.log", "ab")  # closed with the process
    process = subprocess.Popen(command, cwd=tree, env=full, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/health", process, start_seconds)
        yield Worker(name, base, process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


# --- clients -------------------------------------------------------------------------------


@dataclass
class Samples:
    first: list[float] = field(default_factory=list)  # seconds to the first token
    refused: list[float] = field(default_factory=list)  # seconds to a 503
    errors: int = 0
    admitted: int = 0  # turns whose stream started (200)
    refusals: list[tuple[int, str, float]] = field(default_factory=list)  # status, code, R-A
    delays: list[float] = field(default_factory=list)  # stand-in send -> client arrival
    turns: int = 0
    concepts_missing: int = 0


def client(limit: int) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=limit, max_keepalive_connections=limit)
    return httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(300, connect=60))


class TurnFrames:
    """The SSE frames of one turn as its bytes arrive, counted into ``out``: the first token's
    time, stamped delays, errors, whether ``concepts`` came before ``done``."""

    def __init__(self, out: Samples, start: float, stamped: bool, conversation: str | None):
        self.out, self.start, self.stamped = out, start, stamped
        self.conversation = conversation
        self._buffer, self._first, self._concepts = b"", True, False

    def feed(self, data: bytes) -> None:
        now, out = time.time(), self.out
        *events, self._buffer = (self._buffer + data).split(b"\r\n\r\n")
        for event in events:
            if event.startswith(b"event: text"):
                if self._first:
                    out.first.append(time.perf_counter() - self.start)
                    self._first = False
                if self.stamped:
                    at = event.find(b'"delta":"') + 9
                    out.delays.append(now - float(event[at : at + 17]))
            elif event.startswith(b"event: concepts"):
                self._concepts = True
            elif event.startswith(b"event: error"):
                out.errors += 1
            elif event.startswith(b"event: done"):
                self.conversation = json.loads(event.split(b"data: ", 1)[1])["conversationId"]
                out.turns += 1
                out.concepts_missing += not self._concepts


async def engine_turn(http: httpx.AsyncClient, base: str, body: dict[str, Any], out: Samples,
                      stamped: bool = False) -> tuple[str | None, float]:  # fmt: skip
    """One turn; returns the conversation id and the Retry-After (0 when admitted)."""
    start = time.perf_counter()
    conversation = body.get("conversationId")
    async with http.stream("POST", f"{base}/api/chat", json=body, headers=HEADERS) as response:
        if response.status_code == 503:
            out.refused.append(time.perf_counter() - start)
            await response.aread()
            return conversation, float(response.headers.get("retry-after", "1"))
        if response.status_code != 200:
            out.errors += 1
            await response.aread()
            return conversation, 1.0
        frames = TurnFrames(out, start, stamped, conversation)
        async for raw in response.aiter_raw():
            frames.feed(raw)
    return frames.conversation, 0.0


class RawClient:
    """One keep-alive HTTP/1.1 connection to the worker, read with ``asyncio`` streams alone.

    The load generator shares the machine's two cores with the worker and the stand-in; httpx
    costs it ~10x more CPU per request and per SSE frame than this, so with hundreds of
    conversations it measured its own saturation (``--client httpx`` keeps the old client).
    Requests and framing are what ``POST /api/chat`` needs and nothing else: a JSON body, a
    status line and headers, then a chunked SSE body or a body of ``Content-Length``.
    """

    def __init__(self, base: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self._host, self._port = host, int(port)
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self._head = (f"POST /api/chat HTTP/1.1\r\nHost: {base.removeprefix('http://')}\r\n"
                      f"Authorization: {HEADERS['Authorization']}\r\n"
                      "Content-Type: application/json\r\nContent-Length: ").encode()  # fmt: skip

    async def aclose(self) -> None:
        if self._streams is not None:
            self._streams[1].close()
            self._streams = None

    async def turn(
        self, body: dict[str, Any], out: Samples, stamped: bool
    ) -> tuple[str | None, float]:
        """One turn, as :func:`engine_turn`; a broken connection is reopened for the next."""
        try:
            return await self._turn(body, out, stamped)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            await self.aclose()
            raise

    async def _turn(
        self, body: dict[str, Any], out: Samples, stamped: bool
    ) -> tuple[str | None, float]:
        if self._streams is None:
            self._streams = await asyncio.open_connection(self._host, self._port)
        reader, writer = self._streams
        payload = json.dumps(body).encode()
        start = time.perf_counter()
        writer.write(b"%s%d\r\n\r\n%s" % (self._head, len(payload), payload))
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        headers = dict(
            line.split(b": ", 1) for line in head.lower().split(b"\r\n")[1:] if b": " in line
        )
        conversation = body.get("conversationId")
        if b"content-length" in headers:  # an error body (503 overloaded, 4xx)
            error = await reader.readexactly(int(headers[b"content-length"]))
            if headers.get(b"connection") == b"close":
                await self.aclose()
            if status == 503:
                out.refused.append(time.perf_counter() - start)
                retry_after = float(headers.get(b"retry-after", b"0"))
                code = json.loads(error).get("error", {}).get("code", "")
                out.refusals.append((status, code, retry_after))
                return conversation, retry_after or 1.0
            out.errors += 1
            return conversation, 1.0
        out.admitted += 1
        frames = TurnFrames(out, start, stamped, conversation)
        while True:
            size = int(await reader.readuntil(b"\r\n"), 16)
            chunk = await reader.readexactly(size + 2)
            if not size:
                break
            frames.feed(chunk[:-2])
        return frames.conversation, 0.0


async def engine_conversations(base: str, concurrency: int, turns: int, suffix: str = "",
                               seconds: float = 0.0, kind: str = "raw") -> Samples:  # fmt: skip
    """``concurrency`` conversations, each running turns back to back (``turns`` each, or for
    ``seconds``) with the ``raw`` client (a connection each) or one shared httpx client."""
    out = Samples()
    stamped = "STAMP" in suffix
    deadline = time.monotonic() + seconds

    async def one(http: httpx.AsyncClient, n: int) -> None:
        await asyncio.sleep(random.random() * 0.3 * (concurrency > 1))  # no lockstep
        raw = RawClient(base) if kind == "raw" else None
        conversation: str | None = None
        done = 0
        while (done < turns) if not seconds else (time.monotonic() < deadline):
            body: dict[str, Any] = {"message": f"{QUESTIONS[(n + done) % len(QUESTIONS)]}{suffix}"}
            if UNIQUE:  # each turn embeds its question, as real users' turns do (ADR 0072)
                body["message"] += f" (ref {''.join(random.choices(string.ascii_lowercase, k=6))})"
            if conversation:
                body["conversationId"] = conversation
            try:
                if raw is not None:
                    conversation, retry_after = await raw.turn(body, out, stamped)
                else:
                    conversation, retry_after = await engine_turn(http, base, body, out, stamped)
            except (httpx.HTTPError, OSError, asyncio.IncompleteReadError, ValueError):
                out.errors += 1
                retry_after = 1.0
            if retry_after:
                await asyncio.sleep(retry_after * (0.5 + random.random()))
                continue
            done += 1
        if raw is not None:
            await raw.aclose()

    async with client(concurrency + 10) as http:
        await asyncio.gather(*(one(http, n) for n in range(concurrency)))
    return out


async def direct_conversations(standin: str, concurrency: int, turns: int, suffix: str = "",
                               stack: str = "httpx") -> Samples:  # fmt: skip
    """The SDK's own ``responses.create`` straight to the stand-in (typed events, as an SDK
    user gets them), on httpx (the SDK's default) or aiohttp (``DefaultAioHttpClient``)."""
    from openai import AsyncOpenAI, DefaultAioHttpClient

    out = Samples()
    http = client(concurrency + 10) if stack == "httpx" else DefaultAioHttpClient()
    async with http:
        sdk = AsyncOpenAI(base_url=f"{standin}/v1", api_key="sk-bench", max_retries=0,
                          http_client=http)  # fmt: skip

        async def one(n: int) -> None:
            await asyncio.sleep(random.random() * 0.3 * (concurrency > 1))
            for i in range(turns):
                start = time.perf_counter()
                question = QUESTIONS[(n + i) % len(QUESTIONS)] + suffix
                stream = await sdk.responses.create(
                    model="gpt-bench", input=[{"role": "user", "content": question}], stream=True
                )
                first = True
                async for event in stream:
                    if first and event.type == "response.output_text.delta":
                        out.first.append(time.perf_counter() - start)
                        first = False
                out.turns += 1

        await asyncio.gather(*(one(n) for n in range(concurrency)))
    return out


# --- phases --------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


async def sample_metrics(base: str, done: asyncio.Event, out: dict[str, list[float]]) -> None:
    """The worker's own figures from ``/metrics`` every 100 ms until ``done``: the loop lag
    (the largest of its last samples) and the chunk delay p99 of the last 100 ms interval
    with chunks (ADR 0055)."""
    wanted = {
        b"regintel_event_loop_lag_seconds ": "lag",
        b'regintel_chunk_delay_seconds{quantile="0.99"} ': "chunk",
        b'regintel_turn_start_delay_seconds{quantile="0.9"} ': "start",
        b"regintel_admission_limit ": "limit",
    }
    async with httpx.AsyncClient(timeout=5) as http:
        while not done.is_set():
            try:
                text = (await http.get(f"{base}/metrics")).content
            except httpx.HTTPError:
                text = b""
            for line in text.splitlines():
                for prefix, name in wanted.items():
                    if line.startswith(prefix):
                        out.setdefault(name, []).append(float(line[len(prefix) :]))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), 0.1)


async def measured_conversations(base: str, concurrency: int, turns: int,
                                 kind: str) -> tuple[Samples, dict[str, list[float]]]:  # fmt: skip
    """:func:`engine_conversations` with the worker's ``/metrics`` sampled meanwhile."""
    done, series = asyncio.Event(), {}  # type: ignore[var-annotated]
    sampler = asyncio.create_task(sample_metrics(base, done, series))
    try:
        return await engine_conversations(base, concurrency, turns, kind=kind), series
    finally:
        done.set()
        await sampler


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} / {five:.2f} on {os.cpu_count()} cores"


def phase_ttft(args: argparse.Namespace, standin: str, workers: list[Worker]) -> None:
    print(f"\n## time to first token, ms ({load()})")
    # +p50/+p99: over the SDK direct at the same concurrency (the figure); "+p99 (1)":
    # over the SDK direct at the first concurrency measured, for rows where the load generator
    # saturates before the engine does and the same-concurrency baseline means little.
    print(f"{'':<28} {'turns':>6} {'p50':>8} {'p99':>8} {'+p50':>8} {'+p99':>8} {'+p99 (1)':>9} "
          f"{'refused':>8} {'ref p50':>8} {'ref p99':>8} {'errors':>6} {'lag p99':>8} "
          f"{'lag max':>8} {'chunk p99':>9} {'start p90':>9} {'limit':>9}")  # fmt: skip
    floor = float("nan")
    asyncio.run(direct_conversations(standin, 2, 5))  # the baseline warms up too
    for concurrency in args.concurrency:
        turns = max(2, args.turns // concurrency)
        base = asyncio.run(direct_conversations(standin, concurrency, turns))
        b50, b99 = pct(base.first, 0.5), pct(base.first, 0.99)
        floor = b99 if floor != floor else floor  # the first row's
        print(f"{f'SDK direct, {concurrency} conc.':<28} {base.turns:>6} {b50:>8.1f} {b99:>8.1f}")
        for worker in workers:
            if concurrency == args.concurrency[0]:  # steady state: caches and connections warm
                asyncio.run(engine_conversations(worker.base, 2, 5, kind=args.client))
            s, series = asyncio.run(
                measured_conversations(worker.base, concurrency, turns, args.client)
            )
            p50, p99 = pct(s.first, 0.5), pct(s.first, 0.99)
            # the worker's own figures, sampled every 100 ms: the loop lag's p99 and max over
            # the run, the worst interval's chunk delay p99 and start delay p90, the limit's
            # range (ADR 0055)
            lag, chunk = series.get("lag", []), series.get("chunk", [])
            start, limits = series.get("start", []), series.get("limit", [0.0])
            print(f"{f'{worker.name}, {concurrency} conc.':<28} {len(s.first):>6} {p50:>8.1f} "
                  f"{p99:>8.1f} {p50 - b50:>8.1f} {p99 - b99:>8.1f} {p99 - floor:>9.1f} "
                  f"{len(s.refused):>8} {pct(s.refused, 0.5):>8.1f} {pct(s.refused, 0.99):>8.1f} "
                  f"{s.errors:>6} {pct(lag, 0.99):>8.1f} {pct(lag, 1.0):>8.1f} "
                  f"{pct(chunk, 1.0):>9.1f} {pct(start, 1.0):>9.1f} "
                  f"{f'{min(limits):g}-{max(limits):g}':>9}")  # fmt: skip


def phase_cpu(args: argparse.Namespace, standin: str, workers: list[Worker]) -> None:
    print(f"\n## worker CPU ({load()})")
    print(f"{'':<28} {'ms/turn (5 tok)':>16} {'ms/turn (100)':>14} {'µs/chunk':>9} "
          f"{'ms/turn fixed':>14} {'conns/100 turns':>16}")  # fmt: skip
    n = args.cpu_turns
    for stack in ("httpx", "aiohttp"):
        # The same stream through the SDK alone, in this process: what any client of the model
        # spends; the engine's own cost is a worker's figure minus this one.
        asyncio.run(direct_conversations(standin, 10, 2, stack=stack))  # warm up
        cpu = time.process_time()
        asyncio.run(direct_conversations(standin, 10, n // 10, stack=stack))
        short = (time.process_time() - cpu) / n
        cpu = time.process_time()
        asyncio.run(direct_conversations(standin, 10, n // 20, " LONG", stack=stack))
        long = (time.process_time() - cpu) / (n // 2)
        chunk = (long - short) / (LONG - SHORT)
        print(f"{f'SDK direct, {stack}':<28} {short * 1000:>16.2f} {long * 1000:>14.2f} "
              f"{chunk * 1e6:>9.1f} {(short - SHORT * chunk) * 1000:>14.2f} {'':>16}")  # fmt: skip
    for worker in workers:
        asyncio.run(engine_conversations(worker.base, 10, 2))  # warm up
        httpx.get(f"{standin}/bench/stats")
        cpu = worker.cpu_seconds()
        asyncio.run(engine_conversations(worker.base, 10, n // 10))
        short = (worker.cpu_seconds() - cpu) / n
        stats = httpx.get(f"{standin}/bench/stats").json()
        cpu = worker.cpu_seconds()
        asyncio.run(engine_conversations(worker.base, 10, n // 20, " LONG"))
        long = (worker.cpu_seconds() - cpu) / (n // 2)
        chunk = (long - short) / (LONG - SHORT)
        fixed = short - SHORT * chunk
        conns = 100 * stats["connections"] / max(1, stats["requests"])
        print(f"{worker.name:<28} {short * 1000:>16.2f} {long * 1000:>14.2f} "
              f"{chunk * 1e6:>9.1f} {fixed * 1000:>14.2f} {conns:>16.1f}")  # fmt: skip


def phase_streams(args: argparse.Namespace, standin: str, workers: list[Worker]) -> None:
    print(f"\n## {args.streams} concurrent paced streams for {args.seconds:g} s ({load()})")
    print(f"{'':<28} {'turns':>6} {'errors':>6} {'refused':>8} {'chunks':>8} "
          f"{'delay p50':>9} {'delay p99':>9} {'ttft p99':>9} {'no concepts':>11} "
          f"{'RSS MB':>7} {'peak':>6}")  # fmt: skip
    for worker in workers:
        s = asyncio.run(engine_conversations(worker.base, args.streams, 0, " STAMP", args.seconds,
                                             kind=args.client))  # fmt: skip
        rss, peak = worker.rss_mb()
        print(f"{worker.name:<28} {s.turns:>6} {s.errors:>6} {len(s.refused):>8} "
              f"{len(s.delays):>8} {pct(s.delays, 0.5):>9.1f} {pct(s.delays, 0.99):>9.1f} "
              f"{pct(s.first, 0.99):>9.1f} {s.concepts_missing:>11} {rss:>7.0f} "
              f"{peak:>6.0f}")  # fmt: skip


def seed(folder: Path, tree: str) -> None:
    """The seed graph, built by ``tree``'s code (in its own process)."""
    code = (
        "from pathlib import Path; from tests.support.seeded import seed_data_dir; "
        f"seed_data_dir(Path({str(folder)!r}))"
    )
    env = {**os.environ, "PYTHONPATH": tree, "REGINTEL_LOG_LEVEL": "WARNING"}
    subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--tree", action="append", default=[], help="NAME=DIR: a code tree to serve (repeatable)"
    )
    parser.add_argument("--phase", nargs="+", default=["ttft", "cpu", "streams"])
    parser.add_argument(
        "--streams-only", nargs="*", default=[], help="trees measured in the streams phase only"
    )
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 50, 500])
    parser.add_argument("--turns", type=int, default=100, help="ttft turns per concurrency")
    parser.add_argument("--cpu-turns", type=int, default=100)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--env", action="append", default=[], help="NAME:VAR=VALUE: one tree's worker setting"
    )
    parser.add_argument(
        "--client",
        choices=["raw", "httpx"],
        default="raw",
        help="the load generator's HTTP client for the engine's turns (see RawClient)",
    )
    parser.add_argument("--first-token-ms", type=float, default=300.0)
    parser.add_argument("--tokens-per-second", type=float, default=40.0)
    parser.add_argument(
        "--unique-questions",
        action="store_true",
        help="make every engine turn's question unique: without it the five questions' vectors "
        "are cached after their first turn, and the query embedding (the largest per-turn cost "
        "for real users, ADR 0072) is left out of the figures",
    )
    parser.add_argument("--standin-port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    global UNIQUE
    UNIQUE = args.unique_questions
    if args.standin_port:
        run_standin(args.standin_port, args.first_token_ms, args.tokens_per_second)
        return
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    trees = [t.split("=", 1) for t in args.tree] or [["this", str(ROOT)]]
    print(f"stand-in: first token {args.first_token_ms:g} ms, {args.tokens_per_second:g} tok/s; "
          f"{load()}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp, standin_process(args) as standin:
        template = Path(tmp) / "seeded"
        seed(template, trees[0][1])
        with _workers(trees, template, Path(tmp), standin, args.env) as workers:
            for phase in args.phase:
                measured = [
                    w for w in workers if phase == "streams" or w.name not in args.streams_only
                ]
                {"ttft": phase_ttft, "cpu": phase_cpu, "streams": phase_streams}[phase](
                    args, standin, measured
                )


@contextmanager
def _workers(trees: list[list[str]], template: Path, tmp: Path, standin: str,
             env: list[str]) -> Iterator[list[Worker]]:  # fmt: skip
    from contextlib import ExitStack

    with ExitStack() as stack:
        workers = []
        for name, tree in trees:
            data = tmp / f"data-{name}"
            shutil.copytree(template, data)
            extra = dict(e.split(":", 1)[1].split("=", 1) for e in env if e.startswith(f"{name}:"))
            workers.append(stack.enter_context(
                worker_process(name, Path(tree).resolve(), data, standin, extra)))  # fmt: skip
        yield workers


if __name__ == "__main__":
    main()
