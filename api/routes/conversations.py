"""Conversations of the caller (ADR 0025): the list, one conversation, its sharing and its
active branch (ADR 0062), and a preview of another branch against it (merge preview, ADR
0062 addendum).

A conversation belongs to its creator. ``visibility`` ``private`` (the default) keeps it to
them; ``tenant`` lets every user of the tenant read it (list it, open it) — only the owner posts
into it or changes its sharing. Another user's private conversation is a 404, exactly like
another tenant's or an unknown id.

A conversation's messages form a tree: an edit or a regeneration (``api.routes.branches``)
starts a branch beside the message it replaces and keeps the earlier one. ``GET`` shows the
active branch with each message's siblings; ``PUT .../branch`` makes another branch active.
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from api.auth import Principal, authenticate
from api.deps import ContainerDep
from conversations.models import Conversation, ConversationView, StoredMessage, Visibility
from conversations.port import ConversationQueries

__all__ = [
    "MAX_TITLE_CHARS",
    "BranchIn",
    "BranchPointOut",
    "BranchPreviewOut",
    "ContextOut",
    "ConversationListItem",
    "ConversationOut",
    "ConversationSharing",
    "MessageOut",
    "VisibilityIn",
    "display_title",
    "get_conversation",
    "list_conversations",
    "preview_branch",
    "router",
    "set_visibility",
    "switch_branch",
]

router = APIRouter(tags=["conversations"])
_Id = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9-]+$")]

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
        "A user message is `complete`, or `quota_exceeded`: refused for the tenant's hard "
        "quota before the model was called, stored with no answer and left out of later "
        "prompts."
    )
    referencedNodes: list[str]
    createdAt: str
    parentId: str | None = Field(
        default=None,
        description="The message it follows (null: the first message of the conversation).",
    )
    siblingIds: list[str] = Field(
        default_factory=list,
        description="The messages that follow the same parent, oldest first, this one among "
        "them: the versions at this point (edits of a question, regenerations of an answer). "
        "More than one: a branch point; `PUT /api/conversations/{id}/branch` with another of "
        "them shows that branch.",
    )


class BranchPointOut(BaseModel):
    parentId: str | None = Field(description="The message the versions follow (null: none).")
    messageIds: list[str] = Field(description="The versions, oldest first.")
    activeId: str = Field(description="The version on the active branch.")


class ConversationOut(BaseModel):
    id: str
    ownerId: str = Field(description="The user who created it (the only one who may post).")
    owned: bool = Field(description="Whether the caller is its owner.")
    visibility: Visibility = Field(description=_VISIBILITY)
    createdAt: str
    updatedAt: str
    activeLeafId: str | None = Field(
        default=None,
        description="The last message of the active branch: the one a new `POST /api/chat` "
        "follows (null before the first message).",
    )
    context: ContextOut = Field(description="The active branch's context.")
    messages: list[MessageOut] = Field(
        description="The active branch, oldest first (its last `limit` messages)."
    )
    branchPoints: list[BranchPointOut] = Field(
        default_factory=list,
        description="The places on the active branch where other versions exist, oldest first "
        "(the same as the messages with more than one `siblingIds`).",
    )


class BranchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    messageId: str = Field(
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9-]+$",
        description="Any message of the branch to show, usually a sibling at a branch point: "
        "the branch's latest messages below it become the active branch.",
    )


class ConversationListItem(BaseModel):
    id: str
    title: str = Field(
        description="The first question of the conversation's active branch (after an edit of"
        " the first question, the edited one; empty before one)."
    )
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


def _messages_out(view: ConversationView, messages: list[StoredMessage]) -> list[MessageOut]:
    return [
        MessageOut(
            id=m.id,
            role=m.role,
            content=m.content,
            status=m.status,
            referencedNodes=m.referenced_nodes,
            createdAt=m.created_at.isoformat(),
            parentId=m.parent_id,
            siblingIds=view.siblings.get(m.id, [m.id]),
        )
        for m in messages
    ]


def _conversation_out(view: ConversationView, principal: Principal) -> ConversationOut:
    conversation = view.conversation
    messages = _messages_out(view, view.messages)
    return ConversationOut(
        id=conversation.id,
        ownerId=conversation.user_id,
        owned=conversation.user_id == principal.user_id,
        visibility=conversation.visibility,
        createdAt=conversation.created_at.isoformat(),
        updatedAt=conversation.updated_at.isoformat(),
        activeLeafId=conversation.active_leaf_id,
        context=ContextOut(activeNodeIds=view.context.active_node_ids),
        messages=messages,
        branchPoints=[
            BranchPointOut(parentId=m.parentId, messageIds=m.siblingIds, activeId=m.id)
            for m in messages
            if len(m.siblingIds) > 1
        ],
    )


@router.get(
    "/api/conversations/{conversation_id}",
    summary="A conversation: its active branch, that branch's context and its branch points",
    description="The caller's own conversation or one shared with the tenant; anything else "
    "(another user's private conversation, another tenant's, an unknown id) is a 404. "
    "`messages` is the active branch only; each message's `siblingIds` lists the other "
    "versions at its place (edits, regenerations: ADR 0062), and `branchPoints` those places.",
    response_model=ConversationOut,
)
async def get_conversation(
    conversation_id: str,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
    limit: Annotated[int, Query(ge=1, le=1000, description="Most recent messages.")] = 200,
) -> ConversationOut:
    store: ConversationQueries = container.conversations  # the narrow port (ADR 0043)
    view = await store.conversation_view(
        principal.tenant_id, conversation_id, limit, user_id=principal.user_id
    )
    return _conversation_out(view, principal)


@router.put(
    "/api/conversations/{conversation_id}/branch",
    summary="Show another branch of a conversation (owner only)",
    description="Makes the branch through `messageId` the active one: from that message down, "
    "the most recent message at each step, to its last. The next `POST /api/chat` continues "
    "it, and its context (active concepts, jurisdictions, date) is that branch's. Returns the "
    "conversation as `GET` does. A turn still streaming on another branch finishes there. "
    "An unknown message (or one of another conversation), another user's private or another "
    "tenant's conversation: 404; a conversation shared with the caller: 403 "
    "`conversation_read_only`.",
    response_model=ConversationOut,
)
async def switch_branch(
    conversation_id: _Id,
    body: BranchIn,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
    limit: Annotated[int, Query(ge=1, le=1000, description="Most recent messages.")] = 200,
) -> ConversationOut:
    store = container.conversations
    tenant, user = principal.tenant_id, principal.user_id
    await store.switch_branch(tenant, conversation_id, body.messageId, user_id=user)
    view = await store.conversation_view(tenant, conversation_id, limit, user_id=user)
    return _conversation_out(view, principal)


class BranchPreviewOut(BaseModel):
    leafId: str = Field(description="The last message of the branch previewed.")
    forkId: str | None = Field(
        description="The last message the previewed branch shares with the active one (null: "
        "they share none, e.g. the first question was edited)."
    )
    messages: list[MessageOut] = Field(
        description="The previewed branch's messages after the fork, oldest first."
    )
    activeMessages: list[MessageOut] = Field(
        description="The active branch's messages after the fork: what a switch sets aside."
    )
    conceptsAdded: list[str] = Field(
        description="Active concepts of the previewed branch the active branch lacks."
    )
    conceptsDropped: list[str] = Field(
        description="Active concepts of the active branch the previewed branch lacks."
    )


@router.get(
    "/api/conversations/{conversation_id}/branch/preview",
    summary="Preview another branch against the active one, changing nothing",
    description="The branch a `PUT .../branch` to `messageId` would make active, beside the "
    "active branch: where they fork, each side's messages after it, and the active concepts "
    "(the prompt's context) one has and the other lacks. Nothing is switched or written. "
    "Readable by whoever may read the conversation; an unknown message (or one of another "
    "conversation) and anything the caller cannot read: 404.",
    response_model=BranchPreviewOut,
)
async def preview_branch(
    conversation_id: _Id,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
    messageId: Annotated[str, Query(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9-]+$")],
    limit: Annotated[int, Query(ge=1, le=1000, description="Most recent messages.")] = 200,
) -> BranchPreviewOut:
    store: ConversationQueries = container.conversations
    tenant, user = principal.tenant_id, principal.user_id
    other = await store.conversation_view(
        tenant, conversation_id, limit, user_id=user, through=messageId
    )
    active = await store.conversation_view(tenant, conversation_id, limit, user_id=user)
    shared = {m.id for m in active.messages}
    fork = next((m.id for m in reversed(other.messages) if m.id in shared), None)

    def after(messages: list[StoredMessage]) -> list[StoredMessage]:
        ids = [m.id for m in messages]
        return messages[ids.index(fork) + 1 :] if fork in ids else messages

    theirs, ours = other.context.active_node_ids, active.context.active_node_ids
    return BranchPreviewOut(
        leafId=other.messages[-1].id if other.messages else messageId,
        forkId=fork,
        messages=_messages_out(other, after(other.messages)),
        activeMessages=_messages_out(active, after(active.messages)),
        conceptsAdded=[n for n in theirs if n not in ours],
        conceptsDropped=[n for n in ours if n not in theirs],
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
