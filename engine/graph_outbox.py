"""A durable outbox for captured concepts whose graph write failed.

The retry (:mod:`engine.graph_retry`) keeps trying in the background; the outbox makes sure a
restart does not lose what was still waiting: each deferred capture is appended to a JSON-lines
file (``{"op": "add", ...}``), and ``{"op": "done", "id"}`` is appended when it lands. On start
the file is replayed, compacted to what is still pending, and those captures are retried.
Captures hold concept data only: the retry screens each capture with the ingress guard before
it is kept, so nothing the guard would refuse (PII included) is ever written here. Without a
path the outbox lives in memory (tests).
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from pathlib import Path

from engine.concepts import CapturedConcept


class GraphOutbox:
    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._pending: dict[str, list[CapturedConcept]] = {}
        if path is not None and path.exists():
            self._replay(path)

    def __len__(self) -> int:
        return len(self._pending)

    def add(self, concepts: list[CapturedConcept]) -> str:
        entry_id = str(uuid.uuid4())
        with self._lock:
            self._pending[entry_id] = concepts
            self._append({"op": "add", "id": entry_id,
                          "concepts": [c.model_dump() for c in concepts]})  # fmt: skip
        return entry_id

    def done(self, entry_id: str) -> None:
        with self._lock:
            if self._pending.pop(entry_id, None) is not None:
                self._append({"op": "done", "id": entry_id})

    def pending(self) -> list[tuple[str, list[CapturedConcept]]]:
        with self._lock:
            return list(self._pending.items())

    def _append(self, record: dict[str, object]) -> None:
        if self._path is None:
            return
        self._path.parent.mkdir(parents=True, exist_ok=True)
        with self._path.open("a", encoding="utf-8") as file:
            file.write(json.dumps(record, ensure_ascii=False) + "\n")
            file.flush()
            os.fsync(file.fileno())

    def _replay(self, path: Path) -> None:
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line from a crash mid-write
            if record.get("op") == "add":
                concepts = [CapturedConcept.model_validate(c) for c in record["concepts"]]
                self._pending[record["id"]] = concepts
            elif record.get("op") == "done":
                self._pending.pop(record["id"], None)
        compacted = path.with_suffix(".tmp")
        compacted.write_text(
            "".join(
                json.dumps({"op": "add", "id": i, "concepts": [c.model_dump() for c in cs]},
                           ensure_ascii=False) + "\n"
                for i, cs in self._pending.items()
            ),
            encoding="utf-8",
        )  # fmt: skip
        compacted.replace(path)
