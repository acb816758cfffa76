"""``POST /api/chat``: one chat turn as Server-Sent Events."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import Annotated, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette import EventSourceResponse, ServerSentEvent

from api.auth import Principal, authenticate
from api.deps import ContainerDep
from api.sse import heartbeat, to_sse
from egress.policy import EgressMode
from engine.chat import TurnRequest
from engine.events import TurnEvent

__all__ = [
    "SSE_DESCRIPTION",
    "ChatRequest",
    "chat",
    "router",
]

router = APIRouter(tags=["chat"])

SSE_DESCRIPTION = """A stream of Server-Sent Events. Each event's `data` is JSON whose `type`
equals the event name:

- `metadata` `{conversationId, jurisdictions, evidenceNodeIds}` — first, before any text
- `text` `{delta}` — answer text as it is generated
- `concepts` `{concepts: [{id, prefLabel, status, created, matchedBy, alignedWith}]}` —
  the concepts the question named, resolved in the graph
- `warning` `{code, message}` — the turn goes on (malformed tool payload, rejected graph write,
  a graph write still pending, a citation of an id the graph does not have)
- `error` `{code, message}` — the provider failed or egress blocked the call; `done` follows
- `done` `{conversationId, referencedNodes, citations, confidence, refused, usage, warnings,
  status}` — always last. `citations`: one `{id, heading, instrument, url}` per node the answer
  cites that was evidence of this turn (`url` is the EUR-Lex deep link of a provision);
  citations of anything else are dropped with a `warning`. `confidence` (0–1) = the share of
  the question's terms the best evidence covers × the share of answer sentences with a valid
  citation; 0 when the turn refuses. `refused`: null, or why the graph cannot answer
  (`no_evidence`, `out_of_coverage_jurisdiction`, `unknown_instrument`); the answer then says
  "The rules graph has no evidence on …" and cites nothing.

Comment frames (`: heartbeat`) are sent while the stream waits. Errors found before the stream
starts (bad input, unknown conversation) are ordinary JSON error responses."""


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    message: str = Field(
        min_length=1,
        description="The user's question (at most REGINTEL_MAX_MESSAGE_CHARS characters).",
    )
    conversationId: str | None = Field(
        default=None,
        max_length=64,
        pattern=r"^[A-Za-z0-9-]+$",
        description="Continue this conversation; omit to start a new one.",
    )
    egressMode: Literal["enforce", "report-only", "off"] | None = Field(
        default=None,
        description="Per-call egress override; it can never loosen the tenant's policy.",
    )


@router.post(
    "/api/chat",
    summary="Run one chat turn (SSE)",
    response_class=EventSourceResponse,
    responses={200: {"description": SSE_DESCRIPTION, "content": {"text/event-stream": {}}}},
)
async def chat(
    body: ChatRequest,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
) -> EventSourceResponse:
    # prepare() raises before any event: bad input, a refused mode and unknown ids become
    # ordinary JSON 4xx responses through the error handlers.
    prepared = await container.engine.prepare(
        TurnRequest(
            tenant_id=principal.tenant_id,
            user_id=principal.user_id,
            message=body.message,
            conversation_id=body.conversationId,
            egress_mode=EgressMode(body.egressMode) if body.egressMode else None,
        )
    )
    return EventSourceResponse(
        _frames(container.engine.stream(prepared)),
        ping=container.settings.heartbeat_seconds,
        ping_message_factory=heartbeat,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _frames(events: AsyncGenerator[TurnEvent, None]) -> AsyncIterator[ServerSentEvent]:
    # aclosing: a client that leaves closes the turn's stream now (its record saves the
    # partial answer at once), not whenever the garbage collector gets to it.
    async with aclosing(events) as turn:
        async for event in turn:
            yield to_sse(event)
