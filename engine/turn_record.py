"""``TurnRecord``: what one chat turn has produced so far, saved exactly once when it ends.

The turn streams inside ``async with TurnRecord(...)``. On leaving the block the record is
saved, once, whatever happened:

- the block ran to its end and called :meth:`TurnRecord.complete`: saved as ``complete`` (or
  ``error`` if the provider failed), awaited, so the caller can report a failed save before
  its ``done`` event;
- anything else (the client left, the task was cancelled, an exception): saved as
  ``partial`` (or ``error``) in a background task that the cancellation cannot interrupt.
  Awaiting it here is not possible: inside a cancelled anyio scope every ``await`` is
  cancelled again (ADR 0010).

"Partial unless completed" is the rule; no path saves twice and no path forgets to save.
"""

from __future__ import annotations

import asyncio
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
"""Writes a finished record to the conversation store (the engine's ``_save``)."""


@dataclass
class TurnRecord:
    """The answer, status, warnings and usage of one turn, and its single save."""

    save: SaveTurn
    spawn: Callable[[Awaitable[None]], asyncio.Task[Any]]
    answer_parts: list[str] = field(default_factory=list)
    warnings: list[TurnWarning] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    referenced: list[str] = field(default_factory=list)
    failed: bool = False
    completed: bool = False
    save_error: BaseException | None = None
    grounding: Grounding | None = None
    _saved: bool = False

    @property
    def answer(self) -> str:
        return "".join(self.answer_parts)

    @property
    def status(self) -> MessageStatus:
        if self.failed:
            return "error"
        return "complete" if self.completed else "partial"

    def fail(self) -> None:
        """The provider or egress failed: the answer so far is kept, marked ``error``."""
        self.failed = True

    def complete(self, referenced: list[str]) -> None:
        """The stream ran to its end; ``referenced`` are the nodes the answer rests on."""
        self.completed = True
        self.referenced = referenced

    async def __aenter__(self) -> TurnRecord:
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
        task = self.spawn(self.save(self))
        if exc_type is not None or not self.completed:
            return  # the background task saves; the engine's aclose() waits for it
        try:
            await asyncio.shield(task)  # a client leaving now cannot interrupt the save
        except Exception as error:  # reported in the turn's error event, logged by spawn
            self.save_error = error
            self.failed = True
