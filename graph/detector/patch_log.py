"""The patch log, its replay and its subscribers.

Patches are numbered (``seq``) and kept in a bounded log; SSE ids are ``<epoch>-<seq>``, the
epoch naming this process's log, so a reconnect with ``Last-Event-ID`` replays from the log —
or gets a ``resync`` when the id is older than the log, or from another process's log.

Each subscriber has a :class:`~graph.patch_filter.PatchFilter` and a bounded queue; one that
falls ``max_queue`` patches behind gets a final ``resync`` and is dropped. Filtering is in
memory, so the work per patch does not grow with the subscriber count.

A live subscriber is told a removal of a node it was sent (or named). A replay's subscriber is
new, but its client is not: it holds what its earlier stream and its snapshot showed. So a
replay tells every removal whose node, as the log last carried it, passes the filter, and
every removal of a node the log never carried (the client may have it from a snapshot; a
removal of a node it lacks changes nothing). Without this a reconnecting UI kept nodes that
were merged or rejected while it was away (issue 26).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field

from graph.bus import new_origin
from graph.detector.batch import PatchRecord
from graph.models import GraphNode
from graph.patch_filter import PatchFilter
from graph.patches import GraphPatch

__all__ = ["PatchEvent", "PatchLog", "Resync", "StreamEvent"]


@dataclass(frozen=True)
class PatchEvent:
    id: str
    patch: GraphPatch


@dataclass(frozen=True)
class Resync:
    """The subscriber should reload a snapshot; ``final``: the stream ends after it."""

    reason: str
    final: bool = False


StreamEvent = PatchEvent | Resync


@dataclass(eq=False)
class _Subscriber:
    filter: PatchFilter
    queue: asyncio.Queue[StreamEvent]
    known: set[str] = field(default_factory=set)


class PatchLog:
    def __init__(self, *, size: int = 1000, max_queue: int = 100) -> None:
        self.epoch = new_origin()  # names this process's log in SSE ids
        self._log: deque[PatchRecord] = deque(maxlen=size)
        self._max_queue = max_queue
        self._subscribers: set[_Subscriber] = set()

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    @property
    def last_id(self) -> str | None:
        return self._id(self._log[-1].seq) if self._log else None

    def append(self, record: PatchRecord) -> None:
        """Keep ``record`` and deliver it to every subscriber its filter lets it reach."""
        self._log.append(record)
        for sub in list(self._subscribers):
            self._deliver(sub, record)

    def drop_all(self, reason: str) -> None:
        """End every subscriber's stream with a final ``resync``."""
        for sub in list(self._subscribers):
            self._drop(sub, reason)

    def subscribe(
        self, patch_filter: PatchFilter | None = None, last_event_id: str | None = None
    ) -> AsyncGenerator[StreamEvent, None]:
        """Events from now on (registered at once), after the replay of what followed
        ``last_event_id``, or a ``Resync`` first when the log does not reach back to it."""
        sub = _Subscriber(patch_filter or PatchFilter(), asyncio.Queue(maxsize=self._max_queue + 2))
        if last_event_id:
            replay = self._replay(last_event_id)
            if replay is None:
                sub.queue.put_nowait(Resync("Last-Event-ID is not in this server's patch log"))
            elif len(replay) > self._max_queue:
                sub.queue.put_nowait(Resync("too much was missed to replay"))
            else:
                versions = self._versions()
                for record in replay:
                    self._deliver(sub, record, versions)
        self._subscribers.add(sub)

        async def events() -> AsyncGenerator[StreamEvent, None]:
            try:
                while True:
                    event = await sub.queue.get()
                    yield event
                    if isinstance(event, Resync) and event.final:
                        return
            finally:
                self._subscribers.discard(sub)

        return events()

    def _id(self, seq: int) -> str:
        return f"{self.epoch}-{seq}"

    def _replay(self, last_event_id: str) -> list[PatchRecord] | None:
        epoch, _, seq_text = last_event_id.strip().rpartition("-")
        if epoch != self.epoch or not seq_text.isdigit():
            return None
        seq = int(seq_text)
        newest = self._log[-1].seq if self._log else 0
        oldest = self._log[0].seq if self._log else newest + 1
        if seq > newest or seq < oldest - 1:
            return None
        return [r for r in self._log if r.seq > seq]

    def _versions(self) -> dict[str, GraphNode]:
        """Each node the log carries, as it last carried it (removed ones as they left)."""
        versions: dict[str, GraphNode] = {}
        for record in self._log:
            versions.update(record.nodes)
            versions.update(record.gone)
        return versions

    def _deliver(
        self, sub: _Subscriber, record: PatchRecord, versions: dict[str, GraphNode] | None = None
    ) -> None:
        patch = _filtered(sub, record.patch, record.nodes, versions)
        if patch is None:
            return
        if sub.queue.qsize() >= self._max_queue:
            self._drop(sub, "subscriber fell behind")
            return
        sub.queue.put_nowait(PatchEvent(self._id(record.seq), patch))

    def _drop(self, sub: _Subscriber, reason: str) -> None:
        self._subscribers.discard(sub)
        sub.queue.put_nowait(Resync(reason, final=True))


def _filtered(
    sub: _Subscriber,
    patch: GraphPatch,
    nodes: dict[str, GraphNode],
    versions: dict[str, GraphNode] | None = None,
) -> GraphPatch | None:
    """What of ``patch`` this subscriber's filter lets through; a node it knew that no longer
    passes is ``removed`` for it. ``versions``: in a replay, the log's last state of each node,
    on which a removal is judged (module docstring). ``None`` when nothing is left."""
    flt = sub.filter
    if flt.everything:
        return patch
    out = GraphPatch(seq=patch.seq, timestamp=patch.timestamp, meta=dict(patch.meta))
    for source, target in (
        (patch.nodes.added, out.nodes.added),
        (patch.nodes.updated, out.nodes.updated),
    ):
        for node in source:
            if flt.matches(node):
                target.append(node)
                flt.remember(sub.known, node.id)
            elif node.id in sub.known:
                sub.known.discard(node.id)  # it no longer passes this subscriber's filter
                out.nodes.removed.append(node.id)
    for node_id in patch.nodes.removed:
        if node_id in sub.known or node_id in flt.node_ids or _replayed(flt, node_id, versions):
            sub.known.discard(node_id)
            out.nodes.removed.append(node_id)
    out.edges.added = [e for e in patch.edges.added if flt.edge_matches(e, nodes)]
    out.edges.updated = [e for e in patch.edges.updated if flt.edge_matches(e, nodes)]
    return None if out.empty else out


def _replayed(flt: PatchFilter, node_id: str, versions: dict[str, GraphNode] | None) -> bool:
    """Whether a replay tells this removal: the node as the log last carried it passes the
    filter, or the log never carried it (the client may hold it from a snapshot)."""
    if versions is None:
        return False
    last = versions.get(node_id)
    return last is None or flt.matches(last)
