"""Whether an adapter may still be used: open until ``aclose()``, closed for good after.

Adapters connect lazily (the SQLite file, the Ladybug database, the PostgreSQL pool are opened
on first use), so without a record of the close a call after ``aclose()`` would silently open
them again: a connection nobody closes, a file lock held after shutdown. Like httpx's client
(its ``ClientState`` and "Cannot send a request, as the client has been closed"), each adapter
keeps a :class:`Lifetime` and checks it where it would connect; after the close every call
raises :class:`errors.AdapterClosed`, and ``aclose()`` itself stays idempotent.
"""

from __future__ import annotations

import enum

from errors import AdapterClosed

__all__ = ["AdapterState", "Lifetime"]


class AdapterState(enum.Enum):
    OPEN = "open"  # usable (connections may not be made yet: they are made on first use)
    CLOSED = "closed"  # aclose() was called: never used or opened again


_OPEN, _CLOSED = AdapterState.OPEN, AdapterState.CLOSED  # read once: checked on every call


class Lifetime:
    """The state of one adapter, named in the error (``"the SQLite conversation store"``)."""

    __slots__ = ("_name", "state")

    def __init__(self, name: str) -> None:
        self._name = name
        self.state = _OPEN

    @property
    def closed(self) -> bool:
        return self.state is _CLOSED

    def check(self) -> None:
        """Raise :class:`errors.AdapterClosed` once the adapter was closed."""
        if self.state is _CLOSED:
            raise AdapterClosed(
                f"{self._name} is closed: it cannot be used or reopened after aclose()"
            )

    def close(self) -> bool:
        """Mark the adapter closed; ``False`` when it was already (a second ``aclose()``)."""
        was_open = self.state is _OPEN
        self.state = _CLOSED
        return was_open
