"""What the stand-in model answers: one :class:`Reply` per request, and its pacing.

A reply is protocol-neutral — text deltas, tool calls, how the stream ends — and each protocol
module (:mod:`.responses`, :mod:`.chat_completions`, :mod:`.messages`) turns it into that
protocol's frames. A :class:`Frame` marked ``token`` carries model output (a text or a
tool-argument delta): pacing waits the time to first token before the first of them and
``1 / tokens_per_second`` before each later one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Frame", "Pacing", "Received", "Reply", "Terminal", "ToolCall"]

Terminal = Literal["completed", "failed", "incomplete", "error", "none"]


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str  # the JSON text as the model wrote it; need not be valid JSON
    chunk_size: int = 16  # size of the argument delta pieces


@dataclass(frozen=True)
class Pacing:
    """How fast a reply streams: ``first_token`` seconds, then ``tokens_per_second``."""

    first_token: float = 0.0
    tokens_per_second: float | None = None  # None: as fast as the loop goes


@dataclass(frozen=True)
class Reply:
    """What the stand-in answers to one request, whatever the protocol.

    ``terminal`` says how a stream ends: ``completed``, ``failed`` (the protocol's failure
    event after the output so far), ``incomplete`` (stopped at the token limit), ``error``
    (the protocol's error event) or ``none`` (the body just ends). ``status`` other than 200
    answers with the protocol's JSON error body and no stream. ``cut_after`` streams only that
    many frames (``cut_after_tokens``: that many token frames, whatever the protocol), then
    drops the connection (``cut="drop"``) or ends the body (``"end"``).
    ``reject_tools`` answers 400 when the request carries ``tools`` or ``tool_choice``, as
    some OpenAI-compatible servers do. ``reasoning`` (Responses only) emits a reasoning item
    before the output.
    """

    text: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    terminal: Terminal = "completed"
    usage: tuple[int, int] = (11, 7)  # input tokens, output tokens
    status: int = 200
    error_code: str | None = None
    error_message: str = "The server had an error while processing your request."
    echo_key_in_error: bool = False  # the bearer token in the error body, as OpenAI's 401 does
    headers: dict[str, str] = field(default_factory=dict)
    delay_before_headers: float = 0.0
    pacing: Pacing | None = None  # None: the server's default pacing
    cut_after: int | None = None
    cut_after_tokens: int | None = None
    cut: Literal["drop", "end"] = "drop"
    reject_tools: bool = False
    reasoning: bool = False


@dataclass(frozen=True, slots=True)
class Frame:
    """One SSE frame: ``event:`` line (or none) and the ``data:`` text."""

    data: str
    event: str | None = None
    token: bool = False

    def encode(self) -> bytes:
        head = f"event: {self.event}\n" if self.event else ""
        return f"{head}data: {self.data}\n\n".encode()


@dataclass
class Received:
    """One request as the stand-in received it."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    peer: tuple[str, int] | None  # the client's address: one per TCP connection
    disconnected: bool = False  # the client closed the connection before the reply ended
