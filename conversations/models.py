"""Conversation-store models: tenants' conversations, messages and context."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

__all__ = [
    "Conversation",
    "ConversationContext",
    "MessageRole",
    "MessageStatus",
    "NewMessage",
    "StoredMessage",
]

MessageRole = Literal["user", "assistant"]
MessageStatus = Literal["complete", "partial", "error"]


class ConversationContext(BaseModel):
    """Backend-owned context of one conversation (never stored in the graph)."""

    active_node_ids: list[str] = Field(default_factory=list)

    def with_nodes(self, node_ids: list[str], limit: int) -> ConversationContext:
        """Most recent first, no duplicates, at most ``limit`` ids."""
        merged = list(dict.fromkeys([*node_ids, *self.active_node_ids]))
        return ConversationContext(active_node_ids=merged[:limit])


class Conversation(BaseModel):
    """A conversation of one tenant, owned by the user who created it."""

    id: str
    tenant_id: str
    user_id: str
    created_at: datetime
    updated_at: datetime


class NewMessage(BaseModel):
    """A message about to be saved: the text as written and as sent upstream (sanitised)."""

    role: MessageRole
    content: str
    content_sanitised: str
    status: MessageStatus = "complete"
    referenced_nodes: list[str] = Field(default_factory=list)


class StoredMessage(NewMessage):
    """A saved message, with the id and time the store gave it."""

    id: str
    conversation_id: str
    created_at: datetime
