import pytest

from graph.ingress_guard import IngressGuard
from graph.models import NodeWrite, WriteOutcome, WriteResult
from graph.schema import load_schema
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


class RecordingWriter:
    def __init__(self):
        self.batches = []

    async def upsert_nodes(self, nodes, now):
        self.batches.append(len(nodes))
        return [WriteResult(key=n.id, outcome=WriteOutcome.CREATED) for n in nodes]

    async def upsert_edges(self, edges, now):
        raise AssertionError("not used")


async def test_a_call_larger_than_the_guards_batch_bound_is_checked_and_written_in_batches():
    writer = RecordingWriter()
    service = GraphWriteService(
        writer, IngressGuard(load_schema(), EmailOnlyScanner()), batch_size=500
    )
    nodes = [NodeWrite(id=f"IE:RATE:R{i}", label="Rate") for i in range(2_300)]
    results = await service.upsert_nodes(nodes)
    assert len(results) == 2_300 and writer.batches == [500, 500, 500, 500, 300]


async def test_one_bad_node_rejects_the_whole_call_before_anything_is_written():
    writer = RecordingWriter()
    service = GraphWriteService(writer, IngressGuard(load_schema(), EmailOnlyScanner()))
    nodes = [NodeWrite(id=f"IE:RATE:R{i}", label="Rate") for i in range(900)]
    nodes.append(NodeWrite(id="IE:RATE:X", label="Rate", properties={"notes": "a@b.ie"}))
    with pytest.raises(Exception, match="PII"):
        await service.upsert_nodes(nodes)
    assert writer.batches == []
