"""``TurnRecord``: what one chat turn has produced so far, journaled as it streams and finished
exactly once when it ends (ADR 0010, ADR 0018).

Before the model is called the engine has saved the question and an empty answer marked
``streaming``. Inside ``async with TurnRecord(...)``:

- a journal task writes the answer so far (``checkpoint``) at a bounded rate: at most once per
  ``write_interval`` seconds, once ``write_min_chars`` new characters arrived or once the
  oldest unwritten character is ``write_max_delay`` seconds old, whichever comes first (a short
  answer killed after a few text events keeps them, issue 25), and every ``keepalive`` seconds
  whatever arrived (which also tells readers the stream is alive). A
  failed checkpoint is logged and the stream goes on; the next one writes the whole text.
- on leaving the block the record is finished, once, whatever happened:

  - the block ran to its end and called :meth:`TurnRecord.complete`: finished as ``complete``
    (or ``error`` if the provider failed), awaited, so the caller can report a failed save
    before its ``done`` event;
  - anything else (the client left, the task was cancelled, an exception): finished as
    ``partial`` (or ``error``) in a background task that the cancellation cannot interrupt.
    Awaiting it here is not possible: inside a cancelled anyio scope every ``await`` is
    cancelled again (ADR 0010).

  The final save first stops the journal and waits for a checkpoint in flight, so the two
  never race; the store also refuses a checkpoint of an answer no longer ``streaming``.

A process killed mid-stream keeps the question and the last checkpoint; reads report the
answer ``interrupted`` once nobody has written it for the store's lease.

Per-chunk work is O(chunk) (ADR 0029): :meth:`TurnRecord.add_text` appends and counts, nothing
more. A checkpoint writes the answer so far as the user saw it, and no sanitised form: the
final save sanitises the whole answer, once, and an answer that never got its final save
(``interrupted``) is sanitised when a later turn reads it as history (ADR 0038). Checkpoints
therefore never scan for PII.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import structlog

from conversations.models import MessageStatus
from engine.events import TurnWarning
from engine.grounding import Grounding

__all__ = ["SaveTurn", "TurnRecord"]

log = structlog.get_logger(__name__)

SaveTurn = Callable[["TurnRecord"], Awaitable[None]]
"""Writes a record to the conversation store (the engine's final save, or a checkpoint)."""


@dataclass
class TurnRecord:
    """The answer, status, warnings and usage of one turn, its journal and its single save."""

    save: SaveTurn
    spawn: Callable[[Awaitable[None]], asyncio.Task[Any]]
    checkpoint: SaveTurn | None = None
    write_interval: float = 0.25
    write_min_chars: int = 64
    write_max_delay: float = 1.0
    keepalive: float = 10.0
    answer_parts: list[str] = field(default_factory=list)
    warnings: list[TurnWarning] = field(default_factory=list)
    # Warnings sent while the answer streamed (a fallback route answered); ``done`` lists them.
    told: list[TurnWarning] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    referenced: list[str] = field(default_factory=list)
    failed: bool = False
    completed: bool = False
    capture_pending: bool = False  # the capture outlived the answer (finished in background)
    answer_only: bool = False  # the provider ran without tools (``Done.answer_only``)
    save_error: BaseException | None = None
    grounding: Grounding | None = None
    checkpoints: int = 0
    _chars: int = 0
    _written: int = 0  # characters the last checkpoint wrote
    _pending_since: float = 0.0  # time.monotonic() when the oldest unwritten text arrived
    _saved: bool = False
    _stopping: bool = False
    _wake: asyncio.Event = field(default_factory=asyncio.Event)  # text arrived, or stopping
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _journal: asyncio.Task[None] | None = None

    @property
    def answer(self) -> str:
        parts = self.answer_parts
        if len(parts) > 1:  # joined once: the next read joins only what arrived since
            parts[:] = ["".join(parts)]
        return parts[0] if parts else ""

    @property
    def status(self) -> MessageStatus:
        if self.failed:
            return "error"
        return "complete" if self.completed else "partial"

    def add_text(self, delta: str) -> None:
        """A piece of the answer arrived (the journal writes it at its pace)."""
        self.answer_parts.append(delta)
        if self._chars == self._written:  # the first text since the last checkpoint
            self._pending_since = time.monotonic()
            self._wake.set()  # the journal now waits at most write_max_delay for it
        self._chars += len(delta)
        if self._chars - self._written >= self.write_min_chars:
            self._wake.set()

    def fail(self) -> None:
        """The provider or egress failed: the answer so far is kept, marked ``error``."""
        self.failed = True

    def complete(self, referenced: list[str]) -> None:
        """The stream ran to its end; ``referenced`` are the nodes the answer rests on."""
        self.completed = True
        self.referenced = referenced

    async def __aenter__(self) -> TurnRecord:
        if self.checkpoint is not None:
            self._journal = asyncio.get_running_loop().create_task(self._run_journal())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._saved:
            return
        self._saved = True
        task = self.spawn(self._finish())
        if exc_type is not None or not self.completed:
            return  # the background task saves; the engine's aclose() waits for it
        try:
            await asyncio.shield(task)  # a client leaving now cannot interrupt the save
        except Exception as error:  # reported in the turn's error event, logged by spawn
            self.save_error = error
            self.failed = True

    async def _finish(self) -> None:
        journal = self._journal
        if journal is not None:
            self._stopping = True
            self._stop.set()
            self._wake.set()
            await asyncio.gather(journal, return_exceptions=True)  # a write in flight ends
        await self.save(self)

    async def _run_journal(self) -> None:
        """Checkpoint the answer at a bounded rate until the record is finished."""
        assert self.checkpoint is not None
        while not self._stopping:
            await _wait(self._stop, self.write_interval)  # the rate bound: text cannot wake it
            due = time.monotonic() + max(self.keepalive - self.write_interval, 0.0)
            while not self._stopping and self._chars - self._written < self.write_min_chars:
                if self._chars > self._written:  # text waits: bounded in time, not only size
                    due = min(due, self._pending_since + self.write_max_delay)
                if (remaining := due - time.monotonic()) <= 0:
                    break  # keep-alive or max delay: write whatever there is
                self._wake.clear()
                await _wait(self._wake, remaining)
            if self._stopping:
                return
            chars = self._chars
            try:
                await self.checkpoint(self)
            except Exception as error:  # the final save writes everything anyway
                log.warning("answer_checkpoint_failed", error=repr(error))
            else:
                self._written = chars
                self.checkpoints += 1


async def _wait(event: asyncio.Event, seconds: float) -> None:
    """Until ``event`` is set, for at most ``seconds``."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()
