"""Issue 26, defect 2, at the patch log: a filtered replay after ``Last-Event-ID`` tells the
node removals a live subscriber with the same filter was told (the replay's subscriber is new,
its client is not)."""

from __future__ import annotations

import anyio
import pytest

from graph.detector.batch import PatchRecord
from graph.detector.patch_log import PatchEvent, PatchLog, StreamEvent
from graph.models import GraphNode
from graph.patch_filter import PatchFilter
from graph.patches import GraphPatch

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

IE = PatchFilter(jurisdictions=frozenset({"IE"}))
RELIEF = GraphNode(id="TAX:IE:RELIEF", label="Concept", properties={"jurisdiction": "IE"})
RATE = GraphNode(id="UK:RATE:X", label="Rate", properties={})


def added(seq: int, *nodes: GraphNode) -> PatchRecord:
    patch = GraphPatch(seq=seq, timestamp=f"t{seq}")
    patch.nodes.added.extend(nodes)
    return PatchRecord(seq, patch, {n.id: n for n in nodes})


def removed(seq: int, *nodes: GraphNode, kept: bool = True) -> PatchRecord:
    patch = GraphPatch(seq=seq, timestamp=f"t{seq}")
    patch.nodes.removed.extend(n.id for n in nodes)
    return PatchRecord(seq, patch, {}, {n.id: n for n in nodes} if kept else {})


async def received(log: PatchLog, flt: PatchFilter, last_event_id: str | None) -> list[str]:
    """The removals a subscriber is told before the stream goes quiet."""
    told: list[str] = []
    stream = log.subscribe(flt, last_event_id)
    with anyio.move_on_after(0.2):
        async for event in stream:
            told += _removals(event)
    await stream.aclose()
    return told


def _removals(event: StreamEvent) -> list[str]:
    return list(event.patch.nodes.removed) if isinstance(event, PatchEvent) else []


async def test_the_replay_tells_the_removal_the_live_stream_told():
    log = PatchLog()
    live = log.subscribe(IE)
    log.append(added(1, RELIEF))
    first = await live.__anext__()
    assert isinstance(first, PatchEvent)
    log.append(removed(2, RELIEF, RATE))
    second = await live.__anext__()
    await live.aclose()
    assert _removals(second) == [RELIEF.id]  # the live stream: only what passes its filter
    assert await received(log, IE, first.id) == [RELIEF.id]


async def test_a_removal_of_a_node_the_log_never_carried_is_replayed():
    """The client may hold it from its snapshot; telling a removal of a node it lacks is
    harmless, keeping a node that is gone is not."""
    log = PatchLog()
    log.append(added(1, RATE))
    log.append(removed(2, RELIEF, kept=False))
    assert await received(log, IE, f"{log.epoch}-1") == [RELIEF.id]


async def test_a_replay_does_not_tell_removals_of_nodes_outside_the_filter():
    log = PatchLog()
    log.append(added(1, RELIEF, RATE))
    log.append(removed(2, RATE))
    assert await received(log, IE, f"{log.epoch}-1") == []
