"""The feed: every change the detector hears of, deduplicated, into the batch being collected.

Three sources, one batch:

- this process's writes (the write service's listener);
- other processes' writes, announced on the bus;
- one timestamp catch-up per process (``changes_since``), for writes whose announcement was
  lost or never made (the CLI without Redis, a Redis outage).

Every change is a version ``(node id or edge key, updated_at)``; a version seen once is not
taken again, so a write that arrives by two sources makes one patch (exactly once per
process). Versions are compared for identity, not order: two processes writing one node at
once stamp before they commit, so the older stamp can arrive (and even be stored) last; it is
still news. The catch-up looks back ``CATCH_UP_OVERLAP_S`` before its watermark, because a
write is stamped before it commits and a slow commit would otherwise fall behind the
watermark (never before its start: what was there then is in the snapshot the caller built at
start-up). It also repairs: a visible node whose stored state was never sent, although a notice
of it was taken (a read at that time showed something else), is taken again.

Changes from other processes (the bus and the catch-up) are kept on the batch as ``remote``,
so the detector hands them to its remote listeners when it flushes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from graph.detector.batch import Batch, SentStates
from graph.models import EdgeKey, GraphNode, WriteOutcome, WriteResult, utc_timestamp
from graph.port import GraphReader

__all__ = ["CATCH_UP_OVERLAP_S", "CatchUp", "ChangeFeed"]

CATCH_UP_OVERLAP_S = 5.0


@dataclass(frozen=True)
class CatchUp:
    """What one catch-up found: how many new versions, and whether the page was full (more
    foreign changes than one page: some may be missing)."""

    found: int
    truncated: bool


def _shift(timestamp: str, seconds: float) -> str:
    moment = datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return utc_timestamp(moment + timedelta(seconds=seconds))


def _key(result: WriteResult) -> str:
    if result.node_id is not None:
        return f"n\x1f{result.node_id}"
    assert result.edge is not None
    return f"e\x1f{result.edge.source}\x1f{result.edge.type}\x1f{result.edge.target}"


def _as_result(
    stamp: str, props: Mapping[str, object], node_id: str | None = None, edge: EdgeKey | None = None
) -> WriteResult:
    """A change read by the catch-up, as the write result that would have announced it."""
    created = props.get("created_at") == stamp
    outcome = WriteOutcome.CREATED if created else WriteOutcome.UPDATED
    return WriteResult(outcome=outcome, node_id=node_id, edge=edge)


class ChangeFeed:
    def __init__(
        self,
        reader: GraphReader,
        sent: SentStates,
        *,
        catch_up_limit: int = 1000,
        local_backlog: Callable[[], int] = lambda: 0,
    ) -> None:
        self._reader = reader
        self._sent = sent
        self._limit = catch_up_limit
        self._local_backlog = local_backlog
        self._seen: set[tuple[str, str]] = set()  # versions: (node or edge key, updated_at)
        self.batch = Batch()
        self.in_flight: Batch | None = None  # taken by a flush, not yet built and recorded
        self._watermark = utc_timestamp()
        self._floor = self._watermark
        self.queries = 0  # graph reads spent on the catch-up

    def start(self, watermark: str | None = None) -> None:
        """Catch up from ``watermark`` (default now); what was there before is the caller's
        snapshot."""
        self._watermark = watermark or utc_timestamp()
        self._floor = self._watermark

    def take(self, results: Sequence[WriteResult], timestamp: str, *, remote: bool) -> bool:
        """Add the new versions among ``results`` to the batch; whether there were any."""
        changed = [r for r in results if r.outcome is not WriteOutcome.UNCHANGED]
        fresh = self._fresh(changed, timestamp)
        if not fresh:
            return False
        for result in fresh:
            self.batch.add(result, timestamp)
        if remote:
            self.batch.remote.append((fresh, timestamp))
        return True

    def take_batch(self) -> Batch:
        """The batch collected so far; a new one collects from now on."""
        batch, self.batch = self.batch, Batch()
        self.in_flight = batch
        return batch

    def landed(self, batch: Batch) -> None:
        """``batch``'s patch was built and its states recorded as sent (or it had nothing
        visible): the catch-up compares with the sent states again."""
        if self.in_flight is batch:
            self.in_flight = None

    def put_back(self, batch: Batch) -> None:
        """Put a batch whose patch could not be built back in front of what came since."""
        self.landed(batch)
        batch.absorb(self.batch)
        self.batch = batch

    async def catch_up(self) -> CatchUp:
        """One timestamp catch-up. Put off while this process's own writes wait for their
        listeners (they would look foreign to it)."""
        if self._local_backlog():
            return CatchUp(0, truncated=False)
        since = max(self._floor, _shift(self._watermark, -CATCH_UP_OVERLAP_S))
        self.queries += 1
        found = await self._reader.changes_since(since, limit=self._limit)
        full = len(found.nodes) + len(found.edges) >= self._limit
        fresh: list[WriteResult] = []
        latest = self._watermark
        for node in found.nodes:
            stamp = str(node.properties.get("updated_at", ""))
            result = _as_result(stamp, node.properties, node_id=node.id)
            latest = max(latest, stamp)
            if self._fresh([result], stamp) or self._unsent(node, stamp):
                fresh.append(result)
                self.batch.add(result, stamp)
                self.batch.read[node.id] = node
        for edge in found.edges:
            stamp = str(edge.properties.get("updated_at", ""))
            key = EdgeKey(source=edge.source, type=edge.type, target=edge.target)
            result = _as_result(stamp, edge.properties, edge=key)
            latest = max(latest, stamp)
            if self._fresh([result], stamp):
                fresh.append(result)
                self.batch.add(result, stamp)
                self.batch.edge_props[key] = dict(edge.properties)
        self._watermark = latest
        self._prune()
        if fresh:
            self.batch.remote.append((fresh, latest))
        return CatchUp(len(fresh), truncated=full and bool(fresh))

    def _fresh(self, results: Sequence[WriteResult], timestamp: str) -> list[WriteResult]:
        fresh = []
        for result in results:
            key = _key(result)
            if (key, timestamp) in self._seen:
                continue
            self._seen.add((key, timestamp))
            fresh.append(result)
        return fresh

    def _unsent(self, node: GraphNode, stamp: str) -> bool:
        """The detector's self-repair: whatever a batch missed, the next catch-up within the
        look-back compares what is stored with what was sent."""
        if node.id in self.batch.nodes:  # the batch being collected sends it
            return False
        if self.in_flight is not None and node.id in self.in_flight.nodes:
            return False  # a flush is building its patch now (it awaits the graph's read)
        return self._sent.never_sent(node, stamp)

    def _prune(self) -> None:
        if len(self._seen) > 100_000:
            horizon = _shift(self._watermark, -2 * CATCH_UP_OVERLAP_S)
            self._seen = {version for version in self._seen if version[1] >= horizon}
