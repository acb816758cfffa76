"""How many live graph streams one principal may hold open in one worker.

A graph stream is cheap for the server while it idles, but not free: a subscription in the
change detector, a task, a socket, and a catch-up patch on every connect. One member once held
400 of them (issue 30). :class:`StreamQuota` counts open streams per ``(tenant, user)``; past
``per_principal`` a new one is refused with 429 ``rate_limited`` before anything is subscribed.
A :class:`StreamSlot` is released when its stream ends, however it ends (idempotent: both the
stream's ``finally`` and the response's background task release it, whichever runs).
"""

from __future__ import annotations

from collections import Counter

from errors import RateLimited

__all__ = ["StreamQuota", "StreamSlot"]


class StreamSlot:
    """One open stream of a principal; :meth:`release` it when the stream ends."""

    __slots__ = ("_key", "_quota", "_released")

    def __init__(self, quota: StreamQuota, key: tuple[str, str]) -> None:
        self._quota, self._key, self._released = quota, key, False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._quota._release(self._key)

    async def arelease(self) -> None:
        """:meth:`release`, as a response's background task."""
        self.release()


class StreamQuota:
    """At most ``per_principal`` open streams per ``(tenant, user)`` in this worker."""

    def __init__(self, per_principal: int) -> None:
        self.per_principal = per_principal
        self._open: Counter[tuple[str, str]] = Counter()

    def open(self, tenant_id: str, user_id: str) -> StreamSlot:
        key = (tenant_id, user_id)
        if self._open[key] >= self.per_principal:
            raise RateLimited(
                f"at most {self.per_principal} graph streams open at once per user", retry_after=5
            )
        self._open[key] += 1
        return StreamSlot(self, key)

    def held(self, tenant_id: str, user_id: str) -> int:
        return self._open[(tenant_id, user_id)]

    def _release(self, key: tuple[str, str]) -> None:
        self._open[key] -= 1
        if self._open[key] <= 0:
            del self._open[key]
