"""The ``ConversationStore`` algorithms, written once for every SQL adapter.

:class:`SqlConversationStore` implements the port over its own
:meth:`~SqlConversationStore.unit_of_work` and :attr:`~SqlConversationStore.dialect`; the
SQLite and PostgreSQL adapters subclass it and give only those two plus their lifecycle
(``init``, ``ping``, ``aclose``). Every statement is scoped by ``tenant_id``; an unknown id and
another tenant's id are both :class:`errors.NotFound`.

``save_turn`` is one unit of work: it first touches the conversation (proving ownership and
taking the write lock: PostgreSQL's row lock, SQLite's ``BEGIN IMMEDIATE``), so concurrent
turns of one conversation queue up and each reads the ``MAX(seq)`` its predecessor committed;
then it inserts the messages and merges the turn's node ids in front of the stored ones.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime

from conversations.models import Conversation, ConversationContext, NewMessage, StoredMessage
from conversations.port import EgressAdapters
from conversations.sql_egress import SqlAuditSink, SqlPolicyStore, SqlPseudonymVault
from conversations.unit_of_work import Row, SqlDialect, UnitOfWork
from errors import NotFound

__all__ = ["SqlConversationStore"]


class SqlConversationStore(ABC):
    """A :class:`conversations.port.ConversationStore` over a SQL database."""

    dialect: SqlDialect

    @abstractmethod
    def unit_of_work(self, tenant_id: str) -> AbstractAsyncContextManager[UnitOfWork]:
        """One transaction scoped to ``tenant_id`` that rolls back unless committed."""

    @abstractmethod
    async def init(self) -> None:
        """Connect and apply migrations. Idempotent; a failed init leaves nothing open."""

    @abstractmethod
    async def ping(self) -> None:
        """Raise :class:`errors.ConversationStoreUnavailable` unless the database answers."""

    @abstractmethod
    async def aclose(self) -> None:
        """Release connections. Idempotent, and safe after a failed :meth:`init`."""

    def egress_adapters(self) -> EgressAdapters:
        """The egress policies, pseudonym vault and audit sink over this store's database."""
        return EgressAdapters(
            vault=SqlPseudonymVault(self), policies=SqlPolicyStore(self), audit=SqlAuditSink(self)
        )

    # -- conversations ---------------------------------------------------------------------

    async def create_conversation(self, tenant_id: str, user_id: str) -> Conversation:
        now = datetime.now(UTC)
        conversation = Conversation(
            id=str(uuid.uuid4()),
            tenant_id=tenant_id,
            user_id=user_id,
            created_at=now,
            updated_at=now,
        )
        params = {
            "tenant_id": tenant_id,
            "conversation_id": conversation.id,
            "user_id": user_id,
            "active_node_ids": self.dialect.encode_list([]),
            "now": self.dialect.timestamp(now),
        }
        statements = self.dialect.statements
        async with self.unit_of_work(tenant_id) as work:
            await work.execute(statements.insert_tenant, params)
            await work.execute(statements.insert_conversation, params)
            await work.execute(statements.insert_context, params)
            await work.commit()
        return conversation

    async def get_conversation(self, tenant_id: str, conversation_id: str) -> Conversation:
        statement = self.dialect.statements.select_conversation
        row = await self._read_one(statement, tenant_id, conversation_id)
        return Conversation.model_validate(dict(row))

    async def load_context(self, tenant_id: str, conversation_id: str) -> ConversationContext:
        statement = self.dialect.statements.select_context
        row = await self._read_one(statement, tenant_id, conversation_id)
        return ConversationContext(active_node_ids=self.dialect.decode_list(row["active_node_ids"]))

    async def recent_messages(
        self, tenant_id: str, conversation_id: str, limit: int
    ) -> list[StoredMessage]:
        """The last ``limit`` messages, oldest first."""
        params = {"tenant_id": tenant_id, "conversation_id": conversation_id, "limit": limit}
        async with self.unit_of_work(tenant_id) as work:
            rows = await work.fetch_all(self.dialect.statements.select_recent_messages, params)
        return [self._message(row) for row in reversed(rows)]

    async def save_turn(
        self,
        tenant_id: str,
        conversation_id: str,
        messages: list[NewMessage],
        context: ConversationContext,
        *,
        max_active_nodes: int = 40,
    ) -> list[StoredMessage]:
        """Save the messages of a turn and the context update together, or nothing."""
        dialect, statements = self.dialect, self.dialect.statements
        now = datetime.now(UTC)
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id}
        stamp = dialect.timestamp(now)
        saved: list[StoredMessage] = []
        async with self.unit_of_work(tenant_id) as work:
            # ownership first: it also takes the lock that orders concurrent turns
            if await work.execute(statements.touch_conversation, {**key, "now": stamp}) != 1:
                raise NotFound(f"conversation {conversation_id} not found")
            last = await work.fetch_one(statements.last_seq, key)
            seq = int(last["seq"]) if last else 0
            for offset, message in enumerate(messages, start=1):
                message_id = str(uuid.uuid4())
                # the fields one by one, unvalidated: the database's checks judge a bad message
                params = {
                    **key,
                    "id": message_id,
                    "seq": seq + offset,
                    "role": message.role,
                    "content": message.content,
                    "content_sanitised": message.content_sanitised,
                    "status": message.status,
                    "referenced_nodes": dialect.encode_list(message.referenced_nodes),
                    "now": stamp,
                }
                await work.execute(statements.insert_message, params)
                stored_message = StoredMessage(
                    **message.model_dump(),
                    id=message_id,
                    conversation_id=conversation_id,
                    created_at=now,
                )
                saved.append(stored_message)
            stored = await work.fetch_one(statements.select_context_for_update, key)
            merged = ConversationContext(
                active_node_ids=dialect.decode_list(stored["active_node_ids"]) if stored else []
            ).with_nodes(context.active_node_ids, max_active_nodes)
            active = dialect.encode_list(merged.active_node_ids)
            await work.execute(
                statements.update_context, {**key, "active_node_ids": active, "now": stamp}
            )
            await work.commit()
        return saved

    # -- helpers ---------------------------------------------------------------------------

    async def _read_one(self, statement: str, tenant_id: str, conversation_id: str) -> Row:
        params = {"tenant_id": tenant_id, "conversation_id": conversation_id}
        async with self.unit_of_work(tenant_id) as work:
            row = await work.fetch_one(statement, params)
        if row is None:
            raise NotFound(f"conversation {conversation_id} not found")
        return row

    def _message(self, row: Row) -> StoredMessage:
        nodes = self.dialect.decode_list(row["referenced_nodes"])
        return StoredMessage.model_validate({**row, "referenced_nodes": nodes})
