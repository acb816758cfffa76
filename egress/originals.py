"""Where ``report-only`` keeps original (unsanitised) requests for debugging (D-041).

Off by default: the composition root builds a sink only when
``REGINTEL_EGRESS_KEEP_ORIGINAL_REPORT_ONLY`` is true. The original holds the user's text as
typed — PII included — so it goes to a file of its own under the data folder, never to the
audit table, and only in ``report-only`` (``enforce`` needs no debugging of what it blocked;
``off`` sends the original anyway).
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from egress.wire import LlmRequest

if TYPE_CHECKING:
    from egress.client import EgressContext

__all__ = ["InMemoryOriginalRequestSink", "JsonlOriginalRequestSink", "OriginalRequestSink"]


class OriginalRequestSink(Protocol):
    async def keep(self, request: LlmRequest, ctx: EgressContext) -> None: ...


class InMemoryOriginalRequestSink:
    def __init__(self) -> None:
        self.kept: list[tuple[LlmRequest, EgressContext]] = []

    async def keep(self, request: LlmRequest, ctx: EgressContext) -> None:
        self.kept.append((request, ctx))


class JsonlOriginalRequestSink:
    """One JSON line per kept request, appended to ``path`` (created with mode 0600)."""

    def __init__(self, path: Path) -> None:
        self._path = path

    async def keep(self, request: LlmRequest, ctx: EgressContext) -> None:
        line = json.dumps(_entry(request, ctx)) + "\n"
        await asyncio.to_thread(self._append, line)

    def _append(self, line: str) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        self._path.touch(mode=0o600, exist_ok=True)
        with self._path.open("a", encoding="utf-8") as out:
            out.write(line)


def _entry(request: LlmRequest, ctx: EgressContext) -> dict[str, Any]:
    return {
        "at": datetime.now(UTC).isoformat(),
        "tenant_id": ctx.tenant_id,
        "user_id": ctx.user_id,
        "conversation_id": ctx.conversation_id,
        "request": request.model_dump(mode="json"),
    }
