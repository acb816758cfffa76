"""Graph stream benchmark: one change detector per process against naive per-subscriber polling.

    .venv/bin/python bench/graph_stream_bench.py [--seconds 6] [--write-every 0.1] [--bolt]

Another worker writes one ``Rate`` node every ``--write-every`` seconds through its
``GraphWriteService``; its writes are announced on the graph bus (an in-process hub: the Redis
hop is not measured here). This worker's subscribers (1, 10 and 100) wait for every write:

- ``detector``: one :class:`graph.detector.ChangeDetector` (batch window
  ``--batch-window-ms``, timestamp catch-up every 2 s) fed by the bus; every subscriber reads
  its queue. Graph queries are the detector's own count (``ChangeDetector.queries``: one read
  per batch to build the patch, one per catch-up round).
- ``polling``: each subscriber asks the graph ``changes_since`` its own watermark every batch
  window (the same latency budget), as a UI polling ``/api/graph/changes`` would.

For each it prints write-to-patch latency p50 / p95 over every (write, subscriber) pair (from
just before the write is issued to the moment the subscriber holds the node) and graph queries
per second spent on change detection. The graph is Ladybug in a temporary folder, or with
``--bolt`` an ArcadeDB server started by the test launcher (the Bolt code path, not Memgraph's
speed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `tests` is not an installed package
    sys.path.insert(0, str(ROOT))

from graph.bus import InProcessGraphBus, InProcessHub, announcer  # noqa: E402
from graph.detector import ChangeDetector, PatchEvent  # noqa: E402
from graph.factory import build_graph_store  # noqa: E402
from graph.ingress_guard import IngressGuard  # noqa: E402
from graph.models import NodeWrite, utc_timestamp  # noqa: E402
from graph.port import GraphStore  # noqa: E402
from graph.schema import GraphSchema, load_schema  # noqa: E402
from graph.write_service import GraphWriteService  # noqa: E402
from tests.support.arcadedb import running_arcadedb  # noqa: E402
from tests.support.fakes import EmailOnlyScanner  # noqa: E402

SUBSCRIBERS = (1, 10, 100)


@dataclass
class Run:
    mode: str
    subscribers: int
    seconds: float
    queries: int = 0
    written: dict[str, float] = field(default_factory=dict)  # node id -> when it was issued
    latencies_ms: list[float] = field(default_factory=list)
    missing: int = 0

    def row(self) -> str:
        lat = sorted(self.latencies_ms) or [float("nan")]
        p50 = statistics.median(lat)
        p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))]
        qps = self.queries / self.seconds
        return (
            f"{self.mode:<9} {self.subscribers:>4} {len(self.written):>7} {p50:>9.0f} "
            f"{p95:>9.0f} {qps:>11.1f} {self.missing:>8}"
        )


@contextlib.contextmanager
def graph_store(schema: GraphSchema, bolt: bool) -> Iterator[GraphStore]:
    if bolt:
        with running_arcadedb() as server:
            yield server.graph_store(schema)
        return
    with tempfile.TemporaryDirectory(prefix="regintel-stream-bench-") as tmp:
        yield build_graph_store("ladybug", schema=schema, ladybug_path=Path(tmp) / "graph.lbug")


class Writer:
    """The other worker: its write service announces every write on the bus."""

    def __init__(self, graph: GraphStore, schema: GraphSchema, hub: InProcessHub) -> None:
        self.service = GraphWriteService(graph, IngressGuard(schema, EmailOnlyScanner()))
        self.bus = InProcessGraphBus(hub)
        self.service.subscribe(announcer(self.bus))

    async def write_for(self, run: Run, every: float, tag: str) -> None:
        deadline = time.monotonic() + run.seconds
        i = 0
        while time.monotonic() < deadline:
            node_id = f"BENCH:RATE:{tag}_{i:05d}"
            props = {"name": f"Rate {i}", "value": (i % 40) / 100, "unit": "ratio"}
            run.written[node_id] = time.monotonic()
            node = NodeWrite(id=node_id, label="Rate", properties=props)
            await self.service.upsert_nodes([node])
            i += 1
            await asyncio.sleep(every)

    async def aclose(self) -> None:
        await self.service.aclose()
        await self.bus.aclose()


def _arrived(run: Run, seen: set[str], node_ids: list[str]) -> None:
    now = time.monotonic()
    for node_id in node_ids:
        issued = run.written.get(node_id)
        if issued is not None and node_id not in seen:
            seen.add(node_id)
            run.latencies_ms.append((now - issued) * 1000)


async def with_detector(
    graph: GraphStore, writer: Writer, hub: InProcessHub, run: Run, window: float, every: float
) -> None:
    bus = InProcessGraphBus(hub)
    detector = ChangeDetector(graph, batch_window=window, catch_up_interval=2.0, origin=bus.origin)
    bus.subscribe(detector.on_remote, on_gap=detector.request_catch_up)
    detector.start()
    seen: list[set[str]] = [set() for _ in range(run.subscribers)]

    async def consume(events: AsyncIterator[object], mine: set[str]) -> None:
        async for event in events:
            if isinstance(event, PatchEvent):
                nodes = event.patch.nodes.added + event.patch.nodes.updated
                _arrived(run, mine, [n.id for n in nodes])

    readers = [asyncio.create_task(consume(detector.subscribe(), s)) for s in seen]
    before = detector.queries
    await writer.write_for(run, every, f"D{run.subscribers}")
    await asyncio.sleep(window + 0.5)  # the last batch
    run.queries = detector.queries - before
    run.missing = sum(len(run.written) - len(s) for s in seen)
    for task in readers:
        task.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    await detector.aclose()
    await bus.aclose()


async def with_polling(
    graph: GraphStore, writer: Writer, run: Run, every: float, poll: float
) -> None:
    seen: list[set[str]] = [set() for _ in range(run.subscribers)]
    stop = asyncio.Event()

    start = utc_timestamp()  # before the first write is stamped

    async def poller(mine: set[str]) -> None:
        watermark = start
        while not stop.is_set():
            run.queries += 1
            found = await graph.changes_since(watermark, limit=1000)
            if found.nodes:
                watermark = max(str(n.properties.get("updated_at", "")) for n in found.nodes)
                _arrived(run, mine, [n.id for n in found.nodes])
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), poll)

    pollers = [asyncio.create_task(poller(s)) for s in seen]
    await writer.write_for(run, every, f"P{run.subscribers}")
    await asyncio.sleep(poll + 0.5)
    stop.set()
    await asyncio.gather(*pollers)
    run.missing = sum(len(run.written) - len(s) for s in seen)


async def main_async(args: argparse.Namespace) -> list[Run]:
    schema = load_schema()
    window = args.batch_window_ms / 1000
    runs: list[Run] = []
    with graph_store(schema, args.bolt) as graph:
        await graph.init_schema()
        hub = InProcessHub()
        writer = Writer(graph, schema, hub)
        try:
            for count in SUBSCRIBERS:
                run = Run("detector", count, args.seconds)
                await with_detector(graph, writer, hub, run, window, args.write_every)
                runs.append(run)
                print(run.row(), flush=True)
                run = Run("polling", count, args.seconds)
                await with_polling(graph, writer, run, args.write_every, window)
                runs.append(run)
                print(run.row(), flush=True)
        finally:
            await writer.aclose()
            await graph.aclose()
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="Writing time per run.")
    parser.add_argument("--write-every", type=float, default=0.1)
    parser.add_argument("--batch-window-ms", type=int, default=200)
    parser.add_argument("--bolt", action="store_true", help="ArcadeDB over Bolt, not Ladybug.")
    args = parser.parse_args()
    backend = "bolt (ArcadeDB)" if args.bolt else "ladybug"
    every_ms, window_ms = args.write_every * 1000, args.batch_window_ms
    print(
        f"graph: {backend}; a write every {every_ms:.0f} ms for {args.seconds:.0f} s; "
        f"batch window / poll interval {window_ms} ms"
    )
    header = ("mode", "subs", "writes", "p50 ms", "p95 ms", "queries/s", "missing")
    print("{:<9} {:>4} {:>7} {:>9} {:>9} {:>11} {:>8}".format(*header))
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
