"""The ``ConversationStore`` algorithms, written once for every SQL adapter.

:class:`SqlConversationStore` implements the port over its own
:meth:`~SqlConversationStore.unit_of_work` and :attr:`~SqlConversationStore.dialect`; the
SQLite and PostgreSQL adapters subclass it and give only those two plus their lifecycle
(``init``, ``ping``, ``aclose``). Every statement is scoped by ``tenant_id``; an unknown id and
another tenant's id are both :class:`errors.NotFound`. Inside the tenant, every call on a
conversation names the calling user: each statement reads only a conversation the user may
read (own, or shared with the tenant) and writes only the user's own, and the unit of work
carries the user too (PostgreSQL's row-level security checks it again, ADR 0025). Another
user's private conversation is :class:`errors.NotFound`, exactly like another tenant's.

``save_turn`` is one unit of work: it first touches the conversation (proving ownership and
taking the write lock: PostgreSQL's row lock, SQLite's ``BEGIN IMMEDIATE``), so concurrent
turns of one conversation queue up and each reads the ``MAX(seq)`` its predecessor committed;
then it inserts the messages and merges the turn's node ids in front of the stored ones.

A streamed answer (ADR 0018) is a ``save_turn`` of the question and an empty ``streaming``
answer before the model is called, :meth:`~SqlConversationStore.checkpoint_answer` as the
text arrives, and :meth:`~SqlConversationStore.finish_answer` once; both updates touch only a
message still ``streaming``, so a late checkpoint never overwrites a finished answer. A read
reports a ``streaming`` answer not written for :attr:`~SqlConversationStore.stream_lease`
seconds as ``interrupted``: the process that streamed it is gone.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections import defaultdict
from contextlib import AbstractAsyncContextManager
from datetime import UTC, date, datetime, timedelta

from conversations.models import (
    Attach,
    Conversation,
    ConversationContext,
    ConversationSummary,
    ConversationView,
    ErasureKind,
    ErasureRecord,
    ErasureTotals,
    ExportedConversation,
    ExportedMessage,
    MessageLink,
    ModelUsage,
    NewMessage,
    NewSummary,
    StoredMessage,
    StoredSummary,
    TenantUser,
    UsageEntry,
    UsageTotals,
    UserTokenUsage,
    UserUsage,
    Visibility,
)
from conversations.port import ConversationState, EgressAdapters
from conversations.scenarios import SqlScenarioStore
from conversations.sql_egress import ERASED, SqlAuditSink, SqlPolicyStore, SqlPseudonymVault
from conversations.unit_of_work import Params, Row, SqlDialect, UnitOfWork
from errors import ConversationReadOnly, InvalidInput, NotFound

__all__ = ["SqlConversationStore"]

# a message's fields the export leaves out: its sanitised form is the store's, not the user's
_NOT_EXPORTED = {"content_sanitised", "conversation_id"}

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # "since the beginning" for a usage window
_FOREVER = datetime(9999, 12, 31, tzinfo=UTC)  # erasure on request: whenever last written
_MAX_PINS = 20  # pinned messages per conversation (each kept word for word when compacted)
_RETENTION = "retention"  # who asked, in the retention job's records
_RETENTION_ROUNDS = 1000  # batches of one tenant in one run, at most (then the next run goes on)


class SqlConversationStore(ABC):
    """A :class:`conversations.port.ConversationStore` over a SQL database."""

    dialect: SqlDialect
    stream_lease: float = 30.0
    """Seconds after its last write that a ``streaming`` answer reads as ``interrupted``."""

    @abstractmethod
    def unit_of_work(
        self,
        tenant_id: str,
        user_id: str | None = None,
        *,
        admin: bool = False,
        erasure: bool = False,
    ) -> AbstractAsyncContextManager[UnitOfWork]:
        """One transaction scoped to ``tenant_id`` (and to ``user_id``, when the work is a
        user's: their conversations) that rolls back unless committed. ``admin``: the tenant
        admin's aggregate reads over every user of the tenant (PostgreSQL passes the admin
        claim to row-level security; SQLite has none). ``erasure``: the work deletes the
        user's conversations (PostgreSQL runs it as the eraser role, ADR 0048)."""

    @abstractmethod
    async def init(self) -> None:
        """Connect and apply migrations. Idempotent; a failed init leaves nothing open."""

    @abstractmethod
    async def ping(self) -> None:
        """Raise :class:`errors.ConversationStoreUnavailable` unless the database answers."""

    @abstractmethod
    async def aclose(self) -> None:
        """Release connections for good (a later call raises :class:`errors.AdapterClosed`).
        Idempotent, and safe after a failed :meth:`init`."""

    def egress_adapters(self) -> EgressAdapters:
        """The egress policies, pseudonym vault and audit sink over this store's database."""
        return EgressAdapters(
            vault=SqlPseudonymVault(self), policies=SqlPolicyStore(self), audit=SqlAuditSink(self)
        )

    def scenario_store(self) -> SqlScenarioStore:
        """The users' scenarios over this store's database (issue 28, ADR 0054)."""
        return SqlScenarioStore(self)

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
        async with self.unit_of_work(tenant_id, user_id) as work:
            await work.execute(statements.insert_tenant, params)
            await work.execute(statements.insert_conversation, params)
            await work.execute(statements.insert_context, params)
            await work.commit()
        return conversation

    async def get_conversation(
        self, tenant_id: str, conversation_id: str, *, user_id: str
    ) -> Conversation:
        """A conversation ``user_id`` may read (own or shared), else :class:`errors.NotFound`."""
        statement = self.dialect.statements.select_conversation
        row = await self._read_one(statement, tenant_id, conversation_id, user_id)
        return Conversation.model_validate(dict(row))

    async def set_visibility(
        self, tenant_id: str, conversation_id: str, visibility: Visibility, *, user_id: str
    ) -> Conversation:
        """Share or unshare the caller's own conversation; ``NotFound`` unless they may read
        it, ``ConversationReadOnly`` when someone else shared it."""
        statements = self.dialect.statements
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        async with self.unit_of_work(tenant_id, user_id) as work:
            changed = await work.execute(
                statements.update_visibility, {**key, "visibility": visibility}
            )
            row = await work.fetch_one(statements.select_conversation, key)
            await work.commit()
        if row is None:
            raise NotFound(f"conversation {conversation_id} not found")
        if changed != 1:
            raise ConversationReadOnly("only the owner of a conversation may change its sharing")
        return Conversation.model_validate(dict(row))

    async def list_conversations(
        self, tenant_id: str, user_id: str, limit: int, offset: int = 0
    ) -> list[ConversationSummary]:
        """The conversations ``user_id`` may read (own and shared), most recently updated
        first; ``offset`` skips that many."""
        params = {"tenant_id": tenant_id, "user_id": user_id, "limit": limit, "offset": offset}
        async with self.unit_of_work(tenant_id, user_id) as work:
            rows = await work.fetch_all(self.dialect.statements.select_user_conversations, params)
        return [
            ConversationSummary.model_validate({**row, "title": row["title"] or ""}) for row in rows
        ]

    async def load_context(
        self, tenant_id: str, conversation_id: str, *, user_id: str
    ) -> ConversationContext:
        """The context of the conversation's active branch (ADR 0062)."""
        async with self.unit_of_work(tenant_id, user_id) as work:
            conversation = await self._readable(work, tenant_id, conversation_id, user_id)
            return await self._branch_context(work, conversation, conversation.active_leaf_id)

    async def recent_messages(
        self, tenant_id: str, conversation_id: str, limit: int, *, user_id: str
    ) -> list[StoredMessage]:
        """The last ``limit`` messages of the active branch, oldest first (none of a
        conversation the user may not read)."""
        async with self.unit_of_work(tenant_id, user_id) as work:
            row = await work.fetch_one(
                self.dialect.statements.select_conversation,
                {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id},
            )
            if row is None:
                return []
            conversation = Conversation.model_validate(dict(row))
            return await self._branch(work, conversation, conversation.active_leaf_id, limit)

    async def conversation_view(
        self,
        tenant_id: str,
        conversation_id: str,
        limit: int,
        *,
        user_id: str,
        through: str | None = None,
    ) -> ConversationView:
        """The active branch's last ``limit`` messages, its context and each message's
        siblings, read together (one unit of work: a switch cannot fall between the reads).
        ``through``: the branch a switch to that message would make active instead, nothing
        written (an unknown message: :class:`NotFound`)."""
        async with self.unit_of_work(tenant_id, user_id) as work:
            conversation = await self._readable(work, tenant_id, conversation_id, user_id)
            links = await self._links(work, conversation)
            leaf = conversation.active_leaf_id
            if through is not None:
                leaf = _latest_leaf(links, through)
            messages = await self._branch(work, conversation, leaf, limit)
            context = await self._branch_context(work, conversation, leaf)
        children: defaultdict[str | None, list[str]] = defaultdict(list)
        for link in links:  # in seq order: siblings oldest first
            children[link.parent_id].append(link.id)
        return ConversationView(
            conversation=conversation,
            messages=messages,
            context=context,
            siblings={m.id: children[m.parent_id] for m in messages},
        )

    async def switch_branch(
        self, tenant_id: str, conversation_id: str, message_id: str, *, user_id: str
    ) -> Conversation:
        """Make the branch through ``message_id`` the active one: its latest leaf (from the
        message down, the most recent message that follows at each step) becomes the active
        leaf. Owner only (:class:`errors.ConversationReadOnly` for a reader of a shared one);
        an unknown message, or one of another conversation, is :class:`errors.NotFound`. A
        turn streaming meanwhile finishes on its own branch: its messages keep their parent."""
        statements = self.dialect.statements
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        lock = {**key, "before": self.dialect.timestamp(_FOREVER)}
        async with self.unit_of_work(tenant_id, user_id) as work:
            # the conversation's write lock first, as every save takes it; no new content, so
            # updated_at stays
            if await work.fetch_one(statements.lock_owned_conversation, lock) is None:
                await self._readable(work, tenant_id, conversation_id, user_id)  # or NotFound
                raise ConversationReadOnly("only the owner of a conversation may switch branch")
            conversation = await self._readable(work, tenant_id, conversation_id, user_id)
            leaf = _latest_leaf(await self._links(work, conversation), message_id)
            await work.execute(statements.update_active_leaf, {**key, "leaf_id": leaf})
            await work.commit()
        return conversation.model_copy(update={"active_leaf_id": leaf})

    async def load_turn(
        self,
        tenant_id: str,
        conversation_id: str,
        history_limit: int,
        *,
        user_id: str,
        branch_at: str | None = None,
        since_summary: bool = False,
        pinned: bool = False,
    ) -> ConversationState:
        """The conversation, the last ``history_limit`` messages of the branch the turn
        continues and that branch's context, in one unit of work (ADR 0029, second pass).

        The branch ends at the active leaf; with ``branch_at`` (an edit or a regeneration, ADR
        0062) it ends at that message's parent, where the new branch starts."""
        statements = self.dialect.statements
        async with self.unit_of_work(tenant_id, user_id) as work:
            conversation = await self._readable(work, tenant_id, conversation_id, user_id)
            parent_id, branched = conversation.active_leaf_id, None
            if branch_at is not None:
                params = {
                    "tenant_id": tenant_id,
                    "conversation_id": conversation_id,
                    "user_id": user_id,
                    "message_id": branch_at,
                    "limit": 1,
                }
                found = await work.fetch_one(statements.select_branch_messages, params)
                if found is None:
                    raise NotFound(f"message {branch_at} not found")
                branched = self._message(found)
                parent_id = branched.parent_id
            through, first = None, None
            if since_summary and branch_at is None:
                history, through, first = await self._branch_since_summary(
                    work, conversation, parent_id, history_limit
                )
            else:
                history = await self._branch(work, conversation, parent_id, history_limit)
            context = await self._branch_context(work, conversation, parent_id)
            summaries = await self._summaries(work, tenant_id, conversation_id, user_id)
            pins: list[StoredMessage] = []
            if pinned and parent_id is not None:
                params = {**self._branch_key(conversation, parent_id), "limit": history_limit}
                rows = await work.fetch_all(statements.select_pinned_on_branch, params)
                pins = [self._message(row) for row in rows]
        return ConversationState(
            conversation=conversation,
            history=history,
            context=context,
            parent_id=parent_id,
            branched=branched,
            summaries=tuple(summaries),
            summarised_through=through,
            first=first,
            pinned=tuple(pins),
        )

    async def save_turn(
        self,
        tenant_id: str,
        conversation_id: str,
        messages: list[NewMessage],
        context: ConversationContext,
        *,
        user_id: str,
        max_active_nodes: int = 40,
        parent_id: str | Attach | None = Attach.ACTIVE_LEAF,
        summary: NewSummary | None = None,
    ) -> list[StoredMessage]:
        """Save the messages of a turn, one after the other from ``parent_id``, and make the
        last one the active leaf, together, or nothing; only the conversation's owner may
        (anyone else: :class:`errors.NotFound`, like a ``parent_id`` of no message of it).
        ``context`` joins the branch's context, on the last message saved (without messages:
        on the active leaf)."""
        dialect, statements = self.dialect, self.dialect.statements
        now = datetime.now(UTC)
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        stamp = dialect.timestamp(now)
        saved: list[StoredMessage] = []
        async with self.unit_of_work(tenant_id, user_id) as work:
            # ownership first: it also takes the lock that orders concurrent turns
            if await work.execute(statements.touch_conversation, {**key, "now": stamp}) != 1:
                raise NotFound(f"conversation {conversation_id} not found")
            conversation = await self._readable(work, tenant_id, conversation_id, user_id)
            if parent_id is Attach.ACTIVE_LEAF:
                parent = conversation.active_leaf_id
            else:
                parent = parent_id
                link = {**key, "message_id": parent}
                if parent is not None and not await work.fetch_one(
                    statements.select_message_link, link
                ):
                    raise NotFound(f"message {parent} not found")
            if not messages:  # a context update alone (no turn): the active branch's
                await self._merge_context(
                    work, conversation, conversation.active_leaf_id, context, max_active_nodes
                )
                await work.commit()
                return saved
            merged = (await self._branch_context(work, conversation, parent)).with_nodes(
                context.active_node_ids, max_active_nodes
            )
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
                    "parent_id": parent,
                    # the branch's context as of this turn, on its last message
                    "context_node_ids": dialect.encode_list(merged.active_node_ids)
                    if offset == len(messages)
                    else None,
                    "now": stamp,
                }
                await work.execute(statements.insert_message, params)
                stored_message = StoredMessage(
                    **message.model_dump(),
                    id=message_id,
                    conversation_id=conversation_id,
                    created_at=now,
                    updated_at=now,
                    parent_id=parent,
                )
                saved.append(stored_message)
                parent = message_id
            await work.execute(statements.update_active_leaf, {**key, "leaf_id": parent})
            if summary is not None:  # the compaction this turn's prompt used (ADR 0065)
                summary_params = {
                    **key,
                    "summary_id": str(uuid.uuid4()),
                    "first_message_id": summary.first_message_id,
                    "last_message_id": summary.last_message_id,
                    "message_count": summary.message_count,
                    "summary": summary.summary,
                    "cited_node_ids": dialect.encode_list(summary.cited_node_ids),
                    "now": stamp,
                    "model_summary": summary.model_summary,
                    "model_summary_by": summary.model_summary_by,
                    "model_pending_lines": summary.model_pending_lines,
                    "base_last_message_id": summary.base_last_message_id,
                    "added_lines": summary.added_lines,
                }
                await work.execute(statements.insert_summary, summary_params)
            await work.commit()
        return saved

    async def summaries(
        self, tenant_id: str, conversation_id: str, *, user_id: str
    ) -> list[StoredSummary]:
        """The conversation's summaries, oldest first; owner only (else :class:`NotFound`)."""
        async with self.unit_of_work(tenant_id, user_id) as work:
            await self._owned(work, tenant_id, conversation_id, user_id)
            return await self._summaries(work, tenant_id, conversation_id, user_id)

    async def roll_back_summary(
        self, tenant_id: str, conversation_id: str, summary_id: str, *, user_id: str
    ) -> StoredSummary:
        """Mark a summary rolled back (once; again is a no-op); owner only, else
        :class:`NotFound`, like an unknown summary."""
        statements = self.dialect.statements
        key = {
            "tenant_id": tenant_id,
            "conversation_id": conversation_id,
            "user_id": user_id,
            "summary_id": summary_id,
        }
        now = self.dialect.timestamp(datetime.now(UTC))
        async with self.unit_of_work(tenant_id, user_id) as work:
            await self._owned(work, tenant_id, conversation_id, user_id)
            await work.execute(statements.roll_back_summary, {**key, "now": now})
            found = [
                s
                for s in await self._summaries(work, tenant_id, conversation_id, user_id)
                if s.id == summary_id
            ]
            if not found:
                raise NotFound(f"summary {summary_id} not found")
            await work.commit()
        return found[0]

    async def set_model_summary(
        self,
        tenant_id: str,
        conversation_id: str,
        last_message_id: str,
        text: str,
        by: str,
        *,
        user_id: str,
    ) -> bool:
        """Add a configured model's summary to the stored summary ending at
        ``last_message_id``; ``False`` (nothing written) when there is none any more (erased),
        it was rolled back, or it has one already that covers its whole range (a carried one,
        with pending lines, is replaced)."""
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        params = {
            **key,
            "last_message_id": last_message_id,
            "model_summary": text,
            "model_summary_by": by,
        }
        statements = self.dialect.statements
        async with self.unit_of_work(tenant_id, user_id) as work:
            rows = await self._summaries(work, tenant_id, conversation_id, user_id)
            changed = await work.execute(statements.set_model_summary, params)
            if changed == 1:  # carried to the rows later turns stored continuing it
                for row, pending in _continuing(rows, last_message_id):
                    await work.execute(
                        statements.carry_model_summary,
                        {
                            **params,
                            "last_message_id": row.last_message_id,
                            "model_pending_lines": pending,
                            "carried": row.model_summary or "",
                        },
                    )
            await work.commit()
        return changed == 1

    async def pin_message(
        self,
        tenant_id: str,
        conversation_id: str,
        message_id: str,
        *,
        user_id: str,
        pinned: bool = True,
    ) -> list[str]:
        """Pin or unpin one of the owner's messages; the pinned ids after it (at most
        ``_MAX_PINS`` per conversation: :class:`errors.InvalidInput` past it)."""
        statements = self.dialect.statements
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        params = {
            **key,
            "message_id": message_id,
            "now": self.dialect.timestamp(datetime.now(UTC)),
        }
        async with self.unit_of_work(tenant_id, user_id) as work:
            await self._owned(work, tenant_id, conversation_id, user_id)
            if await work.fetch_one(statements.select_message_link, params) is None:
                raise NotFound(f"message {message_id} not found")
            pins = [str(r["message_id"]) for r in await work.fetch_all(statements.select_pins, key)]
            if pinned and message_id not in pins:
                if len(pins) >= _MAX_PINS:
                    raise InvalidInput(f"at most {_MAX_PINS} pinned messages per conversation")
                await work.execute(statements.insert_pin, params)
                pins.append(message_id)
            elif not pinned and message_id in pins:
                await work.execute(statements.unpin_message, params)
                pins.remove(message_id)
            await work.commit()
        return pins

    async def pinned_message_ids(
        self, tenant_id: str, conversation_id: str, *, user_id: str
    ) -> list[str]:
        """The owner's pinned message ids, oldest pin first (anyone else: NotFound)."""
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        async with self.unit_of_work(tenant_id, user_id) as work:
            await self._owned(work, tenant_id, conversation_id, user_id)
            rows = await work.fetch_all(self.dialect.statements.select_pins, key)
        return [str(r["message_id"]) for r in rows]

    async def acquire_summary_lease(
        self,
        tenant_id: str,
        conversation_id: str,
        holder: str,
        seconds: float,
        *,
        user_id: str,
    ) -> bool:
        """Take the conversation's summary lease for ``seconds`` if it is free or expired."""
        now = datetime.now(UTC)
        params = {
            "tenant_id": tenant_id,
            "conversation_id": conversation_id,
            "user_id": user_id,
            "holder": holder,
            "now": self.dialect.timestamp(now),
            "expires_at": self.dialect.timestamp(now + timedelta(seconds=seconds)),
        }
        async with self.unit_of_work(tenant_id, user_id) as work:
            taken = await work.execute(self.dialect.statements.acquire_summary_lease, params)
            await work.commit()
        return taken == 1

    async def release_summary_lease(
        self, tenant_id: str, conversation_id: str, holder: str, *, user_id: str
    ) -> None:
        """Give the lease back, if ``holder`` still holds it."""
        params = {
            "tenant_id": tenant_id,
            "conversation_id": conversation_id,
            "user_id": user_id,
            "holder": holder,
        }
        async with self.unit_of_work(tenant_id, user_id) as work:
            await work.execute(self.dialect.statements.release_summary_lease, params)
            await work.commit()

    async def _owned(
        self, work: UnitOfWork, tenant_id: str, conversation_id: str, user_id: str
    ) -> Conversation:
        conversation = await self._readable(work, tenant_id, conversation_id, user_id)
        if conversation.user_id != user_id:  # a shared conversation's reader sees none
            raise NotFound(f"conversation {conversation_id} not found")
        return conversation

    async def _summaries(
        self, work: UnitOfWork, tenant_id: str, conversation_id: str, user_id: str
    ) -> list[StoredSummary]:
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        rows = await work.fetch_all(self.dialect.statements.select_summaries, key)
        return [
            StoredSummary.model_validate(
                {**row, "cited_node_ids": self.dialect.decode_list(row["cited_node_ids"])}
            )
            for row in rows
        ]

    async def checkpoint_answer(
        self,
        tenant_id: str,
        conversation_id: str,
        message_id: str,
        content: str,
        content_sanitised: str,
        *,
        user_id: str,
    ) -> bool:
        """Write the answer so far; ``False`` when the message is no longer ``streaming`` (or
        the conversation is not ``user_id``'s)."""
        params = {
            "tenant_id": tenant_id,
            "conversation_id": conversation_id,
            "user_id": user_id,
            "message_id": message_id,
            "content": content,
            "content_sanitised": content_sanitised,
            "now": self.dialect.timestamp(datetime.now(UTC)),
        }
        async with self.unit_of_work(tenant_id, user_id) as work:
            changed = await work.execute(self.dialect.statements.checkpoint_message, params)
            await work.commit()
        return changed == 1

    async def finish_answer(
        self,
        tenant_id: str,
        conversation_id: str,
        message_id: str,
        answer: NewMessage,
        context: ConversationContext,
        *,
        user_id: str,
        max_active_nodes: int = 40,
    ) -> bool:
        """Give a ``streaming`` answer its final text, status and nodes, and merge the turn's
        context, together. ``False`` (and nothing written) when it was finished already."""
        dialect, statements = self.dialect, self.dialect.statements
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        stamp = dialect.timestamp(datetime.now(UTC))
        params = {
            **key,
            "message_id": message_id,
            "content": answer.content,
            "content_sanitised": answer.content_sanitised,
            "status": answer.status,
            "referenced_nodes": dialect.encode_list(answer.referenced_nodes),
            "now": stamp,
        }
        async with self.unit_of_work(tenant_id, user_id) as work:
            # the conversation's lock first, in the same order as save_turn (no deadlock)
            if await work.execute(statements.touch_conversation, {**key, "now": stamp}) != 1:
                raise NotFound(f"conversation {conversation_id} not found")
            conversation = await self._readable(work, tenant_id, conversation_id, user_id)
            link = await work.fetch_one(
                statements.select_message_link, {**key, "message_id": message_id}
            )
            # the branch's context as it is now above the answer (an earlier turn of the same
            # branch may have finished meanwhile), with this turn's nodes in front
            above = await self._branch_context(
                work, conversation, str(link["parent_id"]) if link and link["parent_id"] else None
            )
            merged = above.with_nodes(context.active_node_ids, max_active_nodes)
            params["context_node_ids"] = dialect.encode_list(merged.active_node_ids)
            if await work.execute(statements.finish_message, params) != 1:
                return False  # rolled back: the conversation's touch is not kept either
            await self._merge_below(work, conversation, message_id, context, max_active_nodes)
            await work.commit()
        return True

    async def merge_context(
        self,
        tenant_id: str,
        conversation_id: str,
        message_id: str,
        context: ConversationContext,
        *,
        user_id: str,
        max_active_nodes: int = 40,
    ) -> None:
        """Put ``context``'s node ids in front of the branch context at ``message_id`` (a late
        capture's concepts join the branch of the answer that captured them, ADR 0062), and the
        answers saved below it since (:meth:`_merge_below`)."""
        statements = self.dialect.statements
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        stamp = self.dialect.timestamp(datetime.now(UTC))
        async with self.unit_of_work(tenant_id, user_id) as work:
            if await work.execute(statements.touch_conversation, {**key, "now": stamp}) != 1:
                raise NotFound(f"conversation {conversation_id} not found")
            conversation = await self._readable(work, tenant_id, conversation_id, user_id)
            if not await work.fetch_one(
                statements.select_message_link, {**key, "message_id": message_id}
            ):
                raise NotFound(f"message {message_id} not found")
            await self._merge_context(work, conversation, message_id, context, max_active_nodes)
            await self._merge_below(work, conversation, message_id, context, max_active_nodes)
            await work.commit()

    # -- a tenant's admin: users and usage (ADR 0041) ----------------------------------------

    async def tenant_users(self, tenant_id: str, limit: int = 500) -> list[TenantUser]:
        """The users owning conversations in the tenant, in id order, with their counts, last
        activity and own egress mode (one aggregate read, with the admin claim)."""
        params = {"tenant_id": tenant_id, "limit": limit}
        async with self.unit_of_work(tenant_id, admin=True) as work:
            rows = await work.fetch_all(self.dialect.statements.select_tenant_users, params)
        return [
            TenantUser(
                user_id=str(row["user_id"]),
                conversations=int(row["conversations"]),
                last_activity=row["last_activity"],
                egress_mode=row["egress_mode"],
            )
            for row in rows
        ]

    async def tenant_usage(
        self, tenant_id: str, since: datetime | None = None, limit: int = 500
    ) -> list[UserUsage]:
        """Per user with activity since ``since`` (all time when ``None``), in id order: the
        messages' and the egress audit's counts, read together (one unit of work)."""
        statements = self.dialect.statements
        params = {
            "tenant_id": tenant_id,
            "since": self.dialect.timestamp(since or _EPOCH),
            "limit": limit,
        }
        async with self.unit_of_work(tenant_id, admin=True) as work:
            messages = await work.fetch_all(statements.select_tenant_message_usage, params)
            calls = await work.fetch_all(statements.select_tenant_call_usage, params)
        usage: dict[str, UserUsage] = {}
        for row in messages:
            user = str(row["user_id"])
            usage[user] = UserUsage(
                user_id=user,
                conversations=int(row["conversations"]),
                user_messages=int(row["user_messages"]),
                answers=int(row["answers"]),
            )
        for row in calls:
            user = str(row["user_id"])
            found = usage.setdefault(user, UserUsage(user_id=user))
            found.model_calls = int(row["model_calls"])
            found.blocked_calls = int(row["blocked_calls"])
        return [usage[user] for user in sorted(usage)][:limit]

    # -- export, erasure, retention (ADR 0048) -------------------------------------------------

    async def export_conversations(
        self, tenant_id: str, *, user_id: str
    ) -> list[ExportedConversation]:
        """The conversations ``user_id`` owns, oldest first, with every message of every branch
        and the active branch's context (one unit of work)."""
        statements = self.dialect.statements
        params = {"tenant_id": tenant_id, "user_id": user_id}
        contexts: dict[str, ConversationContext] = {}
        async with self.unit_of_work(tenant_id, user_id) as work:
            conversations = [
                Conversation.model_validate(dict(row))
                for row in await work.fetch_all(statements.select_owned_conversations, params)
            ]
            rows = await work.fetch_all(statements.select_owned_messages, params)
            pins: defaultdict[str, list[str]] = defaultdict(list)
            for pin in await work.fetch_all(statements.select_owned_pins, params):
                pins[str(pin["conversation_id"])].append(str(pin["message_id"]))
            for conversation in conversations:
                contexts[conversation.id] = await self._branch_context(
                    work, conversation, conversation.active_leaf_id
                )
        messages: defaultdict[str, list[ExportedMessage]] = defaultdict(list)
        for row in rows:
            stored = self._message({**row, "content_sanitised": ""})
            messages[str(row["conversation_id"])].append(
                ExportedMessage(seq=int(row["seq"]), **stored.model_dump(exclude=_NOT_EXPORTED))
            )
        exported = []
        for conversation in conversations:
            own = messages.get(conversation.id, [])
            followed = {m.parent_id for m in own}
            leaves = [m.id for m in own if m.id not in followed]
            exported.append(
                ExportedConversation(
                    id=conversation.id,
                    visibility=conversation.visibility,
                    created_at=conversation.created_at,
                    updated_at=conversation.updated_at,
                    active_node_ids=contexts[conversation.id].active_node_ids,
                    active_leaf_id=conversation.active_leaf_id,
                    branches=leaves if len(leaves) > 1 else [],
                    messages=own,
                    pinned_message_ids=pins.get(conversation.id, []),
                )
            )
        return exported

    async def erase_conversation(
        self, tenant_id: str, conversation_id: str, *, user_id: str, requested_by: str
    ) -> ErasureRecord:
        """Erase one conversation ``user_id`` owns and record it, in one unit of work;
        :class:`errors.NotFound` for anything else (another user's, another tenant's)."""
        async with self.unit_of_work(tenant_id, user_id, erasure=True) as work:
            totals = await self._erase_one(work, tenant_id, user_id, conversation_id)
            if totals is None:
                raise NotFound(f"conversation {conversation_id} not found")
            record = await self._record(
                work, tenant_id, "conversation", user_id, conversation_id, requested_by, totals
            )
            await work.commit()
        await self._after_erasure()
        return record

    async def erase_conversations(
        self, tenant_id: str, *, user_id: str, requested_by: str, kind: ErasureKind
    ) -> ErasureRecord:
        """Every conversation ``user_id`` owns, one unit of work each (a user with many never
        holds the store for long; a failure half-way leaves whole conversations, and asking
        again finishes the work), then, for ``kind`` ``user``, their egress policy and their id
        on the egress audit, and the record, together."""
        if kind not in ("all_conversations", "user"):
            raise ValueError(f"not an erasure of a user's conversations: {kind}")
        statements = self.dialect.statements
        key = {"tenant_id": tenant_id, "user_id": user_id}
        async with self.unit_of_work(tenant_id, user_id) as work:
            ids = [
                str(row["id"])
                for row in await work.fetch_all(statements.select_owned_conversation_ids, key)
            ]
        totals = ErasureTotals()
        erase_user = kind == "user"
        for conversation_id in ids:
            async with self.unit_of_work(tenant_id, user_id, erasure=True) as work:
                erased = await self._erase_one(
                    work, tenant_id, user_id, conversation_id, user_erased=erase_user
                )
                await work.commit()
            if erased is not None:  # else: erased meanwhile (the user, the retention job)
                totals = totals.plus(erased)
        async with self.unit_of_work(tenant_id, user_id, erasure=True) as work:
            policies = 0
            if erase_user:
                calls = await work.execute(statements.anonymise_user_calls, key)
                totals = totals.plus(ErasureTotals(model_calls=calls))
                policies = await work.execute(statements.delete_user_policy, key)
                await work.execute(statements.delete_user_conversation_scenarios, key)
                scenarios = await work.execute(statements.delete_user_scenarios, key)
                await self._fold_usage(work, tenant_id, user_id)
                if not (ids or calls or policies or scenarios):
                    raise NotFound(f"user {user_id} not found")  # nothing of them here
            record = await self._record(work, tenant_id, kind, user_id, None, requested_by, totals)
            await work.commit()
        await self._after_erasure()
        return record

    async def erase_expired(self, before: datetime, batch: int = 200) -> ErasureTotals:
        """Erase every tenant's conversations last written before ``before``, in the owner's
        name, one unit of work each; each is locked and checked against ``before`` again
        first, so a conversation written meanwhile stays and a second worker running the same
        job skips what the first erased. One record per tenant with anything erased."""
        statements = self.dialect.statements
        everything = ErasureTotals()
        for tenant_id in await self.tenant_ids():
            totals = ErasureTotals()
            params = {"tenant_id": tenant_id, "before": self.dialect.timestamp(before)}
            for _ in range(_RETENTION_ROUNDS):
                async with self.unit_of_work(tenant_id, admin=True) as work:
                    expired = await work.fetch_all(
                        statements.select_expired_conversations, {**params, "limit": batch}
                    )
                for row in expired:
                    owner = str(row["user_id"])
                    async with self.unit_of_work(tenant_id, owner, erasure=True) as work:
                        erased = await self._erase_one(
                            work, tenant_id, owner, str(row["id"]), before=before
                        )
                        await work.commit()
                    if erased is not None:
                        totals = totals.plus(erased)
                if len(expired) < batch:
                    break
            if totals.conversations:
                async with self.unit_of_work(tenant_id) as work:
                    await self._record(work, tenant_id, "expired", "", None, _RETENTION, totals)
                    await work.commit()
            everything = everything.plus(totals)
        if everything.conversations:
            await self._after_erasure()
        return everything

    async def erasures(self, tenant_id: str, limit: int = 100) -> list[ErasureRecord]:
        """The tenant's erasure audit trail, newest first."""
        params = {"tenant_id": tenant_id, "limit": limit}
        async with self.unit_of_work(tenant_id) as work:
            rows = await work.fetch_all(self.dialect.statements.select_erasures, params)
        return [ErasureRecord.model_validate(dict(row)) for row in rows]

    async def _after_erasure(self) -> None:
        """What an adapter does once an erasure committed (SQLite: empty its log)."""
        return None

    async def tenant_ids(self) -> list[str]:
        """Every tenant's id, for the retention job: the only read across tenants (the
        adapters give it; on PostgreSQL a claim of the job's own lets row-level security show
        the ids and nothing else)."""
        raise NotImplementedError

    async def _erase_one(
        self,
        work: UnitOfWork,
        tenant_id: str,
        user_id: str,
        conversation_id: str,
        *,
        before: datetime = _FOREVER,
        user_erased: bool = False,
    ) -> ErasureTotals | None:
        """Erase one conversation of ``user_id`` inside ``work``; ``None`` (nothing done) if
        it is not theirs, is gone, or was written since ``before``.

        The conversation's row lock comes first (a turn's saves take it first too, so a save
        either lands before and is erased, or comes after and finds no conversation), then the
        vault's lock of the conversation (a sanitisation in flight either lands before or
        reads the erased id and stores nothing)."""
        dialect, statements = self.dialect, self.dialect.statements
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        lock = {**key, "before": dialect.timestamp(before)}
        if await work.fetch_one(statements.lock_owned_conversation, lock) is None:
            return None
        if statements.lock_pseudonyms is not None:
            await work.execute(statements.lock_pseudonyms, key)
        counted = await work.fetch_one(statements.count_conversation_messages, key)
        pseudonyms = await work.execute(statements.delete_pseudonyms, key)
        await work.execute(statements.delete_summaries, key)
        await work.execute(statements.delete_summary_leases, key)
        await work.execute(statements.delete_pinned_messages, key)
        await work.execute(statements.delete_conversation_scenarios, key)
        await work.execute(statements.delete_messages, key)
        await work.execute(statements.delete_context, key)
        calls = await work.execute(
            statements.anonymise_erased_user_calls
            if user_erased
            else statements.anonymise_conversation_calls,
            key,
        )
        now = dialect.timestamp(datetime.now(UTC))
        await work.execute(
            statements.insert_erased_conversation, {**key, "user_erased": user_erased, "now": now}
        )
        await work.execute(statements.delete_conversation, key)
        return ErasureTotals(
            conversations=1,
            questions=int(counted["questions"]) if counted else 0,
            answers=int(counted["answers"]) if counted else 0,
            pseudonyms=pseudonyms,
            model_calls=calls,
        )

    async def _record(
        self,
        work: UnitOfWork,
        tenant_id: str,
        kind: ErasureKind,
        subject_user_id: str,
        conversation_id: str | None,
        requested_by: str,
        totals: ErasureTotals,
    ) -> ErasureRecord:
        """Append the erasure's record (counts, never text) to the audit trail, in ``work``."""
        now = datetime.now(UTC)
        fields = {
            "kind": kind,
            "subject_user_id": subject_user_id,
            "conversation_id": conversation_id,
            "requested_by": requested_by,
            **totals.model_dump(),
        }
        params = {"tenant_id": tenant_id, **fields, "now": self.dialect.timestamp(now)}
        await work.execute(self.dialect.statements.insert_erasure, params)
        return ErasureRecord(at=now, **fields)

    # -- token usage (ADR 0050) -----------------------------------------------------------------

    async def record_usage(self, tenant_id: str, user_id: str, entry: UsageEntry) -> None:
        """Add one turn's tokens and cost to the user's day (one upsert that adds)."""
        params = {
            "tenant_id": tenant_id,
            "user_id": user_id,
            **entry.model_dump(exclude={"day"}),
            "day": entry.day.isoformat(),
            "turns": 1,
        }
        async with self.unit_of_work(tenant_id, user_id) as work:
            await work.execute(self.dialect.statements.upsert_usage, params)
            await work.commit()

    async def usage_by_model(
        self, tenant_id: str, since: date, *, user_id: str | None = None
    ) -> list[ModelUsage]:
        """Totals per provider and model since ``since``: the user's, or the tenant's."""
        statements = self.dialect.statements
        params = {"tenant_id": tenant_id, "user_id": user_id, "since": since.isoformat()}
        statement = (
            statements.select_tenant_usage_by_model
            if user_id is None
            else statements.select_user_usage_by_model
        )
        async with self.unit_of_work(tenant_id, user_id) as work:
            rows = await work.fetch_all(statement, params)
        return [
            ModelUsage(provider=str(row["provider"]), model=str(row["model"]), **_totals(row))
            for row in rows
        ]

    async def usage_by_user(
        self, tenant_id: str, since: date, limit: int = 20
    ) -> list[UserTokenUsage]:
        """The tenant's users with usage since ``since``, heaviest first."""
        params = {"tenant_id": tenant_id, "since": since.isoformat(), "limit": limit}
        async with self.unit_of_work(tenant_id) as work:
            rows = await work.fetch_all(self.dialect.statements.select_tenant_usage_by_user, params)
        return [UserTokenUsage(user_id=str(row["user_id"]), **_totals(row)) for row in rows]

    async def _fold_usage(self, work: UnitOfWork, tenant_id: str, user_id: str) -> None:
        """An erased user's usage rows become the user ``(erased)``'s (added to any there)."""
        statements = self.dialect.statements
        key = {"tenant_id": tenant_id, "user_id": user_id}
        for row in await work.fetch_all(statements.select_user_usage_rows, key):
            await work.execute(
                statements.upsert_usage,
                {
                    "tenant_id": tenant_id,
                    "user_id": ERASED,
                    "day": str(row["day"]),
                    "provider": row["provider"],
                    "model": row["model"],
                    **_totals(row),
                },
            )
        await work.execute(statements.delete_user_usage, key)

    # -- helpers ---------------------------------------------------------------------------

    async def _read_one(
        self, statement: str, tenant_id: str, conversation_id: str, user_id: str
    ) -> Row:
        params = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        async with self.unit_of_work(tenant_id, user_id) as work:
            row = await work.fetch_one(statement, params)
        if row is None:
            raise NotFound(f"conversation {conversation_id} not found")
        return row

    async def _readable(
        self, work: UnitOfWork, tenant_id: str, conversation_id: str, user_id: str
    ) -> Conversation:
        """The conversation ``user_id`` may read, inside ``work``; else :class:`NotFound`."""
        params = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        row = await work.fetch_one(self.dialect.statements.select_conversation, params)
        if row is None:
            raise NotFound(f"conversation {conversation_id} not found")
        return Conversation.model_validate(dict(row))

    def _branch_key(self, conversation: Conversation, message_id: str | None) -> Params:
        return {
            "tenant_id": conversation.tenant_id,
            "conversation_id": conversation.id,
            "user_id": conversation.user_id,
            "message_id": message_id,
        }

    async def _branch(
        self, work: UnitOfWork, conversation: Conversation, leaf: str | None, limit: int
    ) -> list[StoredMessage]:
        """The last ``limit`` messages of the branch ending at ``leaf``, oldest first."""
        if leaf is None or limit < 1:
            return []
        params = {**self._branch_key(conversation, leaf), "limit": limit}
        rows = await work.fetch_all(self.dialect.statements.select_branch_messages, params)
        return [self._message(row) for row in reversed(rows)]

    async def _branch_since_summary(
        self, work: UnitOfWork, conversation: Conversation, leaf: str | None, limit: int
    ) -> tuple[list[StoredMessage], str | None, StoredMessage | None]:
        """The branch ending at ``leaf`` after the nearest summary end up it (oldest first, at
        most ``limit`` deep), that summary's last message id, and the branch's first message
        (without a summary end: ``None``, the history reaches it)."""
        if leaf is None or limit < 1:
            return [], None, None
        statements = self.dialect.statements
        params = {**self._branch_key(conversation, leaf), "limit": limit}
        rows = await work.fetch_all(statements.select_branch_since_summary, params)
        history = [self._message(_without_part(r)) for r in rows if int(r["part"]) == 1]
        through = next((str(r["id"]) for r in rows if int(r["part"]) == 2), None)
        if through is None:
            return history[::-1], None, None
        roots = await work.fetch_all(statements.select_branch_roots, params)
        if len(roots) > 1:  # its first question was edited: the root of this branch
            roots = await work.fetch_all(
                statements.select_branch_root, {**params, "message_id": through}
            )
        first = self._message(roots[0]) if roots else None
        return history[::-1], through, first

    async def _branch_context(
        self, work: UnitOfWork, conversation: Conversation, leaf: str | None
    ) -> ConversationContext:
        """The context of the branch ending at ``leaf`` (ADR 0062)."""
        params = self._branch_key(conversation, leaf)
        row = await work.fetch_one(self.dialect.statements.select_branch_context, params)
        nodes = self.dialect.decode_list(row["active_node_ids"]) if row else []
        return ConversationContext(active_node_ids=nodes)

    async def _links(self, work: UnitOfWork, conversation: Conversation) -> list[MessageLink]:
        """The conversation's tree without text, in seq order."""
        params = self._branch_key(conversation, None)
        rows = await work.fetch_all(self.dialect.statements.select_message_links, params)
        return [MessageLink.model_validate(dict(row)) for row in rows]

    async def _merge_context(
        self,
        work: UnitOfWork,
        conversation: Conversation,
        at: str | None,
        context: ConversationContext,
        max_active_nodes: int,
    ) -> None:
        """Put the node ids in front of the branch context at message ``at``, stored on it
        (no message yet: on the conversation's contexts row), under the conversation's lock."""
        dialect, statements = self.dialect, self.dialect.statements
        merged = (await self._branch_context(work, conversation, at)).with_nodes(
            context.active_node_ids, max_active_nodes
        )
        active = dialect.encode_list(merged.active_node_ids)
        key = self._branch_key(conversation, at)
        if at is not None:
            await work.execute(
                statements.update_message_context, {**key, "context_node_ids": active}
            )
            return
        stamp = dialect.timestamp(datetime.now(UTC))
        await work.execute(
            statements.update_context, {**key, "active_node_ids": active, "now": stamp}
        )

    async def _merge_below(
        self,
        work: UnitOfWork,
        conversation: Conversation,
        message_id: str,
        context: ConversationContext,
        max_active_nodes: int,
    ) -> None:
        """A turn's nodes into the answers saved below its answer since it started (a turn
        that continued the branch while this one streamed took its context before them).
        The usual case, the answer is still the active leaf, has nothing below it: no read."""
        if conversation.active_leaf_id == message_id:
            return
        for later in _answers_below(await self._links(work, conversation), message_id):
            await self._merge_context(work, conversation, later, context, max_active_nodes)

    def _message(self, row: Row) -> StoredMessage:
        nodes = self.dialect.decode_list(row["referenced_nodes"])
        message = StoredMessage.model_validate({**row, "referenced_nodes": nodes})
        if message.status == "streaming":
            written = message.updated_at or message.created_at
            if datetime.now(UTC) - written > timedelta(seconds=self.stream_lease):
                message.status = "interrupted"  # nobody writes it any more: its process died
        return message


def _without_part(row: Row) -> dict[str, object]:
    return {key: value for key, value in row.items() if key != "part"}


def _answers_below(links: list[MessageLink], message_id: str) -> list[str]:
    """The answers below ``message_id`` in the conversation's tree, parents first."""
    children: dict[str | None, list[MessageLink]] = {}
    for link in links:
        children.setdefault(link.parent_id, []).append(link)
    below, frontier = [], [message_id]
    while frontier:
        step = [child for parent in frontier for child in children.get(parent, [])]
        below += [link.id for link in step if link.role == "assistant"]
        frontier = [link.id for link in step]
    return below


def _totals(row: Row) -> dict[str, int]:
    """A usage row's sums as ints (PostgreSQL's ``SUM`` of a bigint is a numeric)."""
    return {name: int(row[name] or 0) for name in UsageTotals.model_fields}


def _latest_leaf(links: list[MessageLink], message_id: str) -> str:
    """The leaf a switch to ``message_id`` makes active: from it down, the most recent message
    that follows at each step (:class:`NotFound` for a message of no branch here)."""
    if message_id not in {link.id for link in links}:
        raise NotFound(f"message {message_id} not found")
    latest: dict[str | None, str] = {}
    for link in links:  # in seq order: the last one written wins
        latest[link.parent_id] = link.id
    leaf = message_id
    while leaf in latest:
        leaf = latest[leaf]
    return leaf


def _continuing(rows: list[StoredSummary], last_message_id: str) -> list[tuple[StoredSummary, int]]:
    """The rows that continue the row ending at ``last_message_id``, directly or through one
    another, and still carry what it carried before its model summary landed (a row whose own
    call covered it since, or rolled back, ends that chain), each with the lines it and the rows
    between added: what the landed summary does not cover (ADR 0065 session 8 addendum)."""
    by_last = {row.last_message_id: row for row in rows}
    start = by_last.get(last_message_id)
    if start is None:
        return []
    carried = start.model_summary
    added = {last_message_id: 0}
    found: list[tuple[StoredSummary, int]] = []
    for row in rows:  # oldest first: a row is stored after the one it continues
        base = row.base_last_message_id
        if base is None or base not in added or row.last_message_id in added:
            continue
        if row.rolled_back_at is not None or row.model_summary != carried:
            continue
        pending = added[base] + row.added_lines
        added[row.last_message_id] = pending
        found.append((row, min(pending, len(row.summary.splitlines()))))
    return found
