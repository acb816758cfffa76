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
    Conversation,
    ConversationContext,
    ConversationSummary,
    ErasureKind,
    ErasureRecord,
    ErasureTotals,
    ExportedConversation,
    ExportedMessage,
    ModelUsage,
    NewMessage,
    StoredMessage,
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
from errors import ConversationReadOnly, NotFound

__all__ = ["SqlConversationStore"]

# a message's fields the export leaves out: its sanitised form is the store's, not the user's
_NOT_EXPORTED = {"content_sanitised", "conversation_id"}

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # "since the beginning" for a usage window
_FOREVER = datetime(9999, 12, 31, tzinfo=UTC)  # erasure on request: whenever last written
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
        statement = self.dialect.statements.select_context
        row = await self._read_one(statement, tenant_id, conversation_id, user_id)
        return ConversationContext(active_node_ids=self.dialect.decode_list(row["active_node_ids"]))

    async def recent_messages(
        self, tenant_id: str, conversation_id: str, limit: int, *, user_id: str
    ) -> list[StoredMessage]:
        """The last ``limit`` messages, oldest first (none of a conversation the user may not
        read)."""
        params = {
            "tenant_id": tenant_id,
            "conversation_id": conversation_id,
            "user_id": user_id,
            "limit": limit,
        }
        async with self.unit_of_work(tenant_id, user_id) as work:
            rows = await work.fetch_all(self.dialect.statements.select_recent_messages, params)
        return [self._message(row) for row in reversed(rows)]

    async def load_turn(
        self, tenant_id: str, conversation_id: str, history_limit: int, *, user_id: str
    ) -> ConversationState:
        """The conversation, its last ``history_limit`` messages and its context in one unit
        of work (three reads, one transaction: ADR 0029, second pass)."""
        statements = self.dialect.statements
        params = {
            "tenant_id": tenant_id,
            "conversation_id": conversation_id,
            "user_id": user_id,
            "limit": history_limit,
        }
        async with self.unit_of_work(tenant_id, user_id) as work:
            row = await work.fetch_one(statements.select_conversation, params)
            if row is None:
                raise NotFound(f"conversation {conversation_id} not found")
            rows = await work.fetch_all(statements.select_recent_messages, params)
            context = await work.fetch_one(statements.select_context, params)
        if context is None:
            raise NotFound(f"conversation {conversation_id} not found")
        return ConversationState(
            conversation=Conversation.model_validate(dict(row)),
            history=[self._message(message) for message in reversed(rows)],
            context=ConversationContext(
                active_node_ids=self.dialect.decode_list(context["active_node_ids"])
            ),
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
    ) -> list[StoredMessage]:
        """Save the messages of a turn and the context update together, or nothing; only the
        conversation's owner may (anyone else: :class:`errors.NotFound`)."""
        dialect, statements = self.dialect, self.dialect.statements
        now = datetime.now(UTC)
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        stamp = dialect.timestamp(now)
        saved: list[StoredMessage] = []
        async with self.unit_of_work(tenant_id, user_id) as work:
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
                    updated_at=now,
                )
                saved.append(stored_message)
            await self._merge_context(work, key, context, max_active_nodes, stamp)
            await work.commit()
        return saved

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
            if await work.execute(statements.finish_message, params) != 1:
                return False  # rolled back: the conversation's touch is not kept either
            await self._merge_context(work, key, context, max_active_nodes, stamp)
            await work.commit()
        return True

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
        """The conversations ``user_id`` owns, oldest first, with every message and the context
        (two reads, one unit of work)."""
        dialect, statements = self.dialect, self.dialect.statements
        params = {"tenant_id": tenant_id, "user_id": user_id}
        async with self.unit_of_work(tenant_id, user_id) as work:
            conversations = await work.fetch_all(statements.select_owned_conversations, params)
            rows = await work.fetch_all(statements.select_owned_messages, params)
        messages: defaultdict[str, list[ExportedMessage]] = defaultdict(list)
        for row in rows:
            stored = self._message({**row, "content_sanitised": ""})
            messages[str(row["conversation_id"])].append(
                ExportedMessage(seq=int(row["seq"]), **stored.model_dump(exclude=_NOT_EXPORTED))
            )
        return [
            ExportedConversation(
                id=str(row["id"]),
                visibility=row["visibility"],
                created_at=row["created_at"],
                updated_at=row["updated_at"],
                active_node_ids=dialect.decode_list(row["active_node_ids"])
                if row["active_node_ids"] is not None
                else [],
                messages=messages.get(str(row["id"]), []),
            )
            for row in conversations
        ]

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

    async def _merge_context(
        self,
        work: UnitOfWork,
        key: Params,
        context: ConversationContext,
        max_active_nodes: int,
        stamp: object,
    ) -> None:
        """Put the turn's node ids in front of the stored ones, under the context's row lock."""
        dialect, statements = self.dialect, self.dialect.statements
        stored = await work.fetch_one(statements.select_context_for_update, key)
        merged = ConversationContext(
            active_node_ids=dialect.decode_list(stored["active_node_ids"]) if stored else []
        ).with_nodes(context.active_node_ids, max_active_nodes)
        active = dialect.encode_list(merged.active_node_ids)
        await work.execute(
            statements.update_context, {**key, "active_node_ids": active, "now": stamp}
        )

    def _message(self, row: Row) -> StoredMessage:
        nodes = self.dialect.decode_list(row["referenced_nodes"])
        message = StoredMessage.model_validate({**row, "referenced_nodes": nodes})
        if message.status == "streaming":
            written = message.updated_at or message.created_at
            if datetime.now(UTC) - written > timedelta(seconds=self.stream_lease):
                message.status = "interrupted"  # nobody writes it any more: its process died
        return message


def _totals(row: Row) -> dict[str, int]:
    """A usage row's sums as ints (PostgreSQL's ``SUM`` of a bigint is a numeric)."""
    return {name: int(row[name] or 0) for name in UsageTotals.model_fields}
