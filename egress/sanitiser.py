"""Pseudonymisation: findings become placeholders that are stable within one conversation.

``[PERSON_1]`` always stands for the same value in one ``(tenant_id, conversation_id)``; the
mapping lives in a :class:`PseudonymVault` (in memory here; the conversation store implements
the same port over SQLite/Postgres). Values never leave the tenant: only the placeholders go
upstream, and :class:`egress.restorer.PlaceholderRestorer` turns them back for the same user.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from egress.pii import PiiDetector
from egress.wire import ChatMessage, Role

__all__ = [
    "PLACEHOLDER",
    "InMemoryPseudonymVault",
    "PseudonymVault",
    "SanitisedText",
    "Sanitiser",
]

PLACEHOLDER = re.compile(r"\[([A-Z][A-Z0-9_]*?)_(\d+)\]")


class PseudonymVault(Protocol):
    """Maps values to placeholders per tenant and conversation."""

    async def get_or_assign(
        self, tenant_id: str, conversation_id: str, entity_type: str, value: str
    ) -> str:
        """The placeholder for ``value``, assigning the next free ``[TYPE_n]`` if new."""
        ...

    async def lookup(self, tenant_id: str, conversation_id: str) -> dict[str, str]:
        """Every placeholder of the conversation mapped to its value."""
        ...


class InMemoryPseudonymVault:
    """A :class:`PseudonymVault` in a dict; for tests and the embedded default."""

    def __init__(self) -> None:
        self._by_value: dict[tuple[str, str], dict[tuple[str, str], str]] = {}
        self._lock = asyncio.Lock()

    async def get_or_assign(
        self, tenant_id: str, conversation_id: str, entity_type: str, value: str
    ) -> str:
        async with self._lock:
            table = self._by_value.setdefault((tenant_id, conversation_id), {})
            key = (entity_type, value)
            if key not in table:
                n = 1 + sum(1 for t, _ in table if t == entity_type)
                table[key] = f"[{entity_type}_{n}]"
            return table[key]

    async def lookup(self, tenant_id: str, conversation_id: str) -> dict[str, str]:
        table = self._by_value.get((tenant_id, conversation_id), {})
        return {placeholder: value for (_, value), placeholder in table.items()}


@dataclass(frozen=True, slots=True)
class SanitisedText:
    """Text with findings replaced; ``counts`` by entity type (never the values)."""

    text: str
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.counts)

    def as_message(self, role: Role) -> ChatMessage:
        """This text as a prompt message marked sanitised (egress will not scan it again)."""
        return ChatMessage(role=role, content=self.text, sanitised=True)


#: Detection is pure Python and holds the GIL: a worker thread adds a hop (and its wake-ups)
#: but no parallelism. A text up to this long (about 2 ms to scan) is scanned on the event
#: loop; a longer one in a thread, where the interpreter's switch interval still lets the loop
#: serve other streams between its slices (ADR 0038).
_INLINE_SCAN_CHARS = 1000


class Sanitiser:
    """Detects PII and replaces it with conversation-stable placeholders."""

    def __init__(self, detector: PiiDetector, vault: PseudonymVault) -> None:
        self._detector = detector
        self._vault = vault

    @property
    def vault(self) -> PseudonymVault:
        return self._vault

    async def sanitise(self, tenant_id: str, conversation_id: str, text: str) -> SanitisedText:
        """Replace every finding in ``text``; placeholders already in it are left alone."""
        if len(text) <= _INLINE_SCAN_CHARS:
            findings = self._detector.detect(text)
        else:
            findings = await asyncio.to_thread(self._detector.detect, text)
        counts: Counter[str] = Counter()
        parts: list[str] = []
        cursor = 0
        for finding in findings:
            value = text[finding.start : finding.end]
            if PLACEHOLDER.fullmatch(value):
                continue
            placeholder = await self._vault.get_or_assign(
                tenant_id, conversation_id, finding.entity_type, value
            )
            parts.append(text[cursor : finding.start])
            parts.append(placeholder)
            cursor = finding.end
            counts[finding.entity_type] += 1
        parts.append(text[cursor:])
        return SanitisedText("".join(parts), dict(counts))
