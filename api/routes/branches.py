"""Edit and regenerate as branches (issue 27, ADR 0062): two more ways to run a chat turn.

``POST /api/conversations/{id}/messages/{mid}/edit`` asks an edited question in place of the
question ``mid``; ``POST .../messages/{mid}/regenerate`` asks the question of the answer ``mid``
again. Either starts a new branch beside that message (its earlier branch is kept) and streams
the turn exactly like ``POST /api/chat``; the new branch becomes the active one. The prompt
holds that branch's earlier messages only, and its context (active concepts, jurisdictions,
date) is that branch's. Admission, quotas and rate limits apply as to ``/api/chat``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Path
from pydantic import Field, field_validator
from sse_starlette import EventSourceResponse

from api.auth import Principal, authenticate
from api.deps import ContainerDep
from api.errors import ErrorBody
from api.routes.chat import (
    OVERLOADED_DESCRIPTION,
    SSE_DESCRIPTION,
    TurnOptions,
    no_control_characters,
    stream_turn,
)
from engine.turn import TurnRequest

__all__ = ["EditRequest", "edit_message", "regenerate_answer", "router"]

router = APIRouter(tags=["chat"])
_Id = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9-]+$")]
_Caller = Annotated[Principal, Depends(authenticate)]

_REFUSALS = """Refused before the stream starts, as ordinary JSON errors: 404 `not_found` for a
conversation or message the caller cannot see (another user's, another tenant's, unknown, or a
message of another conversation); 403 `conversation_read_only` for a conversation shared with
the caller; 422 `invalid_input` when the message is not of the right kind (an edit of an
answer, a regeneration of a question); 429 `quota_exceeded` past the tenant's hard quota
(nothing sent to the model; an edit's question is still stored on its new branch with the status
`quota_exceeded` and no answer, a regeneration stores nothing)."""

_RESPONSES: dict[int | str, dict[str, object]] = {
    200: {"description": SSE_DESCRIPTION, "content": {"text/event-stream": {}}},
    503: {"model": ErrorBody, "description": OVERLOADED_DESCRIPTION},
}


class EditRequest(TurnOptions):
    message: str = Field(
        min_length=1,
        description="The edited question (at most REGINTEL_MAX_MESSAGE_CHARS characters).",
    )

    @field_validator("message")
    @classmethod
    def _no_control_characters(cls, value: str) -> str:
        return no_control_characters(value)


@router.post(
    "/api/conversations/{conversation_id}/messages/{message_id}/edit",
    summary="Edit a question: a new branch from there, streamed like /api/chat (SSE)",
    description="Asks `message` in place of the question `message_id`: the edited question and "
    "its answer start a branch beside the original (kept, reachable with `PUT "
    "/api/conversations/{id}/branch`), which becomes the active branch. The prompt holds the "
    "messages before the edited question only. " + _REFUSALS,
    response_class=EventSourceResponse,
    responses=_RESPONSES,
)
async def edit_message(
    conversation_id: _Id,
    message_id: _Id,
    body: EditRequest,
    container: ContainerDep,
    principal: _Caller,
) -> EventSourceResponse:
    prepared = await container.engine.prepare(
        TurnRequest(
            tenant_id=principal.tenant_id,
            user_id=principal.user_id,
            message=body.message,
            conversation_id=conversation_id,
            egress_mode=body.egress_mode(),
            as_at=body.asAt,
            edit_of=message_id,
        )
    )
    return stream_turn(container, prepared)


@router.post(
    "/api/conversations/{conversation_id}/messages/{message_id}/regenerate",
    summary="Regenerate an answer: a new answer beside it, streamed like /api/chat (SSE)",
    description="Asks the question of the answer `message_id` again: the new answer is stored "
    "beside the earlier one (both kept; the branch switcher shows them as versions) and "
    "becomes the active branch. The body is optional. " + _REFUSALS,
    response_class=EventSourceResponse,
    responses=_RESPONSES,
)
async def regenerate_answer(
    conversation_id: _Id,
    message_id: _Id,
    container: ContainerDep,
    principal: _Caller,
    body: Annotated[TurnOptions | None, Body()] = None,
) -> EventSourceResponse:
    options = body or TurnOptions()
    prepared = await container.engine.prepare(
        TurnRequest(
            tenant_id=principal.tenant_id,
            user_id=principal.user_id,
            message="",
            conversation_id=conversation_id,
            egress_mode=options.egress_mode(),
            as_at=options.asAt,
            regenerate_of=message_id,
        )
    )
    return stream_turn(container, prepared)
