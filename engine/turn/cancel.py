"""Turns cancelled by an erasure (issue 27, ADR 0048 addendum): the turns streaming in this
process, by tenant, user and conversation, and the cancellation an erasure sends them.

An erasure deletes the conversation in one transaction; a turn still streaming its answer then
finds nothing to save (ADR 0048). :class:`RunningTurns` also stops it: the engine registers
each streaming turn (:meth:`RunningTurns.track`) and looks at its :class:`CancelFlag` between
the model's chunks; once set, it closes the upstream call (nothing more is asked of the
provider), ends the stream with an ``error`` ``conversation_erased`` and saves nothing more.
The check is an attribute read per chunk; a provider that has sent nothing yet is stopped at
its first chunk (or its first-token timeout).

Erasure in another worker reaches this one through an :class:`ErasureNotices` (Redis pub/sub,
:class:`infra.erasure_notices.RedisErasureNotices`, when configured): every worker cancels its
own turns of the erased conversation, or of every conversation of an erased user. A turn that
starts after the notice is not cancelled; the store refuses its saves as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

import structlog

__all__ = [
    "CancelFlag",
    "ErasureListener",
    "ErasureNotices",
    "LocalErasureNotices",
    "RunningTurns",
]

log = structlog.get_logger(__name__)

ErasureListener = Callable[[str, str, str | None], Awaitable[object]]
"""``(tenant_id, user_id, conversation_id)``: a conversation erased (``None``: all of the
user's)."""


class ErasureNotices(Protocol):
    """Tells every worker of an erasure (its own included)."""

    async def publish(self, tenant_id: str, user_id: str, conversation_id: str | None) -> None:
        """Never raises: an erasure is done whether or not the notice arrives."""
        ...

    def subscribe(self, listener: ErasureListener) -> None: ...

    async def start(self) -> None: ...

    async def aclose(self) -> None: ...


class CancelFlag:
    """One streaming turn's flag; set once its conversation is erased."""

    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False


class RunningTurns:
    """The turns streaming in this process, for erasure to cancel."""

    def __init__(self) -> None:
        self._running: dict[tuple[str, str], dict[str, set[CancelFlag]]] = {}
        self.cancelled = 0  # turns cancelled so far

    @contextmanager
    def track(self, tenant_id: str, user_id: str, conversation_id: str) -> Iterator[CancelFlag]:
        """Register a turn for as long as it streams; its flag."""
        flag = CancelFlag()
        owner = self._running.setdefault((tenant_id, user_id), {})
        owner.setdefault(conversation_id, set()).add(flag)
        try:
            yield flag
        finally:
            flags = owner.get(conversation_id)
            if flags is not None:
                flags.discard(flag)
                if not flags:
                    del owner[conversation_id]
            if not owner:
                self._running.pop((tenant_id, user_id), None)

    async def cancel(self, tenant_id: str, user_id: str, conversation_id: str | None) -> int:
        """Set the flags of the user's turns in ``conversation_id`` (``None``: in any); how
        many. A listener of :class:`ErasureNotices`."""
        owner = self._running.get((tenant_id, user_id), {})
        chosen = [owner.get(conversation_id, set())] if conversation_id else list(owner.values())
        count = 0
        for flags in chosen:
            for flag in flags:
                if not flag.cancelled:
                    flag.cancelled = True
                    count += 1
        if count:
            self.cancelled += count
            log.info("turns_cancelled_by_erasure", turns=count)
        return count

    def __len__(self) -> int:
        return sum(len(flags) for owner in self._running.values() for flags in owner.values())


class LocalErasureNotices:
    """:class:`ErasureNotices` for one worker (no Redis): the listeners are called at once."""

    def __init__(self) -> None:
        self._listeners: list[ErasureListener] = []

    def subscribe(self, listener: ErasureListener) -> None:
        self._listeners.append(listener)

    async def start(self) -> None:
        return None

    async def publish(self, tenant_id: str, user_id: str, conversation_id: str | None) -> None:
        for listener in self._listeners:
            try:
                await listener(tenant_id, user_id, conversation_id)
            except Exception:  # a listener's failure must not undo the erasure's answer
                log.exception("erasure_listener_failed")

    async def aclose(self) -> None:
        self._listeners.clear()
