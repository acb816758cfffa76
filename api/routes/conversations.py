"""``GET /api/conversations/{id}``: a conversation's messages and context (same tenant only)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from api.auth import Principal, authenticate

router = APIRouter(tags=["conversations"])


@router.get(
    "/api/conversations/{conversation_id}",
    summary="A conversation with its messages and context",
    responses={404: {"description": "No such conversation in the caller's tenant."}},
)
async def get_conversation(
    conversation_id: str,
    request: Request,
    principal: Annotated[Principal, Depends(authenticate)],
    limit: Annotated[int, Query(ge=1, le=1000, description="Most recent messages.")] = 200,
) -> dict[str, Any]:
    store = request.app.state.container.conversations
    conversation = await store.get_conversation(principal.tenant_id, conversation_id)
    context = await store.load_context(principal.tenant_id, conversation_id)
    messages = await store.recent_messages(principal.tenant_id, conversation_id, limit)
    return {
        "id": conversation.id,
        "createdAt": conversation.created_at.isoformat(),
        "updatedAt": conversation.updated_at.isoformat(),
        "context": {"activeNodeIds": context.active_node_ids},
        "messages": [
            {
                "id": m.id,
                "role": m.role,
                "content": m.content,
                "status": m.status,
                "referencedNodes": m.referenced_nodes,
                "createdAt": m.created_at.isoformat(),
            }
            for m in messages
        ],
    }
