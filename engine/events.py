"""Events of a chat turn, as the engine yields them; ``api/`` frames them as SSE.

Each event's ``data()`` is the JSON payload of its SSE event and carries a ``type`` field
equal to the SSE event name (docs/architecture.md, "Contracts").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from conversations.models import MessageStatus

__all__ = [
    "ConceptsEvent",
    "DoneEvent",
    "ErrorEvent",
    "MetadataEvent",
    "ProgressEvent",
    "TextEvent",
    "TurnEvent",
    "TurnWarning",
    "WarningEvent",
]


@dataclass(frozen=True)
class TurnWarning:
    code: str
    message: str


@dataclass(frozen=True)
class MetadataEvent:
    conversation_id: str
    jurisdictions: list[str]
    evidence_ids: list[str]
    # ``{from, to, origin}``: the days the evidence was in force in (ADR 0032)
    as_at: dict[str, str] | None = None
    # Material changes of the conversation's active nodes since its last turn (ADR 0035):
    # ``{nodeId, changeId, description, at}``, oldest first; empty when nothing changed.
    changed: list[dict[str, str]] = field(default_factory=list)
    type: Literal["metadata"] = "metadata"

    def data(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "conversationId": self.conversation_id,
            "jurisdictions": self.jurisdictions,
            "evidenceNodeIds": self.evidence_ids,
            "asAt": self.as_at,
            "changed": self.changed,
        }


@dataclass(frozen=True)
class TextEvent:
    delta: str
    type: Literal["text"] = "text"

    def data(self) -> dict[str, Any]:
        return {"type": self.type, "delta": self.delta}


@dataclass(frozen=True)
class ConceptsEvent:
    concepts: list[dict[str, Any]]
    type: Literal["concepts"] = "concepts"

    def data(self) -> dict[str, Any]:
        return {"type": self.type, "concepts": self.concepts}


@dataclass(frozen=True)
class WarningEvent:
    warning: TurnWarning
    type: Literal["warning"] = "warning"

    def data(self) -> dict[str, Any]:
        return {"type": self.type, **asdict(self.warning)}


@dataclass(frozen=True)
class ErrorEvent:
    code: str
    message: str
    type: Literal["error"] = "error"

    def data(self) -> dict[str, Any]:
        return {"type": self.type, "code": self.code, "message": self.message}


@dataclass(frozen=True)
class DoneEvent:
    conversation_id: str
    referenced_nodes: list[str]
    usage: dict[str, int]
    warnings: list[TurnWarning] = field(default_factory=list)
    status: MessageStatus = "complete"
    citations: list[dict[str, Any]] = field(default_factory=list)
    confidence: float = 0.0
    refused: str | None = None
    capture_pending: bool = False  # the capture is still being written (not lost)
    scenario: dict[str, Any] | None = None  # a what-if's computation (issue 28), when asked
    type: Literal["done"] = "done"

    def data(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "conversationId": self.conversation_id,
            "referencedNodes": self.referenced_nodes,
            "citations": self.citations,
            "confidence": self.confidence,
            "refused": self.refused,
            "usage": self.usage,
            "warnings": [asdict(w) for w in self.warnings],
            "status": self.status,
            "capturePending": self.capture_pending,
        } | ({"scenario": self.scenario} if self.scenario is not None else {})


@dataclass(frozen=True)
class ProgressEvent:
    """Where the turn is while no text arrives (issue 26): ``retrieval`` (``hits``: evidence
    found), ``prompt_sent`` (the prompt went to the model's route), ``waiting_for_model``,
    ``capture`` (the answer ended; the captured concepts are being resolved)."""

    stage: str
    detail: dict[str, Any] = field(default_factory=dict)
    type: Literal["progress"] = "progress"

    def data(self) -> dict[str, Any]:
        return {"type": self.type, "stage": self.stage, **self.detail}


TurnEvent = (
    MetadataEvent
    | ProgressEvent
    | TextEvent
    | ConceptsEvent
    | WarningEvent
    | ErrorEvent
    | DoneEvent
)
