import asyncio
from collections.abc import Sequence

import pytest
from structlog.testing import capture_logs

from errors import GraphUnavailable
from graph.ingress_guard import IngressGuard
from graph.models import NodeWrite, WriteOutcome, WriteResult
from graph.schema import load_schema
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


class RecordingWriter:
    def __init__(self, outcome=WriteOutcome.CREATED, fail_on_batch=None):
        self.batches = []
        self._outcome = outcome
        self._fail_on_batch = fail_on_batch

    async def upsert_nodes(self, nodes, now):
        if len(self.batches) == self._fail_on_batch:
            raise GraphUnavailable("the graph went away")
        self.batches.append(len(nodes))
        return [WriteResult(node_id=n.id, outcome=self._outcome) for n in nodes]

    async def upsert_edges(self, edges, now):
        raise AssertionError("not used")

    async def delete_nodes(self, ids, now):
        self.batches.append(len(ids))
        return [WriteResult(node_id=i, outcome=WriteOutcome.REMOVED) for i in ids]

    async def increment_edges(self, increments):
        self.batches.append(len(increments))
        return [WriteResult(edge=i.key, outcome=WriteOutcome.UPDATED) for i in increments]


def service(writer: RecordingWriter, batch_size: int = 500) -> GraphWriteService:
    guard = IngressGuard(load_schema(), EmailOnlyScanner())
    return GraphWriteService(writer, guard, batch_size=batch_size)


def rates(count: int, prefix: str = "R") -> list[NodeWrite]:
    return [NodeWrite(id=f"IE:RATE:{prefix}{i}", label="Rate") for i in range(count)]


class Recorder:
    """A listener that records what it was told, optionally waiting for a gate first."""

    def __init__(self, gate: asyncio.Event | None = None) -> None:
        self.seen: list[list[str | None]] = []
        self._gate = gate

    async def __call__(self, results: Sequence[WriteResult], now: str) -> None:
        if self._gate is not None:
            await self._gate.wait()
        self.seen.append([r.node_id for r in results])


async def test_a_call_larger_than_the_guards_batch_bound_is_checked_and_written_in_batches():
    writer = RecordingWriter()
    nodes = rates(2_300)
    results = await service(writer, batch_size=500).upsert_nodes(nodes)
    assert len(results) == 2_300 and writer.batches == [500, 500, 500, 500, 300]


async def test_one_bad_node_rejects_the_whole_call_before_anything_is_written():
    writer = RecordingWriter()
    nodes = rates(900)
    nodes.append(NodeWrite(id="IE:RATE:X", label="Rate", properties={"notes": "a@b.ie"}))
    with pytest.raises(Exception, match="PII"):
        await service(writer).upsert_nodes(nodes)
    assert writer.batches == []


async def test_a_failing_listener_does_not_fail_the_write_nor_the_other_listeners():
    writes = service(RecordingWriter())
    later = Recorder()

    async def broken(results: Sequence[WriteResult], now: str) -> None:
        raise RuntimeError("listener bug")

    writes.subscribe(broken)
    writes.subscribe(later)
    with capture_logs() as logs:
        results = await writes.upsert_nodes(rates(2))
        await writes.drain()
    assert [r.outcome for r in results] == [WriteOutcome.CREATED] * 2
    assert later.seen == [["IE:RATE:R0", "IE:RATE:R1"]]
    [failure] = [entry for entry in logs if entry["event"] == "graph_change_listener_failed"]
    assert failure["log_level"] == "error" and "broken" in failure["listener"]
    assert failure["exc_info"] is True


async def test_a_slow_listener_does_not_delay_the_write_and_listeners_keep_write_order():
    gate = asyncio.Event()
    listener = Recorder(gate)
    writes = service(RecordingWriter())
    writes.subscribe(listener)
    async with asyncio.timeout(2):  # inline notification would wait for the gate forever
        await writes.upsert_nodes(rates(1, "A"))
        await writes.upsert_nodes(rates(1, "B"))
    assert listener.seen == [] and writes.pending_notifications == 2

    gate.set()
    await writes.drain()
    assert listener.seen == [["IE:RATE:A0"], ["IE:RATE:B0"]]
    assert writes.pending_notifications == 0


async def test_unchanged_writes_tell_nobody():
    listener = Recorder()
    writes = service(RecordingWriter(outcome=WriteOutcome.UNCHANGED))
    writes.subscribe(listener)
    await writes.upsert_nodes(rates(3))
    assert writes.pending_notifications == 0
    await writes.drain()
    assert listener.seen == []


async def test_batches_committed_before_a_failure_are_still_announced():
    listener = Recorder()
    writes = service(RecordingWriter(fail_on_batch=1), batch_size=2)
    writes.subscribe(listener)
    with pytest.raises(GraphUnavailable):
        await writes.upsert_nodes(rates(3))
    await writes.drain()
    assert listener.seen == [["IE:RATE:R0", "IE:RATE:R1"]]


async def test_aclose_delivers_what_is_pending_then_refuses_writes():
    gate = asyncio.Event()
    listener = Recorder(gate)
    writes = service(RecordingWriter())
    writes.subscribe(listener)
    await writes.upsert_nodes(rates(1))
    asyncio.get_running_loop().call_later(0.05, gate.set)
    await writes.aclose()
    assert listener.seen == [["IE:RATE:R0"]]
    with pytest.raises(GraphUnavailable, match="closed"):
        await writes.upsert_nodes(rates(1))


async def test_aclose_gives_up_on_a_listener_that_never_finishes():
    listener = Recorder(asyncio.Event())  # never set
    writes = service(RecordingWriter())
    writes.subscribe(listener)
    await writes.upsert_nodes(rates(1))
    with capture_logs() as logs:
        async with asyncio.timeout(2):
            await writes.aclose(timeout_s=0.05)
    assert listener.seen == [] and writes.pending_notifications == 0
    assert [e["event"] for e in logs] == ["graph_change_listeners_abandoned"]


async def test_deletions_are_guarded_by_id_and_listeners_learn_which_removals_were_unseen():
    writer = RecordingWriter()
    writes = service(writer)
    told: list[list[tuple[str | None, WriteOutcome, bool]]] = []

    async def listener(results: Sequence[WriteResult], now: str) -> None:
        told.append([(r.node_id, r.outcome, r.unseen) for r in results])

    writes.subscribe(listener)
    with pytest.raises(Exception, match="PII"):
        await writes.delete_nodes(["IE:RATE:A", "LABEL:a@b.ie"])
    assert writer.batches == []  # refused before anything was deleted
    await writes.delete_nodes(["IE:RATE:A", "TAX:IE:CAPTURED"], unseen=["TAX:IE:CAPTURED"])
    await writes.drain()
    assert told == [
        [
            ("IE:RATE:A", WriteOutcome.REMOVED, False),
            ("TAX:IE:CAPTURED", WriteOutcome.REMOVED, True),
        ]
    ]
