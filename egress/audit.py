"""One audit record per outbound LLM call — who, what for, where, under which mode, and how
many values of each entity type were replaced. Never the payload."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AuditSink",
    "EgressAuditRecord",
    "InMemoryAuditSink",
]


class EgressAuditRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenant_id: str
    user_id: str
    conversation_id: str
    task: str
    provider: str
    model: str
    requested_mode: str | None
    effective_mode: str
    counts: dict[str, int] = Field(default_factory=dict)
    violations: list[str] = Field(default_factory=list)
    blocked: bool = False
    reason: str | None = None
    at: datetime = Field(default_factory=lambda: datetime.now(UTC))


class AuditSink(Protocol):
    async def record(self, entry: EgressAuditRecord) -> None: ...


class InMemoryAuditSink:
    """Keeps records in a list; for tests and the embedded default."""

    def __init__(self) -> None:
        self.records: list[EgressAuditRecord] = []

    async def record(self, entry: EgressAuditRecord) -> None:
        self.records.append(entry)
