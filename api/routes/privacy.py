"""A user's access to and erasure of their conversations, and a tenant admin's erasure of a user
(GDPR Articles 15, 17 and 20; ADR 0048).

* ``GET /api/conversations/export``: every conversation the caller owns (never one another user
  shared with them), with every message, its status, referenced nodes and times, as one JSON
  document.
* ``DELETE /api/conversations/{id}``: erase one of the caller's own conversations;
  ``DELETE /api/conversations``: every one of them.
* ``DELETE /api/admin/users/{user_id}``: a tenant's admin erases a user of their own tenant;
  ``GET /api/admin/erasures``: the tenant's erasure audit trail.

Erasure removes the messages, the context and the egress vault's originals, keeps counts only
(the erasure trail, and the egress audit's records without the ids) and is final. Another
user's or another tenant's id is a 404, like an unknown one. The routes depend on the narrow
ports :class:`conversations.port.ConversationExport` and
:class:`conversations.port.ConversationErasure`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query, Response
from pydantic import BaseModel, Field

from api.auth import Principal, authenticate, require_admin
from api.bootstrap import Container
from api.deps import ContainerDep
from conversations.models import ErasureKind, ErasureRecord, ExportedConversation
from conversations.port import ConversationErasure, ConversationExport

__all__ = [
    "EXPORT_FORMAT",
    "ErasureOut",
    "ErasuresOut",
    "ExportOut",
    "ExportedConversationOut",
    "ExportedMessageOut",
    "erase_all_conversations",
    "erase_conversation",
    "erase_user",
    "erasures",
    "export_conversations",
    "router",
]

router = APIRouter(tags=["privacy"])
EXPORT_FORMAT = "regintel.conversations.v1"
_Caller = Annotated[Principal, Depends(authenticate)]
_Admin = Annotated[Principal, Depends(require_admin)]
_ConversationId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9-]+$")]
_UserId = Annotated[str, Path(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f]+$")]


class ExportedMessageOut(BaseModel):
    id: str
    seq: int = Field(description="Its place in the conversation, from 1.")
    role: Literal["user", "assistant"]
    content: str = Field(description="As the user typed it / as the answer was shown.")
    status: str = Field(
        description="`complete`, `partial`, `error`, `streaming` or `interrupted` (as in "
        "`GET /api/conversations/{id}`)."
    )
    referencedNodes: list[str] = Field(
        description="The answer's citations and concepts: ids of the rules graph's nodes "
        "(provisions such as `EU:REG_2016_679:ART_17`, concepts such as `TAX:IE:VAT`)."
    )
    createdAt: str
    updatedAt: str | None = Field(description="The last write of a streamed answer.")
    parentId: str | None = Field(
        default=None,
        description="The message it follows (null: a first message): the conversation's tree "
        "of branches (ADR 0062).",
    )


class ExportedConversationOut(BaseModel):
    id: str
    visibility: Literal["private", "tenant"]
    createdAt: str
    updatedAt: str
    activeNodeIds: list[str] = Field(
        description="The context of the conversation's active branch: graph node ids."
    )
    activeLeafId: str | None = Field(
        default=None, description="The last message of the active branch (ADR 0062)."
    )
    branches: list[str] = Field(
        default_factory=list,
        description="The last message of each branch, when edits or regenerations made more "
        "than one (empty for a conversation that never branched); `parentId` links each "
        "message to the one it follows (ADR 0062).",
    )
    messages: list[ExportedMessageOut] = Field(
        description="Every message of every branch, oldest first."
    )
    pinnedMessageIds: list[str] = Field(
        default_factory=list,
        description="The messages pinned (kept word for word when the prompt is compacted).",
    )


class ExportOut(BaseModel):
    format: str = Field(description=f"`{EXPORT_FORMAT}`.")
    exportedAt: str
    tenantId: str
    userId: str
    conversations: list[ExportedConversationOut] = Field(
        description="Every conversation the caller owns, oldest first (not those shared with "
        "them: they are their owners')."
    )


class ErasureOut(BaseModel):
    """What an erasure removed: counts only, the totals that are kept."""

    kind: ErasureKind = Field(
        description="`conversation`, `all_conversations` (the user's own request), `user` (a "
        "tenant admin's) or `expired` (the retention job)."
    )
    subjectUserId: str = Field(description="Whose conversations (empty for the retention job).")
    conversationId: str | None = Field(description="The one conversation, for `conversation`.")
    requestedBy: str
    conversations: int
    questions: int
    answers: int
    pseudonyms: int = Field(description="Originals removed from the egress pseudonym vault.")
    modelCalls: int = Field(
        description="Egress audit records kept as counts, with the erased ids taken off."
    )
    at: str


class ErasuresOut(BaseModel):
    tenantId: str
    erasures: list[ErasureOut] = Field(description="Newest first.")


def _erasure(record: ErasureRecord) -> ErasureOut:
    return ErasureOut(
        kind=record.kind,
        subjectUserId=record.subject_user_id,
        conversationId=record.conversation_id,
        requestedBy=record.requested_by,
        conversations=record.conversations,
        questions=record.questions,
        answers=record.answers,
        pseudonyms=record.pseudonyms,
        modelCalls=record.model_calls,
        at=record.at.isoformat(),
    )


def _exported(conversation: ExportedConversation) -> ExportedConversationOut:
    return ExportedConversationOut(
        id=conversation.id,
        visibility=conversation.visibility,
        createdAt=conversation.created_at.isoformat(),
        updatedAt=conversation.updated_at.isoformat(),
        activeNodeIds=conversation.active_node_ids,
        activeLeafId=conversation.active_leaf_id,
        branches=conversation.branches,
        messages=[
            ExportedMessageOut(
                id=m.id,
                seq=m.seq,
                role=m.role,
                content=m.content,
                status=m.status,
                referencedNodes=m.referenced_nodes,
                createdAt=m.created_at.isoformat(),
                updatedAt=m.updated_at.isoformat() if m.updated_at else None,
                parentId=m.parent_id,
            )
            for m in conversation.messages
        ],
        pinnedMessageIds=conversation.pinned_message_ids,
    )


@router.get(
    "/api/conversations/export",
    summary="Export the caller's conversations (GDPR Articles 15 and 20)",
    description="Every conversation the caller owns, with every message of every branch (as "
    "typed and as shown), its status, the graph nodes it cites and its times, and each "
    "conversation's context, as one JSON document (served as an attachment). Conversations "
    "other users shared with the caller are theirs and are not included.",
    response_model=ExportOut,
)
async def export_conversations(
    container: ContainerDep, principal: _Caller, response: Response
) -> ExportOut:
    store: ConversationExport = container.conversations  # the narrow port
    found = await store.export_conversations(principal.tenant_id, user_id=principal.user_id)
    response.headers["Content-Disposition"] = 'attachment; filename="regintel-conversations.json"'
    return ExportOut(
        format=EXPORT_FORMAT,
        exportedAt=datetime.now(UTC).isoformat(),
        tenantId=principal.tenant_id,
        userId=principal.user_id,
        conversations=[_exported(c) for c in found],
    )


@router.delete(
    "/api/conversations/{conversation_id}",
    summary="Erase one of the caller's conversations (GDPR Article 17)",
    description="Removes its messages, its context and the egress vault's originals of it, "
    "for good; keeps counts only (returned here, and in the tenant's erasure trail). A turn "
    "still streaming into it saves nothing more. Only its owner may: anything else (another "
    "user's conversation, shared or not, another tenant's, an unknown id) is a 404.",
    response_model=ErasureOut,
)
async def erase_conversation(
    conversation_id: _ConversationId, container: ContainerDep, principal: _Caller
) -> ErasureOut:
    store: ConversationErasure = container.conversations  # the narrow port
    record = await store.erase_conversation(
        principal.tenant_id,
        conversation_id,
        user_id=principal.user_id,
        requested_by=principal.user_id,
    )
    await _tell_workers(container, principal.tenant_id, principal.user_id, conversation_id)
    return _erasure(record)


@router.delete(
    "/api/conversations",
    summary="Erase every conversation of the caller (GDPR Article 17)",
    description="As erasing each of them; the counts of all of them are returned. The "
    "caller's egress audit records keep their user id (they remain a user: their admin "
    "erases the user, `DELETE /api/admin/users/{userId}`).",
    response_model=ErasureOut,
)
async def erase_all_conversations(container: ContainerDep, principal: _Caller) -> ErasureOut:
    store: ConversationErasure = container.conversations
    record = await store.erase_conversations(
        principal.tenant_id,
        user_id=principal.user_id,
        requested_by=principal.user_id,
        kind="all_conversations",
    )
    await _tell_workers(container, principal.tenant_id, principal.user_id, None)
    return _erasure(record)


@router.delete(
    "/api/admin/users/{user_id}",
    summary="Erase a user of the caller's tenant (tenant admins; GDPR Article 17)",
    description="Every conversation of the user in the admin's own tenant (messages, "
    "context, vault originals), their own egress policy, and their id on the egress audit's "
    "records (whose counts stay). Recorded in the erasure trail with counts, never text. "
    "The user's sign-in account is Supabase Auth's: delete it there. 404 when the tenant "
    "holds nothing of the user (another tenant's users included).",
    response_model=ErasureOut,
)
async def erase_user(user_id: _UserId, container: ContainerDep, principal: _Admin) -> ErasureOut:
    store: ConversationErasure = container.conversations
    record = await store.erase_conversations(
        principal.tenant_id, user_id=user_id, requested_by=principal.user_id, kind="user"
    )
    await _tell_workers(container, principal.tenant_id, user_id, None)
    return _erasure(record)


async def _tell_workers(
    container: Container, tenant_id: str, user_id: str, conversation_id: str | None
) -> None:
    """Every worker cancels its turns still streaming into what was erased (ADR 0048)."""
    if container.erasure_notices is not None:
        await container.erasure_notices.publish(tenant_id, user_id, conversation_id)


@router.get(
    "/api/admin/erasures",
    summary="The tenant's erasure audit trail (tenant admins)",
    description="Who asked, whose data, what kind and the counts removed, newest first; "
    "never any erased text.",
    response_model=ErasuresOut,
)
async def erasures(
    container: ContainerDep,
    principal: _Admin,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> ErasuresOut:
    store: ConversationErasure = container.conversations
    found = await store.erasures(principal.tenant_id, limit)
    return ErasuresOut(tenantId=principal.tenant_id, erasures=[_erasure(r) for r in found])
