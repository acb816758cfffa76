"""The retention job: erase conversations last written more than ``days`` ago (ADR 0048).

Every API worker runs one when ``REGINTEL_CONVERSATION_RETENTION_DAYS`` is set: the first pass a
little after start-up, then one an ``interval`` (an hour), each delayed by a random part of
``jitter`` so that the workers do not all start at once. Running it in several workers at once
is safe: :meth:`conversations.port.ConversationErasure.erase_expired` locks each conversation
and checks the cutoff again before erasing it, so a conversation is erased by one worker and
skipped by the others, and one written since the cutoff is kept. A pass that fails (the store
is down) is logged and the next one tries again; nothing else depends on it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from typing import Protocol

import structlog

from conversations.models import ErasureTotals
from errors import RegintelError
from infra.lifetime import Lifetime

__all__ = ["ExpiredErasure", "RetentionJob"]

log = structlog.get_logger(__name__)


class ExpiredErasure(Protocol):
    """What the job needs of the store (part of :class:`conversations.port.ConversationErasure`)."""

    async def erase_expired(self, before: datetime, batch: int = 200) -> ErasureTotals: ...


def _now() -> datetime:
    return datetime.now(UTC)


class RetentionJob:
    """Erase what is older than ``days``, now (:meth:`run_once`) or on a schedule
    (:meth:`start` … :meth:`aclose`)."""

    def __init__(
        self,
        store: ExpiredErasure,
        days: int,
        *,
        interval: float = 3600.0,
        jitter: float = 60.0,
        clock: Callable[[], datetime] = _now,
    ) -> None:
        if days < 1:
            raise ValueError("a retention period is at least one day")
        self._store = store
        self._days = days
        self._interval = interval
        self._jitter = jitter
        self._clock = clock
        self._task: asyncio.Task[None] | None = None
        self._lifetime = Lifetime("the retention job")
        self.passes = 0  # completed passes, failed ones included

    @property
    def cutoff(self) -> datetime:
        """Conversations last written before this moment are past the retention period."""
        return self._clock() - timedelta(days=self._days)

    async def run_once(self) -> ErasureTotals:
        """One pass over every tenant; what it erased (counts)."""
        self._lifetime.check()
        totals = await self._store.erase_expired(self.cutoff)
        if totals.conversations:
            log.info("retention_erased", days=self._days, **totals.model_dump())
        return totals

    def start(self) -> None:
        """Run a pass after a random part of ``jitter``, then one every ``interval``."""
        self._lifetime.check()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name="regintel-retention"
            )

    async def _run(self) -> None:
        delay = random.uniform(0, self._jitter)  # spreads the workers' passes
        while True:
            await asyncio.sleep(delay)
            try:
                await self.run_once()
            except (RegintelError, OSError):
                log.exception("retention_failed")
            self.passes += 1
            delay = self._interval + random.uniform(0, self._jitter)

    async def aclose(self) -> None:
        """Stop the schedule; a pass in progress is cancelled (each conversation's erasure is
        one transaction: it is whole or not at all). Afterwards :meth:`start` and
        :meth:`run_once` raise :class:`errors.AdapterClosed`."""
        self._lifetime.close()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
