"""Conversations of the caller (ADR 0025): the list, one conversation, and its sharing.

A conversation belongs to its creator. ``visibility`` ``private`` (the default) keeps it to
them; ``tenant`` lets every user of the tenant read it (list it, open it) — only the owner posts
into it or changes its sharing. Another user's private conversation is a 404, exactly like
another tenant's or an unknown id.
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field

from api.auth import Principal, authenticate
from api.deps import ContainerDep
from conversations.models import Conversation, Visibility
from conversations.port import ConversationQueries

__all__ = [
    "MAX_TITLE_CHARS",
    "ContextOut",
    "ConversationListItem",
    "ConversationOut",
    "ConversationSharing",
    "MessageOut",
    "VisibilityIn",
    "display_title",
    "get_conversation",
    "list_conversations",
    "router",
    "set_visibility",
]

router = APIRouter(tags=["conversations"])

# What a title shows of the first question: no C0/C1 controls (terminal escapes) and no bidi
# embeddings, overrides or isolates, which would reorder the text around them (issue 30).
_UNSHOWN = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
MAX_TITLE_CHARS = 200


def display_title(text: str) -> str:
    """``text`` fit for a one-line title: controls and bidi formatting removed (a line break
    or tab becomes a space), runs of spaces folded, at most :data:`MAX_TITLE_CHARS`."""
    cleaned = " ".join(_UNSHOWN.sub(lambda m: " " if m.group() in "\t\n\r" else "", text).split())
    return cleaned if len(cleaned) <= MAX_TITLE_CHARS else cleaned[: MAX_TITLE_CHARS - 1] + "…"


_VISIBILITY = (
    "`private`: only its owner sees it (the default). `tenant`: every user of the tenant may "
    "read it; only the owner posts into it or changes this."
)


class ContextOut(BaseModel):
    activeNodeIds: list[str] = Field(description="Graph node ids the conversation is about.")


class MessageOut(BaseModel):
    id: str
    role: str = Field(description="user or assistant")
    content: str = Field(description="As the user typed it / as shown to the user.")
    status: str = Field(
        description="An assistant answer: `streaming` (being written as it arrives), then "
        "`complete`, `partial` (the client left), `error` (the provider or egress failed) or "
        "`interrupted` (the server stopped mid-answer: the text is what was saved until then). "
        "A user message is `complete`."
    )
    referencedNodes: list[str]
    createdAt: str


class ConversationOut(BaseModel):
    id: str
    ownerId: str = Field(description="The user who created it (the only one who may post).")
    owned: bool = Field(description="Whether the caller is its owner.")
    visibility: Visibility = Field(description=_VISIBILITY)
    createdAt: str
    updatedAt: str
    context: ContextOut
    messages: list[MessageOut] = Field(description="Oldest first.")


class ConversationListItem(BaseModel):
    id: str
    title: str = Field(description="The conversation's first question (empty before one).")
    ownerId: str = Field(description="The user who created it.")
    owned: bool = Field(description="Whether the caller is its owner (else: shared with them).")
    visibility: Visibility = Field(description=_VISIBILITY)
    createdAt: str
    updatedAt: str


class VisibilityIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    visibility: Visibility = Field(description=_VISIBILITY)


class ConversationSharing(BaseModel):
    id: str
    ownerId: str
    owned: bool
    visibility: Visibility
    createdAt: str
    updatedAt: str


def _sharing(conversation: Conversation, principal: Principal) -> ConversationSharing:
    return ConversationSharing(
        id=conversation.id,
        ownerId=conversation.user_id,
        owned=conversation.user_id == principal.user_id,
        visibility=conversation.visibility,
        createdAt=conversation.created_at.isoformat(),
        updatedAt=conversation.updated_at.isoformat(),
    )


@router.get(
    "/api/conversations",
    summary="The caller's conversations and those shared with them, most recently updated first",
    description="Own conversations and the ones other users of the tenant shared "
    "(`visibility: tenant`); `owned` tells them apart. Pages of `limit`, from `offset`.",
    response_model=list[ConversationListItem],
)
async def list_conversations(
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=100_000, description="Skip this many.")] = 0,
) -> list[ConversationListItem]:
    queries: ConversationQueries = container.conversations  # the narrow port (ADR 0043)
    found = await queries.list_conversations(principal.tenant_id, principal.user_id, limit, offset)
    return [
        ConversationListItem(
            id=c.id,
            title=display_title(c.title),
            ownerId=c.user_id,
            owned=c.user_id == principal.user_id,
            visibility=c.visibility,
            createdAt=c.created_at.isoformat(),
            updatedAt=c.updated_at.isoformat(),
        )
        for c in found
    ]


@router.get(
    "/api/conversations/{conversation_id}",
    summary="A conversation with its messages and context",
    description="The caller's own conversation or one shared with the tenant; anything else "
    "(another user's private conversation, another tenant's, an unknown id) is a 404.",
    response_model=ConversationOut,
)
async def get_conversation(
    conversation_id: str,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
    limit: Annotated[int, Query(ge=1, le=1000, description="Most recent messages.")] = 200,
) -> ConversationOut:
    store: ConversationQueries = container.conversations  # the narrow port (ADR 0043)
    tenant, user = principal.tenant_id, principal.user_id
    conversation = await store.get_conversation(tenant, conversation_id, user_id=user)
    context = await store.load_context(tenant, conversation_id, user_id=user)
    messages = await store.recent_messages(tenant, conversation_id, limit, user_id=user)
    return ConversationOut(
        id=conversation.id,
        ownerId=conversation.user_id,
        owned=conversation.user_id == user,
        visibility=conversation.visibility,
        createdAt=conversation.created_at.isoformat(),
        updatedAt=conversation.updated_at.isoformat(),
        context=ContextOut(activeNodeIds=context.active_node_ids),
        messages=[
            MessageOut(
                id=m.id,
                role=m.role,
                content=m.content,
                status=m.status,
                referencedNodes=m.referenced_nodes,
                createdAt=m.created_at.isoformat(),
            )
            for m in messages
        ],
    )


@router.patch(
    "/api/conversations/{conversation_id}",
    summary="Share a conversation with the tenant, or make it private again (owner only)",
    description='`{"visibility": "tenant"}` lets every user of the tenant read it; '
    '`"private"` takes that back. Only the owner may: another user gets 403 '
    "`conversation_read_only` for a conversation shared with them and 404 for anything else.",
    response_model=ConversationSharing,
)
async def set_visibility(
    conversation_id: str,
    body: VisibilityIn,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
) -> ConversationSharing:
    conversation = await container.conversations.set_visibility(
        principal.tenant_id, conversation_id, body.visibility, user_id=principal.user_id
    )
    return _sharing(conversation, principal)
