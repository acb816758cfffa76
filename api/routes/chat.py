"""``POST /api/chat``: one chat turn as Server-Sent Events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette import EventSourceResponse, ServerSentEvent

from api.auth import Principal, authenticate
from api.sse import heartbeat, to_sse
from engine.chat import TurnRequest
from engine.events import TurnEvent

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
- `done` `{conversationId, referencedNodes, usage, warnings, status}` — always last

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
    body: ChatRequest, request: Request, principal: Annotated[Principal, Depends(authenticate)]
) -> EventSourceResponse:
    container = request.app.state.container
    turn = container.engine.run_turn(
        TurnRequest(
            tenant_id=principal.tenant_id,
            user_id=principal.user_id,
            message=body.message,
            conversation_id=body.conversationId,
            egress_mode=body.egressMode,
        )
    )
    # Pull the first event here so that bad input and unknown ids become JSON 4xx responses.
    first = await anext(turn)
    return EventSourceResponse(
        _frames(first, turn),
        ping=container.settings.heartbeat_seconds,
        ping_message_factory=heartbeat,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _frames(
    first: TurnEvent, rest: AsyncIterator[TurnEvent]
) -> AsyncIterator[ServerSentEvent]:
    yield to_sse(first)
    async for event in rest:
        yield to_sse(event)
