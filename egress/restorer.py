"""Turns placeholders back into values in a stream of text deltas.

A placeholder may arrive split across deltas (``"[PER"`` then ``"SON_1] said"``), so a tail
that could still become a placeholder is held back until the next delta decides it, and
released by :meth:`PlaceholderRestorer.flush` when the stream ends. Held text is bounded by the
longest known placeholder, so the stream never stalls behind an unrelated ``[``.
"""

from __future__ import annotations

import re

__all__ = [
    "PlaceholderRestorer",
]


class PlaceholderRestorer:
    """Restores ``[TYPE_n]`` placeholders from ``mapping`` in streamed text."""

    def __init__(self, mapping: dict[str, str]) -> None:
        self._mapping = dict(mapping)
        self._pattern = (
            re.compile("|".join(re.escape(p) for p in sorted(mapping, key=len, reverse=True)))
            if mapping
            else None
        )
        self._max_len = max((len(p) for p in mapping), default=0)
        self._held = ""

    def feed(self, delta: str) -> str:
        """Text that can be shown now; a possible placeholder prefix is held back."""
        if self._pattern is None:
            return delta
        text = self._held + delta
        self._held = ""
        cut = self._hold_from(text)
        ready, self._held = text[:cut], text[cut:]
        return self._pattern.sub(lambda m: self._mapping[m.group()], ready)

    def flush(self) -> str:
        """Whatever is still held, restored; call once when the stream ends."""
        held, self._held = self._held, ""
        if self._pattern is None:
            return held
        return self._pattern.sub(lambda m: self._mapping[m.group()], held)

    def _hold_from(self, text: str) -> int:
        start = text.rfind("[", max(0, len(text) - self._max_len + 1))
        if start == -1:
            return len(text)
        tail = text[start:]
        if "]" in tail or not any(p.startswith(tail) for p in self._mapping):
            return len(text)
        return start
