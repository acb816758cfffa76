"""What crosses the boundary to an LLM provider: the request and the streamed chunk union.

Lives in ``egress/`` because egress owns that boundary: a provider only ever receives an
:class:`LlmRequest` that has passed :class:`egress.client.EgressClient`.

The stream is a tagged union (docs/architecture.md, "One chat turn"):
``Text(delta) | Tool(name, args) | Error(error) | Done(usage)``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ChatMessage",
    "Done",
    "Error",
    "LlmProvider",
    "LlmRequest",
    "Role",
    "StreamChunk",
    "Text",
    "Tool",
    "ToolSpec",
    "Usage",
]

Role = Literal["system", "user", "assistant"]


class ChatMessage(BaseModel):
    """One prompt message. ``sanitised`` is its provenance: True only when whoever produced the
    text vouches that it holds no unsanitised user input — :meth:`egress.sanitiser.SanitisedText.
    as_message` (the sanitiser's output) or a prompt built only from fixed wording and
    PII-free graph text. :class:`egress.client.EgressClient` scans every message not marked."""

    model_config = ConfigDict(frozen=True)

    role: Role
    content: str
    sanitised: bool = False


class ToolSpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: dict[str, Any]


class LlmRequest(BaseModel):
    """One outbound call. ``task`` names why it is made (``main_chat``, ...) for audit.

    ``tool_choice``: ``None`` leaves it to the provider's setting; ``"auto"``, ``"required"``
    or ``"none"``; any other value names the one tool the model must call.
    """

    model_config = ConfigDict(frozen=True)

    provider: str
    model: str
    task: str = "main_chat"
    messages: list[ChatMessage]
    tools: list[ToolSpec] = Field(default_factory=list)
    max_output_tokens: int = 1024
    tool_choice: str | None = None


@dataclass(frozen=True, slots=True)
class Text:
    delta: str
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    args: Any  # parsed JSON if it parsed, else the raw string; validated by the consumer
    type: Literal["tool"] = "tool"


@dataclass(frozen=True, slots=True)
class Error:
    error: str
    code: str = "provider_error"
    type: Literal["error"] = "error"


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Done:
    """The end of a stream. ``answer_only``: the provider ran without the request's tools
    (it does not support them, or the server refused them), so no ``Tool`` could come."""

    usage: Usage = field(default_factory=Usage)
    answer_only: bool = False
    type: Literal["done"] = "done"


StreamChunk = Text | Tool | Error | Done


class LlmProvider(Protocol):
    """A provider client. ``stream`` never raises for provider failures: it yields ``Error``."""

    name: str

    def stream(self, request: LlmRequest) -> AsyncGenerator[StreamChunk, None]: ...

    async def aclose(self) -> None: ...
