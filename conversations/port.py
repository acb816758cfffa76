"""The ``ConversationStore`` port: per-tenant conversations, messages and context.

Every call takes ``tenant_id`` and is scoped by it; another tenant's conversation id is
reported as :class:`errors.NotFound`, exactly like an id that does not exist.

:class:`ConversationBackend` is what the composition root holds: the store, which also hands
out the egress ports kept in its own database (:class:`EgressAdapters`), so the caller never
switches on the backend's type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from conversations.models import Conversation, ConversationContext, NewMessage, StoredMessage
from egress.audit import AuditSink
from egress.policy import PolicyStore
from egress.sanitiser import PseudonymVault

__all__ = ["ConversationBackend", "ConversationStore", "EgressAdapters"]


class ConversationStore(Protocol):
    async def init(self) -> None:
        """Apply migrations. Idempotent."""
        ...

    async def create_conversation(self, tenant_id: str, user_id: str) -> Conversation: ...

    async def get_conversation(self, tenant_id: str, conversation_id: str) -> Conversation: ...

    async def load_context(self, tenant_id: str, conversation_id: str) -> ConversationContext: ...

    async def recent_messages(
        self, tenant_id: str, conversation_id: str, limit: int
    ) -> list[StoredMessage]:
        """The last ``limit`` messages, oldest first."""
        ...

    async def save_turn(
        self,
        tenant_id: str,
        conversation_id: str,
        messages: list[NewMessage],
        context: ConversationContext,
        *,
        max_active_nodes: int = 40,
    ) -> list[StoredMessage]:
        """Save the messages of a turn and the context update together, or nothing.

        ``context`` holds the node ids this turn made active; inside the same transaction they
        are merged in front of the stored ids (so concurrent turns of one conversation never
        drop each other's), bounded to ``max_active_nodes``.
        """
        ...

    async def ping(self) -> None: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True)
class EgressAdapters:
    """The egress ports a conversation store keeps in its own database."""

    vault: PseudonymVault
    policies: PolicyStore
    audit: AuditSink


class ConversationBackend(ConversationStore, Protocol):
    """A conversation store that also hands out its egress ports."""

    def egress_adapters(self) -> EgressAdapters:
        """The pseudonym vault, policy store and audit sink over this store's database."""
        ...
