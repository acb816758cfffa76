"""``GET /api/conversations/{id}``: a conversation's messages and context (same tenant only)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from api.auth import Principal, authenticate
from api.deps import ContainerDep

__all__ = [
    "ContextOut",
    "ConversationOut",
    "MessageOut",
    "get_conversation",
    "router",
]

router = APIRouter(tags=["conversations"])


class ContextOut(BaseModel):
    activeNodeIds: list[str] = Field(description="Graph node ids the conversation is about.")


class MessageOut(BaseModel):
    id: str
    role: str = Field(description="user or assistant")
    content: str = Field(description="As the user typed it / as shown to the user.")
    status: str = Field(description="complete, partial (client left) or error")
    referencedNodes: list[str]
    createdAt: str


class ConversationOut(BaseModel):
    id: str
    createdAt: str
    updatedAt: str
    context: ContextOut
    messages: list[MessageOut] = Field(description="Oldest first.")


@router.get(
    "/api/conversations/{conversation_id}",
    summary="A conversation with its messages and context",
    response_model=ConversationOut,
)
async def get_conversation(
    conversation_id: str,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
    limit: Annotated[int, Query(ge=1, le=1000, description="Most recent messages.")] = 200,
) -> ConversationOut:
    store = container.conversations
    conversation = await store.get_conversation(principal.tenant_id, conversation_id)
    context = await store.load_context(principal.tenant_id, conversation_id)
    messages = await store.recent_messages(principal.tenant_id, conversation_id, limit)
    return ConversationOut(
        id=conversation.id,
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
