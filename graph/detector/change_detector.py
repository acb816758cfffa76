"""The change detector: the feed, the batcher and the patch log, run by two timers.

:meth:`ChangeDetector.on_local` (the write service's listener) and
:meth:`ChangeDetector.on_remote` (the bus handler) hand changes to the
:class:`~graph.detector.feed.ChangeFeed`; the first change of a batch starts a timer that
flushes it ``batch_window`` later: its other-process changes go to the remote listeners (the
engine's :class:`~engine.graph_sync.GraphSync`, so evidence and lexicon follow writes made
anywhere within one batch window), the :class:`~graph.detector.batch.PatchBuilder` makes the
patch, and the :class:`~graph.detector.patch_log.PatchLog` keeps and delivers it. A batch
whose patch could not be built (the graph is down) is put back and tried again. The second
timer runs the feed's catch-up every ``catch_up_interval``, or at once when the bus says it
may have lost messages.

After :meth:`ChangeDetector.aclose` the detector refuses use (:class:`errors.AdapterClosed`
from ``start``, ``subscribe``, ``flush`` and ``catch_up``); changes it is still told of are
dropped, since no stream is left to send them to (the write service, closed after it, drains
its listeners into it).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable, Sequence

import structlog

from graph.bus import GraphChange, new_origin
from graph.detector.batch import PatchBuilder
from graph.detector.feed import ChangeFeed
from graph.detector.patch_log import PatchLog, StreamEvent
from graph.fanout import call_each
from graph.models import WriteResult
from graph.patch_filter import PatchFilter
from graph.patches import GraphPatch
from graph.port import GraphReader
from graph.write_service import ChangeListener
from infra.lifetime import Lifetime

__all__ = ["ChangeDetector"]

log = structlog.get_logger(__name__)


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
        self.origin = origin or new_origin()
        self._window = batch_window
        self._interval = catch_up_interval
        self._catch_up_limit = catch_up_limit
        self._builder = PatchBuilder(reader)
        self._feed = ChangeFeed(
            reader, self._builder.sent, catch_up_limit=catch_up_limit, local_backlog=local_backlog
        )
        self._log = PatchLog(size=log_size, max_queue=max_queue)
        self._remote_listeners: list[ChangeListener] = []
        self._flusher: asyncio.Task[None] | None = None
        self._poller: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self.patches_sent = 0
        self._lifetime = Lifetime("the change detector")

    # -- lifecycle --------------------------------------------------------------------------

    def add_remote_listener(self, listener: ChangeListener) -> None:
        """``listener(results, timestamp)`` for changes other processes made."""
        self._remote_listeners.append(listener)

    def start(self, watermark: str | None = None) -> None:
        """Start the timestamp catch-up (from ``watermark``, default now)."""
        self._lifetime.check()
        self._feed.start(watermark)
        if self._poller is None:
            self._poller = asyncio.create_task(self._poll(), name="graph-catch-up")

    async def aclose(self) -> None:
        self._lifetime.close()
        for task in (self._poller, self._flusher):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        self._log.drop_all("shutdown")

    @property
    def epoch(self) -> str:
        """Names this process's patch log in SSE ids."""
        return self._log.epoch

    @property
    def subscribers(self) -> int:
        return self._log.subscribers

    @property
    def last_id(self) -> str | None:
        return self._log.last_id

    @property
    def queries(self) -> int:
        """Graph reads spent on change detection (bench, metrics)."""
        return self._feed.queries + self._builder.queries

    def subscribe(
        self, patch_filter: PatchFilter | None = None, last_event_id: str | None = None
    ) -> AsyncGenerator[StreamEvent, None]:
        """:meth:`PatchLog.subscribe <graph.detector.patch_log.PatchLog.subscribe>`."""
        self._lifetime.check()
        return self._log.subscribe(patch_filter, last_event_id)

    # -- feeds ------------------------------------------------------------------------------

    async def on_local(self, results: Sequence[WriteResult], timestamp: str) -> None:
        """The write service's listener (this process's writes)."""
        if not self._lifetime.closed and self._feed.take(results, timestamp, remote=False):
            self._schedule()

    async def on_remote(self, change: GraphChange) -> None:
        """The bus handler (another process's write)."""
        if change.origin != self.origin and not self._lifetime.closed:
            if self._feed.take(change.results, change.timestamp, remote=True):
                self._schedule()

    def request_catch_up(self) -> None:
        """Run the timestamp catch-up now (the bus lost messages)."""
        self._wake.set()

    async def catch_up(self) -> int:
        """One timestamp catch-up; returns how many new versions it found."""
        self._lifetime.check()
        found = await self._feed.catch_up()
        if found.truncated:
            log.warning("graph_catch_up_truncated", limit=self._catch_up_limit)
            self._log.drop_all("too many changes to catch up")
        if found.found:
            self._schedule()
        return found.found

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

    # -- batches become patches -------------------------------------------------------------

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
        self._flusher = None
        if self._feed.batch.pending:
            self._schedule()

    async def flush(self) -> GraphPatch | None:
        """Turn what was collected into one patch now (tests; the batch timer calls it)."""
        self._lifetime.check()
        batch = self._feed.take_batch()
        if not batch.pending:
            return None
        for results, stamp in batch.remote:
            await call_each(
                self._remote_listeners, results, stamp, failure="graph_remote_listener_failed"
            )
        try:
            record = await self._builder.build(batch)
        except Exception:
            self._feed.put_back(batch)  # read again next round; nothing is lost or sent half-read
            raise
        self._feed.landed(batch)
        if record is None:
            return None
        self._log.append(record)
        self.patches_sent += 1
        return record.patch
