"""The catch-up's self-repair does not resend what a flush is building right now.

A flush takes the batch, then awaits the remote listeners and the graph's read before it records
what it sent. A catch-up in that gap once found the node neither in the batch being collected nor
among the sent states and counted it again: a second patch of the same version (seen in CI under
load: ``test_writes_of_another_process_arrive_once_by_bus_and_catch_up_alike``)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from graph.detector.batch import SentStates
from graph.detector.feed import ChangeFeed
from graph.models import GraphNode, GraphSnapshot, WriteOutcome, WriteResult, utc_timestamp

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


class StoredGraph:
    """A reader whose every catch-up finds the same stored nodes."""

    def __init__(self, nodes: Sequence[GraphNode]) -> None:
        self.nodes = list(nodes)

    async def changes_since(self, timestamp: str, limit: int = 1000) -> GraphSnapshot:
        return GraphSnapshot(nodes=self.nodes)


async def test_a_node_whose_patch_is_being_built_is_not_found_again() -> None:
    stamp = utc_timestamp()
    uk = GraphNode(
        id="UK", label="Jurisdiction", properties={"updated_at": stamp, "created_at": stamp}
    )
    sent = SentStates()
    feed = ChangeFeed(StoredGraph([uk]), sent)  # type: ignore[arg-type]  # changes_since only
    feed.start("2000-01-01T00:00:00.000000Z")
    assert feed.take([WriteResult(outcome=WriteOutcome.CREATED, node_id="UK")], stamp, remote=True)
    in_flight = feed.take_batch()  # a flush started: its patch is being built
    assert (await feed.catch_up()).found == 0
    feed.landed(in_flight)  # built, but (say) nothing was recorded as sent
    assert (await feed.catch_up()).found == 1  # the self-repair still finds what was never sent
