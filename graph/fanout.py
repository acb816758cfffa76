"""Fan-out: call each listener in turn, log a failure and go on with the next.

The write service (its change listeners), the change detector (its remote listeners) and both
graph buses (their handlers) tell several listeners of one event. A listener that raises must
not stop the others, nor the caller: what it was told about has already happened (a write is
committed, a message received). So each failure is logged, with the traceback and the
listener's name, under the event name the caller gives, and the loop goes on.

The list is copied before the loop, so a listener that subscribes or leaves while being called
changes the next round, not this one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVarTuple

import structlog

__all__ = ["call_each", "listener_name"]

log = structlog.get_logger(__name__)

_Args = TypeVarTuple("_Args")


def listener_name(listener: object) -> str:
    """A readable name for a log line: the function's qualified name, else its ``repr``."""
    return str(getattr(listener, "__qualname__", repr(listener)))


async def call_each(
    listeners: Iterable[Callable[[*_Args], Awaitable[object]]],
    *args: *_Args,
    failure: str,
    **context: object,
) -> None:
    """``await listener(*args)`` for each listener, in order; one that raises is logged as
    ``failure`` (with ``context`` and the listener's name) and the next is called."""
    for listener in list(listeners):
        try:
            await listener(*args)
        except Exception:
            log.exception(failure, listener=listener_name(listener), **context)
