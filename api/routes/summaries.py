"""A conversation's compaction summaries (issue 27, ADR 0065): list them, roll one back.

A turn whose conversation does not fit the token budget (``REGINTEL_CONVERSATION_TOKEN_BUDGET``)
replaces the older messages of its branch with a summary, stored with the messages it replaced.
Owner-only: anyone else (a reader of a shared conversation included) gets 404.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path
from pydantic import BaseModel, Field

from api.auth import Principal, authenticate
from api.deps import ContainerDep
from conversations.models import StoredSummary

__all__ = [
    "PinsOut",
    "SummaryOut",
    "list_pins",
    "list_summaries",
    "pin_message",
    "roll_back_summary",
    "router",
    "unpin_message",
]

router = APIRouter(tags=["conversations"])
_Id = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9-]+$")]


class SummaryOut(BaseModel):
    id: str
    firstMessageId: str = Field(description="The first message the summary replaced.")
    lastMessageId: str = Field(
        description="The last message it replaced: the summary belongs to the branch through it."
    )
    messageCount: int = Field(description="How many messages of the branch it replaced.")
    summary: str = Field(
        description="The summary as the prompt held it: one quoted line per question (Q) and "
        "per answer's first sentence (A)."
    )
    citedNodeIds: list[str] = Field(description="The provisions the replaced answers cited.")
    createdAt: datetime
    rolledBackAt: datetime | None = Field(
        default=None,
        description="Set once rolled back: that range is never summarised again, and its "
        "messages go back into the prompt as they fit in the budget.",
    )
    modelSummary: str | None = Field(
        default=None,
        description="A configured model's summary of the same messages, written in the "
        "background after the turn that stored this one (sanitised), or carried from the "
        "summary this one continues when that turn made no call (modelPendingLines > 0); "
        "later prompts use it instead of the extractive lines it covers. null: the extractive "
        "summary only (offline mode, not written yet, or the call failed).",
    )
    modelSummaryBy: str | None = Field(
        default=None, description='The route that wrote modelSummary, "provider:model".'
    )
    modelPendingLines: int = Field(
        default=0,
        description="How many of the newest lines of summary modelSummary does not cover "
        "(summary calls are throttled: REGINTEL_CONVERSATION_SUMMARY_MIN_NEW_TOKENS); prompts "
        "send those lines after it. 0: it covers the whole range.",
    )


def _out(summary: StoredSummary) -> SummaryOut:
    return SummaryOut(
        id=summary.id,
        firstMessageId=summary.first_message_id,
        lastMessageId=summary.last_message_id,
        messageCount=summary.message_count,
        summary=summary.summary,
        citedNodeIds=summary.cited_node_ids,
        createdAt=summary.created_at,
        rolledBackAt=summary.rolled_back_at,
        modelSummary=summary.model_summary,
        modelSummaryBy=summary.model_summary_by,
        modelPendingLines=summary.model_pending_lines,
    )


@router.get(
    "/api/conversations/{conversation_id}/summaries",
    summary="The compaction summaries of a conversation (owner only)",
    description="Each summary that stood in a turn's prompt for the older messages of a branch, "
    "with the range of messages it replaced, oldest first (ADR 0065). Another user's (a shared "
    "conversation's reader too) or tenant's conversation, or an unknown one: 404.",
    response_model=list[SummaryOut],
)
async def list_summaries(
    conversation_id: _Id,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
) -> list[SummaryOut]:
    found = await container.conversations.summaries(
        principal.tenant_id, conversation_id, user_id=principal.user_id
    )
    return [_out(summary) for summary in found]


@router.post(
    "/api/conversations/{conversation_id}/summaries/{summary_id}/rollback",
    summary="Roll a compaction back (owner only)",
    description="The summary's range of messages is never summarised again: the next turns "
    "send those messages word for word as they fit in the token budget (the rest are left "
    "out). Rolling back twice changes nothing. An unknown summary, another user's or tenant's: "
    "404.",
    response_model=SummaryOut,
)
async def roll_back_summary(
    conversation_id: _Id,
    summary_id: _Id,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
) -> SummaryOut:
    rolled_back = await container.conversations.roll_back_summary(
        principal.tenant_id, conversation_id, summary_id, user_id=principal.user_id
    )
    return _out(rolled_back)


class PinsOut(BaseModel):
    pinnedMessageIds: list[str] = Field(
        description="The conversation's pinned messages, oldest pin first: a compacted prompt "
        "keeps each one on the branch it continues word for word (ADR 0065, session 8)."
    )


@router.get(
    "/api/conversations/{conversation_id}/pins",
    summary="The pinned messages of a conversation (owner only)",
    response_model=PinsOut,
)
async def list_pins(
    conversation_id: _Id,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
) -> PinsOut:
    pins = await container.conversations.pinned_message_ids(
        principal.tenant_id, conversation_id, user_id=principal.user_id
    )
    return PinsOut(pinnedMessageIds=pins)


@router.put(
    "/api/conversations/{conversation_id}/messages/{message_id}/pin",
    summary="Pin a message (owner only)",
    description="When the conversation's prompt is compacted (REGINTEL_CONVERSATION_TOKEN_BUDGET),"
    " a pinned message on the branch is kept word for word, never only summarised. At most 20 "
    "per conversation (400 past it); pinning twice changes nothing. A message that is not the "
    "conversation's, another user's or tenant's conversation: 404.",
    response_model=PinsOut,
)
async def pin_message(
    conversation_id: _Id,
    message_id: _Id,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
) -> PinsOut:
    pins = await container.conversations.pin_message(
        principal.tenant_id, conversation_id, message_id, user_id=principal.user_id
    )
    return PinsOut(pinnedMessageIds=pins)


@router.delete(
    "/api/conversations/{conversation_id}/messages/{message_id}/pin",
    summary="Unpin a message (owner only)",
    response_model=PinsOut,
)
async def unpin_message(
    conversation_id: _Id,
    message_id: _Id,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
) -> PinsOut:
    pins = await container.conversations.pin_message(
        principal.tenant_id,
        conversation_id,
        message_id,
        user_id=principal.user_id,
        pinned=False,
    )
    return PinsOut(pinnedMessageIds=pins)
