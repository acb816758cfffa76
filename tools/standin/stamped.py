"""The stand-in as benchmarks and load tests run it: in its own process, paced, every token
stamped with the wall-clock time it left (issue 29).

A client that reads a token's stamp on arrival knows how long the token took from the model to
it — everything the server in between added (``arrival - stamp``), measured per chunk. The
stand-in replies by keyword in the request: a question holding ``STAMP`` gets ``tokens``
tokens each reading :data:`MARK` (replaced by ``%.6f`` of ``time.time()`` as the frame is
sent), one holding ``LONG`` ``tokens`` plain words, any other :data:`SHORT`; each reply ends
with a ``capture_concepts`` call. ``GET /bench/stats`` returns (and resets) the requests and
the distinct client connections seen since the last call.

    python -m tools.standin.stamped --port 8123 --first-token-ms 300 --tokens-per-second 40

Used by ``bench/turn_overhead_bench.py``, ``bench/capacity_bench.py`` and
``tests/e2e/test_overload_latency.py``; sharing the machine's clock with the client is what
makes the stamps comparable, so the client must run on the same host.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from tools.standin.script import Pacing, Reply, ToolCall
from tools.standin.server import StandinServer

__all__ = ["CAPTURE", "MARK", "SHORT", "StampedStandin", "run"]

MARK = "@STAMP@"  # replaced by the send time (seconds, wall clock) as the frame leaves
SHORT = 5  # tokens of the short answer
CAPTURE = {
    "concepts": [
        {"domain": "TAX", "kind": "VAT", "jurisdiction": "IE", "prefLabel": "Value-Added Tax"}
    ]
}


class StampedStandin(StandinServer):
    """Replies by keyword in the question; counts connections without keeping bodies (a long
    load would otherwise keep every request it got)."""

    def __init__(self, *, pacing: Pacing, tokens: int = 100) -> None:
        super().__init__(pacing=pacing)
        tool = [ToolCall("capture_concepts", json.dumps(CAPTURE))]
        self.replies = {
            "short": Reply(text=[f"word{i} " for i in range(SHORT)], calls=tool),
            "long": Reply(text=[f"word{i} " for i in range(tokens)], calls=tool),
            "stamp": Reply(text=[f"{MARK} " for _ in range(tokens)], calls=tool),
        }
        self.peers: set[Any] = set()
        self.requests_seen = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/bench/stats":
            body = json.dumps(
                {"requests": self.requests_seen, "connections": len(self.peers)}
            ).encode()
            self.peers, self.requests_seen = set(), 0
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": body})
            return
        await super().__call__(scope, receive, send)

    async def _respond(self, send: Any, path: str, body: Any, headers: Any, reply: Any,
                       index: int) -> None:  # fmt: skip
        self.requests_seen += 1
        self.peers.add(self.received[-1].peer)
        self.received.clear()
        text = json.dumps(body)
        kind = "stamp" if "STAMP" in text else "long" if "LONG" in text else "short"
        await super()._respond(send, path, body, headers, self.replies[kind], 0)

    async def _stream(self, send: Any, frames: Any, reply: Any, pacing: Any) -> None:
        mark = MARK.encode()

        async def stamped(message: dict[str, Any]) -> None:
            chunk = message.get("body", b"")
            if mark in chunk:
                message = {**message, "body": chunk.replace(mark, b"%.6f" % time.time())}
            await send(message)

        await super()._stream(stamped, frames, reply, pacing)


def run(port: int, first_token_ms: float, tokens_per_second: float, tokens: int = 100) -> None:
    """Serve on ``127.0.0.1:port`` until terminated (uvloop and httptools, as production)."""
    import uvicorn

    server = StampedStandin(pacing=Pacing(first_token_ms / 1000, tokens_per_second), tokens=tokens)
    uvicorn.run(server, host="127.0.0.1", port=port, log_level="warning", loop="uvloop",
                http="httptools", backlog=4096, timeout_keep_alive=30)  # fmt: skip


def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--first-token-ms", type=float, default=300.0)
    parser.add_argument("--tokens-per-second", type=float, default=40.0)
    parser.add_argument("--tokens", type=int, default=100, help="tokens of the long answers")
    args = parser.parse_args()
    run(args.port, args.first_token_ms, args.tokens_per_second, args.tokens)


if __name__ == "__main__":
    _main()
