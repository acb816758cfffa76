"""The audit trail of review actions (merge, reject): one JSON line per action, in a file.

ADR 0034 says why a file under the data folder and not the graph: a ``ReviewAction`` node would
be shared with every tenant's snapshot and patches, and a merge or rejection of a quarantined
concept names an id that tenants must never see (ADR 0020). The file holds concept ids, what
was moved or removed, when, and who acted (``cli``, or ``api:<user id>`` of the operator's
key); never chat text. Every action is also a structured log line (``review_action``), which
is what a deployment of several machines aggregates.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Final, Literal

__all__ = ["REVIEW_AUDIT_FILE", "ReviewActionName", "ReviewAudit", "ReviewRecord"]

REVIEW_AUDIT_FILE: Final = "review-audit.jsonl"

ReviewActionName = Literal["merge", "reject"]


@dataclass(frozen=True)
class ReviewRecord:
    """One review action as audited."""

    action: ReviewActionName
    concept: str
    at: str
    by: str
    into: str | None = None  # the surviving concept of a merge
    previous_status: str = ""  # the concept's status before the action
    labels: tuple[str, ...] = ()  # label ids moved (merge) or removed (reject)
    edges: int = 0  # edges moved onto the survivor (merge)
    removed: tuple[str, ...] = field(default_factory=tuple)  # node ids deleted (reject)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, line: str) -> ReviewRecord:
        data = json.loads(line)
        data["labels"] = tuple(data.get("labels", ()))
        data["removed"] = tuple(data.get("removed", ()))
        return cls(**data)


class ReviewAudit:
    """Appends review records to ``path`` (JSON lines) and lists them back."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _append(self, line: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")

    async def record(self, record: ReviewRecord) -> None:
        await asyncio.to_thread(self._append, record.to_json())

    def records(self) -> list[ReviewRecord]:
        """Every record, oldest first (none when the file does not exist yet)."""
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return [ReviewRecord.from_json(line) for line in lines if line.strip()]
