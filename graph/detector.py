"""Change detection for graph UIs: one detector per process, however many subscribers.

Three feeds, one batcher:

- this process's writes (the write service's listener, :meth:`ChangeDetector.on_local`);
- other processes' writes, announced on the bus (:meth:`ChangeDetector.on_remote`);
- one timestamp catch-up per process (``changes_since`` every ``catch_up_interval``), for
  writes whose announcement was lost or never made (the CLI without Redis, a Redis outage).

Every change is a version ``(node id or edge key, updated_at)``; a version seen once is not
seen again, so a write that arrives by two feeds makes one patch (exactly once per process).
A patch carries a node as it is when the patch is built, which may already include a later
write; the later write's notice then finds the state it would send already sent and adds
nothing (the state last sent per node is remembered by its ``updated_at``).
Versions are compared for identity, not order: two processes writing one node at once stamp
before they commit, so the older stamp can arrive (and even be stored) last; it is still news.
The catch-up looks back ``CATCH_UP_OVERLAP_S`` before its watermark, because a write is
stamped before it commits and a slow commit would otherwise fall behind the watermark (never
before its start: what was there then is in the snapshot the caller built at start-up).

Changes that arrive within ``batch_window`` become one patch: its nodes are read in one query,
quarantined ones dropped, edges touching them dropped (ADR 0020), and an empty patch is not
sent. A node deleted by a write (a REMOVED result) or merged into another concept from a
reviewed state is reported ``removed``; one quarantined until then never is (the write service
flags its removal ``unseen``; a redirect keeps ``merged_from``), so no patch reveals a node
tenants never saw (ADR 0034). Patches
are numbered (``seq``) and kept in a bounded log; SSE ids are ``<epoch>-<seq>``, the epoch
naming this process's log, so a reconnect with ``Last-Event-ID`` replays from the log — or
gets a ``resync`` when the id is older than the log, or from another process's log.

Each subscriber has a :class:`~graph.patch_filter.PatchFilter` and a bounded queue; one that
falls ``max_queue`` patches behind gets a final ``resync`` and is dropped. Work per patch is
one or two graph reads whatever the subscriber count: filtering is in memory.

Other processes' changes (bus and catch-up) are also handed to ``remote listeners`` (the
engine's :class:`~engine.graph_sync.GraphSync`) once per batch, so evidence and lexicon follow
writes made anywhere within one batch window.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import deque
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import structlog

from graph.bus import GraphChange, new_origin
from graph.fanout import call_each
from graph.models import EdgeKey, GraphEdge, GraphNode, WriteOutcome, WriteResult, utc_timestamp
from graph.patch_filter import PatchFilter
from graph.patches import GraphPatch
from graph.port import GraphReader
from graph.quarantine import MERGED_STATUS, REVIEWED_STATUS, is_hidden
from graph.write_service import ChangeListener

__all__ = [
    "CATCH_UP_OVERLAP_S",
    "ChangeDetector",
    "PatchEvent",
    "Resync",
    "StreamEvent",
]

log = structlog.get_logger(__name__)

CATCH_UP_OVERLAP_S = 5.0


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


@dataclass(frozen=True)
class _Record:
    seq: int
    patch: GraphPatch
    nodes: dict[str, GraphNode]  # every reviewed node of the patch and its edges' endpoints


@dataclass(eq=False)
class _Subscriber:
    filter: PatchFilter
    queue: asyncio.Queue[StreamEvent]
    known: set[str] = field(default_factory=set)


@dataclass
class _Batch:
    nodes: dict[str, WriteOutcome] = field(default_factory=dict)
    edges: dict[EdgeKey, tuple[WriteOutcome, str]] = field(default_factory=dict)
    read: dict[str, GraphNode] = field(default_factory=dict)  # already read by the catch-up
    edge_props: dict[EdgeKey, dict[str, object]] = field(default_factory=dict)
    remote: list[tuple[list[WriteResult], str]] = field(default_factory=list)
    # Nodes deleted by a write of this batch (a REMOVED result, local or from the bus), except
    # those the write flagged ``unseen`` (quarantined until then: tenants never saw them).
    removed: set[str] = field(default_factory=set)
    stamps: dict[str, str] = field(default_factory=dict)  # node id -> newest version noticed
    timestamp: str = ""

    def add(self, result: WriteResult, timestamp: str) -> None:
        """A newer version of a node or edge: what the catch-up read of it is stale now and is
        read again when the patch is built (a node confirmed after the catch-up read it
        provisional would otherwise be dropped as quarantined, and never sent)."""
        self.timestamp = max(self.timestamp, timestamp)
        if result.node_id is not None:
            self.read.pop(result.node_id, None)
            self.stamps[result.node_id] = max(self.stamps.get(result.node_id, ""), timestamp)
        elif result.edge is not None:
            self.edge_props.pop(result.edge, None)
        if result.node_id is not None and result.outcome is WriteOutcome.REMOVED:
            if result.unseen:
                self.removed.discard(result.node_id)
            else:
                self.removed.add(result.node_id)
        if result.node_id is not None:
            if self.nodes.get(result.node_id) is not WriteOutcome.CREATED:
                self.nodes[result.node_id] = result.outcome
        elif result.edge is not None:
            previous = self.edges.get(result.edge)
            if previous is None or previous[0] is not WriteOutcome.CREATED:
                self.edges[result.edge] = (result.outcome, timestamp)


def _shift(timestamp: str, seconds: float) -> str:
    moment = datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return utc_timestamp(moment + timedelta(seconds=seconds))


def _left_view(node_id: str, node: GraphNode | None, batch: _Batch) -> bool:
    """Whether tenants must be told ``removed``: deleted by a write of this batch that did not
    flag it ``unseen``, or merged into another concept from a reviewed state (its redirect
    keeps ``merged_from``). A node quarantined until then is never reported: not even its
    removal may reveal it (ADR 0020, 0034). A node found missing while the batch holds another
    write of it waits for its own REMOVED result, which says whether tenants saw it."""
    if node is None:
        return node_id in batch.removed
    merged = node.properties.get("status") == MERGED_STATUS
    return merged and node.properties.get("merged_from") == REVIEWED_STATUS


def _key(result: WriteResult) -> str:
    if result.node_id is not None:
        return f"n\x1f{result.node_id}"
    assert result.edge is not None
    return f"e\x1f{result.edge.source}\x1f{result.edge.type}\x1f{result.edge.target}"


class ChangeDetector:
    def __init__(
        self,
        reader: GraphReader,
        *,
        batch_window: float = 0.2,
        log_size: int = 1000,
        catch_up_interval: float = 2.0,
        catch_up_limit: int = 1000,
        max_queue: int = 100,
        origin: str | None = None,
        local_backlog: Callable[[], int] = lambda: 0,
    ) -> None:
        self._reader = reader
        self._window = batch_window
        self._log: deque[_Record] = deque(maxlen=log_size)
        self._interval = catch_up_interval
        self._catch_up_limit = catch_up_limit
        self._max_queue = max_queue
        self._local_backlog = local_backlog
        self.origin = origin or new_origin()
        self.epoch = new_origin()  # names this process's log in SSE ids
        self._seq = itertools.count(1)
        self._subscribers: set[_Subscriber] = set()
        self._remote_listeners: list[ChangeListener] = []
        self._seen: set[tuple[str, str]] = set()  # versions: (node or edge key, updated_at)
        self._sent: dict[str, str] = {}  # node id -> the updated_at of the state last sent
        self._batch = _Batch()
        self._flusher: asyncio.Task[None] | None = None
        self._poller: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._watermark = utc_timestamp()
        self._floor = self._watermark
        self.queries = 0  # graph reads spent on change detection (bench, metrics)
        self.patches_sent = 0

    # -- lifecycle --------------------------------------------------------------------------

    def add_remote_listener(self, listener: ChangeListener) -> None:
        """``listener(results, timestamp)`` for changes other processes made."""
        self._remote_listeners.append(listener)

    def start(self, watermark: str | None = None) -> None:
        """Start the timestamp catch-up (from ``watermark``, default now)."""
        self._watermark = watermark or utc_timestamp()
        self._floor = self._watermark  # what was there before is the caller's snapshot
        if self._poller is None:
            self._poller = asyncio.create_task(self._poll(), name="graph-catch-up")

    async def aclose(self) -> None:
        for task in (self._poller, self._flusher):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        for sub in list(self._subscribers):
            self._drop(sub, "shutdown")

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    @property
    def last_id(self) -> str | None:
        return self._id(self._log[-1].seq) if self._log else None

    # -- feeds ------------------------------------------------------------------------------

    async def on_local(self, results: Sequence[WriteResult], timestamp: str) -> None:
        """The write service's listener (this process's writes)."""
        self._take(results, timestamp, remote=False)

    async def on_remote(self, change: GraphChange) -> None:
        """The bus handler (another process's write)."""
        if change.origin != self.origin:
            self._take(change.results, change.timestamp, remote=True)

    def request_catch_up(self) -> None:
        """Run the timestamp catch-up now (the bus lost messages)."""
        self._wake.set()

    def _fresh(self, results: Sequence[WriteResult], timestamp: str) -> list[WriteResult]:
        fresh = []
        for result in results:
            key = _key(result)
            if (key, timestamp) in self._seen:
                continue
            self._seen.add((key, timestamp))
            fresh.append(result)
        return fresh

    def _take(self, results: Sequence[WriteResult], timestamp: str, *, remote: bool) -> None:
        fresh = self._fresh([r for r in results if r.outcome is not WriteOutcome.UNCHANGED],
                            timestamp)  # fmt: skip
        if not fresh:
            return
        for result in fresh:
            self._batch.add(result, timestamp)
        if remote:
            self._batch.remote.append((fresh, timestamp))
        self._schedule()

    def _schedule(self) -> None:
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_later(), name="graph-patch-batch")

    async def _flush_later(self) -> None:
        await asyncio.sleep(self._window)
        try:
            await self.flush()
        except Exception:  # the graph is down: the batch waits for the next round
            log.warning("graph_patch_batch_deferred", exc_info=True)
            await asyncio.sleep(min(5.0, self._window * 10))
        # Changes that arrived while this flush awaited (the remote listeners, the read) are
        # in the next batch; _schedule did not start a flusher for them, since this one was
        # still running, so this one does (they once waited for an unrelated later change).
        self._reschedule()

    def _reschedule(self) -> None:
        self._flusher = None
        if self._batch.nodes or self._batch.edges:
            self._schedule()

    async def catch_up(self) -> int:
        """One timestamp catch-up; returns how many new versions it found. Put off while this
        process's own writes wait for their listeners (they would look foreign to it)."""
        if self._local_backlog():
            return 0
        since = max(self._floor, _shift(self._watermark, -CATCH_UP_OVERLAP_S))
        self.queries += 1
        found = await self._reader.changes_since(since, limit=self._catch_up_limit)
        full = len(found.nodes) + len(found.edges) >= self._catch_up_limit
        fresh: list[WriteResult] = []
        latest = self._watermark
        for node in found.nodes:
            stamp = str(node.properties.get("updated_at", ""))
            created = node.properties.get("created_at") == stamp
            result = WriteResult(
                outcome=WriteOutcome.CREATED if created else WriteOutcome.UPDATED, node_id=node.id
            )
            latest = max(latest, stamp)
            if self._fresh([result], stamp) or self._unsent(node, stamp):
                fresh.append(result)
                self._batch.add(result, stamp)
                self._batch.read[node.id] = node
        for edge in found.edges:
            stamp = str(edge.properties.get("updated_at", ""))
            created = edge.properties.get("created_at") == stamp
            key = EdgeKey(source=edge.source, type=edge.type, target=edge.target)
            result = WriteResult(
                outcome=WriteOutcome.CREATED if created else WriteOutcome.UPDATED, edge=key
            )
            latest = max(latest, stamp)
            if self._fresh([result], stamp):
                fresh.append(result)
                self._batch.add(result, stamp)
                self._batch.edge_props[key] = dict(edge.properties)
        self._watermark = latest
        self._prune()
        if full and fresh:  # more foreign changes than one page: some may be missing
            log.warning("graph_catch_up_truncated", limit=self._catch_up_limit)
            for sub in list(self._subscribers):
                self._drop(sub, "too many changes to catch up")
        if fresh:
            self._batch.remote.append((fresh, latest))
            self._schedule()
        return len(fresh)

    def _unsent(self, node: GraphNode, stamp: str) -> bool:
        """A visible node whose stored state was never sent, although a notice of it was taken
        (a read at that time showed something else): the catch-up sends it now. This is the
        detector's self-repair: whatever a batch missed, the next catch-up within the
        look-back compares what is stored with what was sent."""
        if node.id in self._batch.nodes:  # the batch being collected sends it
            return False
        return not is_hidden(node) and self._sent.get(node.id) != stamp

    async def _poll(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._interval):
                    await self._wake.wait()
            self._wake.clear()
            try:
                await self.catch_up()
            except Exception as exc:  # the graph is down: try again next round
                log.warning("graph_catch_up_failed", error=type(exc).__name__)

    def _prune(self) -> None:
        if len(self._seen) > 100_000:
            horizon = _shift(self._watermark, -2 * CATCH_UP_OVERLAP_S)
            self._seen = {version for version in self._seen if version[1] >= horizon}

    # -- batches become patches -------------------------------------------------------------

    async def flush(self) -> GraphPatch | None:
        """Turn what was collected into one patch now (tests; the batch timer calls it)."""
        batch, self._batch = self._batch, _Batch()
        if not (batch.nodes or batch.edges):
            return None
        for results, stamp in batch.remote:
            await call_each(
                self._remote_listeners, results, stamp, failure="graph_remote_listener_failed"
            )
        try:
            record = await self._build(batch)
        except Exception:
            self._restore(batch)  # read again next round; nothing is lost or sent half-read
            raise
        if record is None:
            return None
        self._log.append(record)
        self.patches_sent += 1
        for sub in list(self._subscribers):
            self._deliver(sub, record)
        return record.patch

    def _restore(self, batch: _Batch) -> None:
        """Put a batch whose patch could not be built back in front of what came since."""
        newer, self._batch = self._batch, batch
        batch.remote = []  # remote listeners already had these
        for node_id, outcome in newer.nodes.items():
            if batch.nodes.get(node_id) is not WriteOutcome.CREATED:
                batch.nodes[node_id] = outcome
        for key, (outcome, stamp) in newer.edges.items():
            previous = batch.edges.get(key)
            if previous is None or previous[0] is not WriteOutcome.CREATED:
                batch.edges[key] = (outcome, stamp)
        batch.read.update(newer.read)
        batch.removed |= newer.removed
        for node_id, stamp in newer.stamps.items():
            batch.stamps[node_id] = max(batch.stamps.get(node_id, ""), stamp)
        batch.edge_props.update(newer.edge_props)
        batch.remote = newer.remote
        batch.timestamp = max(batch.timestamp, newer.timestamp)

    async def _build(self, batch: _Batch) -> _Record | None:
        wanted = [i for i in batch.nodes if i not in batch.read]
        ends = {e.source for e in batch.edges} | {e.target for e in batch.edges}
        wanted += [i for i in ends if i not in batch.read and i not in batch.nodes]
        nodes = dict(batch.read)
        if wanted:
            self.queries += 1
            nodes.update({n.id: n for n in await self._reader.get_nodes(sorted(set(wanted)))})
        reviewed = {i: n for i, n in nodes.items() if not is_hidden(n)}
        patch = GraphPatch(seq=0, timestamp=batch.timestamp)
        sent: dict[str, str] = {}
        for node_id, outcome in batch.nodes.items():
            node = nodes.get(node_id)
            if self._not_visible_yet(node_id, node, batch):
                continue
            if _left_view(node_id, node, batch):
                patch.nodes.removed.append(node_id)
                sent[node_id] = ""
            elif node is not None and node_id in reviewed:
                # A patch carries the node as it is when the patch is built, which may already
                # hold a later write; that write's own notice then brings nothing new.
                state = str(node.properties.get("updated_at", ""))
                if state and self._sent.get(node_id) == state:
                    continue
                sent[node_id] = state
                added = outcome is WriteOutcome.CREATED
                (patch.nodes.added if added else patch.nodes.updated).append(node)
        for key, (outcome, stamp) in batch.edges.items():
            if key.source not in reviewed or key.target not in reviewed:
                continue  # touches a quarantined node, or one that is gone
            props = batch.edge_props.get(key) or {"updated_at": stamp}
            edge = GraphEdge(source=key.source, target=key.target, type=key.type, properties=props)
            (patch.edges.added if outcome is WriteOutcome.CREATED else patch.edges.updated).append(
                edge
            )
        if not (patch.nodes.added or patch.nodes.updated or patch.nodes.removed
                or patch.edges.added or patch.edges.updated):  # fmt: skip
            return None  # all of it quarantined: not even its timing is news to a tenant
        patch.seq = next(self._seq)
        if len(self._sent) > 100_000:
            self._sent.clear()  # at worst a node already sent is sent once more
        self._sent.update(sent)
        return _Record(patch.seq, patch, reviewed)

    @staticmethod
    def _not_visible_yet(node_id: str, node: GraphNode | None, batch: _Batch) -> bool:
        """Whether the read does not show the write this batch was told of: the node is
        missing (and not deleted) or older than the notice (another process announced a write
        this connection cannot see yet). It is left out of the patch (not sent stale, nor as a
        removal); the catch-up sends it once it is visible, since its stored state was never
        sent (:meth:`_unsent`)."""
        stamp = batch.stamps.get(node_id, "")
        if node is None:
            return node_id not in batch.removed
        return bool(stamp) and str(node.properties.get("updated_at", "")) < stamp

    # -- subscribers ------------------------------------------------------------------------

    def _id(self, seq: int) -> str:
        return f"{self.epoch}-{seq}"

    def _filtered(self, sub: _Subscriber, record: _Record) -> GraphPatch | None:
        patch, flt = record.patch, sub.filter
        if flt.everything:
            return patch
        out = GraphPatch(seq=patch.seq, timestamp=patch.timestamp, meta=dict(patch.meta))
        for source, target in ((patch.nodes.added, out.nodes.added),
                               (patch.nodes.updated, out.nodes.updated)):  # fmt: skip
            for node in source:
                if flt.matches(node):
                    target.append(node)
                    flt.remember(sub.known, node.id)
                elif node.id in sub.known:
                    sub.known.discard(node.id)  # it no longer passes this subscriber's filter
                    out.nodes.removed.append(node.id)
        for node_id in patch.nodes.removed:
            if node_id in sub.known or node_id in flt.node_ids:
                sub.known.discard(node_id)
                out.nodes.removed.append(node_id)
        for edge in patch.edges.added:
            if flt.edge_matches(edge, record.nodes):
                out.edges.added.append(edge)
        for edge in patch.edges.updated:
            if flt.edge_matches(edge, record.nodes):
                out.edges.updated.append(edge)
        empty = not (out.nodes.added or out.nodes.updated or out.nodes.removed
                     or out.edges.added or out.edges.updated)  # fmt: skip
        return None if empty else out

    def _deliver(self, sub: _Subscriber, record: _Record) -> None:
        patch = self._filtered(sub, record)
        if patch is None:
            return
        if sub.queue.qsize() >= self._max_queue:
            self._drop(sub, "subscriber fell behind")
            return
        sub.queue.put_nowait(PatchEvent(self._id(record.seq), patch))

    def _drop(self, sub: _Subscriber, reason: str) -> None:
        self._subscribers.discard(sub)
        sub.queue.put_nowait(Resync(reason, final=True))

    def _replay(self, last_event_id: str) -> list[_Record] | None:
        epoch, _, seq_text = last_event_id.strip().rpartition("-")
        if epoch != self.epoch or not seq_text.isdigit():
            return None
        seq = int(seq_text)
        newest = self._log[-1].seq if self._log else 0
        oldest = self._log[0].seq if self._log else newest + 1
        if seq > newest or seq < oldest - 1:
            return None
        return [r for r in self._log if r.seq > seq]

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
                for record in replay:
                    self._deliver(sub, record)
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
