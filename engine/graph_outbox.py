"""A durable outbox for captured concepts whose graph write failed.

The retry (:mod:`engine.graph_retry`) keeps trying in the background; the outbox makes sure a
restart does not lose what was still waiting: each deferred capture is appended to a JSON-lines
file (``{"op": "add", ...}``), and ``{"op": "done", "id"}`` is appended when it lands. Opening
replays the file, compacts it to what is still pending, and those captures are retried.
Captures hold concept data only: the retry screens each capture with the ingress guard before
it is kept, so nothing the guard would refuse (PII included) is ever written here. Each entry
keeps the jurisdictions its turn was known to be about (country codes, or none when the turn
did not check), so a retried capture is resolved as the turn would have resolved it: never
created under a guessed jurisdiction (ADR 0023). Without a
path the outbox lives in memory (tests).

The file I/O (append + fsync, replay) runs in a worker thread: an fsync can take milliseconds
and must not stall every stream on the event loop.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.concepts import CapturedConcept

__all__ = ["Deferred", "GraphOutbox"]


@dataclass(frozen=True)
class Deferred:
    """One turn's capture waiting for the graph: its concepts and the jurisdictions the turn
    was known to be about (``None``: not checked)."""

    concepts: list[CapturedConcept]
    jurisdictions: tuple[str, ...] | None = None

    def record(self, entry_id: str) -> dict[str, object]:
        record: dict[str, object] = {
            "op": "add",
            "id": entry_id,
            "concepts": [c.model_dump() for c in self.concepts],
        }
        if self.jurisdictions is not None:
            record["jurisdictions"] = list(self.jurisdictions)
        return record

    @classmethod
    def of(cls, record: dict[str, Any]) -> Deferred:
        concepts, known = record.get("concepts"), record.get("jurisdictions")
        return cls(
            [CapturedConcept.model_validate(c) for c in concepts or []],
            tuple(str(j) for j in known) if isinstance(known, list) else None,
        )


class GraphOutbox:
    """Pending captures by entry id; durable when it has a path. Use :meth:`open` to replay."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._pending: dict[str, Deferred] = {}

    @classmethod
    async def open(cls, path: Path | None = None) -> GraphOutbox:
        """The outbox at ``path`` with what a previous run left pending (replayed, compacted)."""
        outbox = cls(path)
        if path is not None:
            await asyncio.to_thread(outbox._replay, path)
        return outbox

    def __len__(self) -> int:
        return len(self._pending)

    async def add(
        self, concepts: list[CapturedConcept], jurisdictions: tuple[str, ...] | None = None
    ) -> str:
        entry_id = str(uuid.uuid4())
        deferred = Deferred(concepts, jurisdictions)
        await asyncio.to_thread(self._commit, entry_id, deferred, deferred.record(entry_id))
        return entry_id

    async def done(self, entry_id: str) -> None:
        await asyncio.to_thread(self._commit, entry_id, None, {"op": "done", "id": entry_id})

    def pending(self) -> list[tuple[str, Deferred]]:
        with self._lock:
            return list(self._pending.items())

    def _commit(self, entry_id: str, deferred: Deferred | None, record: dict[str, object]) -> None:
        with self._lock:
            if deferred is not None:
                self._pending[entry_id] = deferred
            elif self._pending.pop(entry_id, None) is None:
                return  # already done: nothing to record
            self._append(record)

    def _append(self, record: dict[str, object]) -> None:
        if self._path is None:
            return
        self._path.parent.mkdir(parents=True, exist_ok=True)
        with self._path.open("a", encoding="utf-8") as file:
            file.write(json.dumps(record, ensure_ascii=False) + "\n")
            file.flush()
            os.fsync(file.fileno())

    def _replay(self, path: Path) -> None:
        if not path.exists():
            return
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line from a crash mid-write
            if record.get("op") == "add":
                self._pending[record["id"]] = Deferred.of(record)
            elif record.get("op") == "done":
                self._pending.pop(record["id"], None)
        compacted = path.with_suffix(".tmp")
        compacted.write_text(
            "".join(
                json.dumps(deferred.record(i), ensure_ascii=False) + "\n"
                for i, deferred in self._pending.items()
            ),
            encoding="utf-8",
        )
        compacted.replace(path)
