"""The ``ConversationStore`` port: per-tenant conversations, messages and context.

Every call takes ``tenant_id`` and is scoped by it; another tenant's conversation id is
reported as :class:`errors.NotFound`, exactly like an id that does not exist. Inside a tenant,
every call on a conversation also takes the calling ``user_id`` (keyword-only, so it cannot be
swapped with an id): reads see the user's own conversations and those their owners shared with
the tenant (``visibility = "tenant"``); writes touch only the user's own. Another user's private
conversation is :class:`errors.NotFound` too (ADR 0025).

:class:`ConversationBackend` is what the composition root holds: the store, which also hands
out the egress ports kept in its own database (:class:`EgressAdapters`) and the users'
scenarios (:class:`ScenarioStore`), so the caller never switches on the backend's type.

Narrow ports name what each caller uses: the turn depends on :class:`TurnStore` (six methods),
the conversation routes on :class:`ConversationQueries`, a tenant admin's users and usage views
on :class:`TenantAdminQueries`, export and erasure on :class:`ConversationExport` and
:class:`ConversationErasure`, a configured model's background summary on
:class:`ModelSummaryStore`; :class:`ConversationStore` is all of them plus migrations,
sharing, health and lifetime. After :meth:`ConversationStore.aclose` every call
raises :class:`errors.AdapterClosed`; nothing reopens silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Protocol

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
    ModelUsage,
    NewMessage,
    NewSummary,
    StoredMessage,
    StoredScenario,
    StoredSummary,
    TenantUser,
    UsageEntry,
    UserTokenUsage,
    UserUsage,
    Visibility,
)
from egress.audit import AuditSink
from egress.policy import PolicyStore, TenantPolicy, UserPolicy
from egress.sanitiser import PseudonymVault

__all__ = [
    "ConversationBackend",
    "ConversationErasure",
    "ConversationExport",
    "ConversationQueries",
    "ConversationState",
    "ConversationStore",
    "EgressAdapters",
    "MessagePins",
    "ModelSummaryStore",
    "PolicyAdmin",
    "ScenarioStore",
    "SummaryLeases",
    "TenantAdminQueries",
    "TurnStore",
    "UsageLedger",
]


@dataclass(frozen=True)
class ConversationState:
    """What a turn reads of its conversation before the model is called."""

    conversation: Conversation
    history: list[StoredMessage]  # the last messages of the turn's branch, oldest first
    context: ConversationContext  # that branch's
    # where the turn's messages attach: the active leaf, or the parent of the message an edit
    # or a regeneration branches at (None: the conversation's first message)
    parent_id: str | None = None
    branched: StoredMessage | None = None  # the message branched at (an edit's, a regeneration's)
    # the conversation's summaries (compaction, ADR 0065), oldest first, rolled back included
    summaries: tuple[StoredSummary, ...] = ()
    # read ``since_summary``: the last message of the summary ``history`` follows (None: the
    # history reaches the branch's start, or the limit), and the branch's first message
    summarised_through: str | None = None
    first: StoredMessage | None = None
    # the owner's pinned messages on the turn's branch, oldest first (compaction keeps them
    # word for word, ADR 0065 session 8 addendum)
    pinned: tuple[StoredMessage, ...] = ()


class TurnStore(Protocol):
    """What one chat turn needs of the store: start or load its conversation, save the turn,
    write the answer as it streams and finish it. The turn depends on this port only."""

    async def create_conversation(self, tenant_id: str, user_id: str) -> Conversation: ...

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
        """The conversation (as :meth:`get_conversation`), the last ``history_limit`` messages
        of the branch the turn continues and that branch's context, read together (one
        transaction): what a turn needs before the call.

        ``since_summary`` (compaction, ADR 0065 addendum; not with ``branch_at``): the history
        stops after the nearest message up the branch that ends a summary not rolled back
        (``summarised_through``), and ``first`` is the branch's first message. ``pinned``
        (compaction): the owner's pinned messages up the branch, at most ``history_limit`` deep.

        The branch ends at the active leaf; with ``branch_at`` (an edit or a regeneration, ADR
        0062), at that message's parent, where the new branch starts (an unknown message, or
        one of another conversation: :class:`errors.NotFound`)."""
        ...

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
        """Save the messages of a turn and the context update together, or nothing.

        ``summary``: the compaction the turn's prompt used (ADR 0065), stored in the same
        transaction unless one ending at the same message is stored already.

        Only the conversation's owner may: anyone else gets :class:`errors.NotFound`.

        The messages follow one another from ``parent_id`` (``None``: a first message; by
        default the active leaf, read under the conversation's lock); the last becomes the
        active leaf (ADR 0062). A ``parent_id`` that is no message of the conversation is
        :class:`errors.NotFound`.

        ``context`` holds the node ids this turn made active; inside the same transaction they
        are merged in front of the branch's context, bounded to ``max_active_nodes``, and
        stored on the last message (without messages: on the active leaf).
        """
        ...

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
        """Merge node ids in front of the branch context at ``message_id`` (a late capture's
        concepts join the branch of the answer that captured them); owner only."""
        ...

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
        """Write the text so far of an answer saved ``streaming`` by :meth:`save_turn`.

        ``False``, and nothing written, once the answer is no longer ``streaming``."""
        ...

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
        """Give a ``streaming`` answer its final content, status and referenced nodes and merge
        the turn's context, together; ``False`` (nothing written) if it was finished already."""
        ...


class ConversationQueries(Protocol):
    """What the conversation routes read: a user's conversations, one of them, its context and
    its messages."""

    async def list_conversations(
        self, tenant_id: str, user_id: str, limit: int, offset: int = 0
    ) -> list[ConversationSummary]:
        """The conversations ``user_id`` may read (own and shared), most recently updated first;
        ``offset`` skips that many (pages of ``limit``)."""
        ...

    async def get_conversation(
        self, tenant_id: str, conversation_id: str, *, user_id: str
    ) -> Conversation:
        """A conversation ``user_id`` may read (own or shared), else :class:`errors.NotFound`."""
        ...

    async def load_context(
        self, tenant_id: str, conversation_id: str, *, user_id: str
    ) -> ConversationContext: ...

    async def recent_messages(
        self, tenant_id: str, conversation_id: str, limit: int, *, user_id: str
    ) -> list[StoredMessage]:
        """The last ``limit`` messages of the active branch, oldest first."""
        ...

    async def conversation_view(
        self,
        tenant_id: str,
        conversation_id: str,
        limit: int,
        *,
        user_id: str,
        through: str | None = None,
    ) -> ConversationView:
        """The conversation, its active branch's last ``limit`` messages, that branch's context
        and each message's siblings (the branch points), read together (ADR 0062).
        ``through``: the branch a switch to that message would show instead (a preview:
        nothing changes); a message of no branch here is :class:`errors.NotFound`."""
        ...


class TenantAdminQueries(Protocol):
    """What a tenant's admin reads of its own tenant (ADR 0041): its users and their usage.

    Aggregates only (counts and times, never a message's text or a conversation's title), and
    only of ``tenant_id``: another tenant's users never appear. On PostgreSQL these reads carry
    the admin claim, which row-level security requires to see every user of the tenant."""

    async def tenant_users(self, tenant_id: str, limit: int = 500) -> list[TenantUser]:
        """The users that own conversations in the tenant, in id order (at most ``limit``),
        each with their conversation count, last activity and own egress mode, if any."""
        ...

    async def tenant_usage(
        self, tenant_id: str, since: datetime | None = None, limit: int = 500
    ) -> list[UserUsage]:
        """Per user of the tenant with any activity since ``since`` (all time when ``None``),
        in id order (at most ``limit``): conversations started, questions, answers and the
        model calls the egress audit recorded."""
        ...


class ConversationExport(Protocol):
    """What the export route reads (GDPR Articles 15 and 20, ADR 0048)."""

    async def export_conversations(
        self, tenant_id: str, *, user_id: str
    ) -> list[ExportedConversation]:
        """Every conversation ``user_id`` owns in the tenant (never one shared with them), oldest
        first, each with all its messages (oldest first) and its context."""
        ...


class ConversationErasure(Protocol):
    """Erasure and retention (GDPR Article 17, ADR 0048): the privacy routes and the retention
    job depend on this port only.

    Erasing a conversation deletes its messages, its context, the egress vault's originals of
    it and the conversation itself, takes its id off the egress audit's records (their counts
    stay), remembers the id (a turn still running writes nothing back) and appends a record of
    counts to the erasure audit trail, never any text. Only the owner's own conversations are
    erased (a tenant admin's erasure of a user and the retention job act in the owner's name);
    another user's or tenant's id is :class:`errors.NotFound`."""

    async def erase_conversation(
        self, tenant_id: str, conversation_id: str, *, user_id: str, requested_by: str
    ) -> ErasureRecord:
        """Erase one conversation ``user_id`` owns; :class:`errors.NotFound` otherwise."""
        ...

    async def erase_conversations(
        self, tenant_id: str, *, user_id: str, requested_by: str, kind: ErasureKind
    ) -> ErasureRecord:
        """Erase every conversation ``user_id`` owns in the tenant, one unit of work each.

        ``kind`` ``all_conversations``: the user asked. ``user``: their admin erases the user:
        also their own egress policy, and their id is taken off every egress audit record;
        :class:`errors.NotFound` when the tenant holds nothing of them."""
        ...

    async def erase_expired(self, before: datetime, batch: int = 200) -> ErasureTotals:
        """The retention job: erase every tenant's conversations last written before ``before``
        (one record per tenant that had any). Safe to run in several workers at once: each
        conversation is erased by one of them, the others find it gone."""
        ...

    async def erasures(self, tenant_id: str, limit: int = 100) -> list[ErasureRecord]:
        """The tenant's erasure audit trail, newest first."""
        ...


class UsageLedger(Protocol):
    """Token usage and cost per tenant, user, day, provider and model (ADR 0050): counts only.

    Kept when a user is erased, without their id (ADR 0048)."""

    async def record_usage(self, tenant_id: str, user_id: str, entry: UsageEntry) -> None:
        """Add one turn's tokens and cost to the user's day (one upsert)."""
        ...

    async def usage_by_model(
        self, tenant_id: str, since: date, *, user_id: str | None = None
    ) -> list[ModelUsage]:
        """Totals per provider and model since ``since`` (a day, included): the user's own, or
        the tenant's (``user_id`` ``None``)."""
        ...

    async def usage_by_user(
        self, tenant_id: str, since: date, limit: int = 20
    ) -> list[UserTokenUsage]:
        """The tenant's users with usage since ``since``, the heaviest (by cost, then tokens)
        first."""
        ...


class ModelSummaryStore(Protocol):
    """Where a configured model's summary of a branch's older messages goes, after the turn
    that stored the extractive one (compaction, ADR 0065 third addendum)."""

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
        """Add ``text`` (sanitised) by ``by`` (``provider:model``) to the owner's stored summary
        ending at ``last_message_id``; ``False`` when it is gone (erased), rolled back or has
        one already."""
        ...


class MessagePins(Protocol):
    """The owner's pinned messages of a conversation (compaction keeps them word for word on
    the branches through them, ADR 0065 session 8 addendum). Anyone else, and a message that
    is not the conversation's: :class:`errors.NotFound`."""

    async def pin_message(
        self,
        tenant_id: str,
        conversation_id: str,
        message_id: str,
        *,
        user_id: str,
        pinned: bool = True,
    ) -> list[str]:
        """Pin (or unpin) the message; the conversation's pinned message ids after it."""
        ...

    async def pinned_message_ids(
        self, tenant_id: str, conversation_id: str, *, user_id: str
    ) -> list[str]: ...


class SummaryLeases(Protocol):
    """One summary call at a time per conversation across workers (ADR 0065 session 8
    addendum): the store's table, or Redis (``infra.summary_lease.RedisSummaryLeases``)."""

    async def acquire_summary_lease(
        self,
        tenant_id: str,
        conversation_id: str,
        holder: str,
        seconds: float,
        *,
        user_id: str,
    ) -> bool:
        """Hold the conversation's lease for ``seconds`` as ``holder``; ``False`` when another
        holder has it and it has not expired."""
        ...

    async def release_summary_lease(
        self, tenant_id: str, conversation_id: str, holder: str, *, user_id: str
    ) -> None:
        """Give it back, if ``holder`` still holds it."""
        ...


class ConversationStore(
    TurnStore,
    ConversationQueries,
    TenantAdminQueries,
    ConversationExport,
    ConversationErasure,
    UsageLedger,
    ModelSummaryStore,
    SummaryLeases,
    MessagePins,
    Protocol,
):
    """The whole store, as the composition root holds it: the turn's, the routes', the tenant
    admin's and the privacy ports plus migrations, sharing, health and lifetime."""

    async def init(self) -> None:
        """Apply migrations. Idempotent."""
        ...

    async def set_visibility(
        self, tenant_id: str, conversation_id: str, visibility: Visibility, *, user_id: str
    ) -> Conversation:
        """Share (``tenant``) or unshare (``private``) the caller's own conversation.

        :class:`errors.NotFound` unless ``user_id`` may read it;
        :class:`errors.ConversationReadOnly` for a conversation shared by someone else."""
        ...

    async def switch_branch(
        self, tenant_id: str, conversation_id: str, message_id: str, *, user_id: str
    ) -> Conversation:
        """Make the branch through ``message_id`` active (its latest leaf); owner only.

        :class:`errors.NotFound` for an unknown message or conversation;
        :class:`errors.ConversationReadOnly` for a reader of a shared conversation."""
        ...

    async def summaries(
        self, tenant_id: str, conversation_id: str, *, user_id: str
    ) -> list[StoredSummary]:
        """The conversation's summaries (compaction, ADR 0065), oldest first; owner only
        (anyone else: :class:`errors.NotFound`)."""
        ...

    async def roll_back_summary(
        self, tenant_id: str, conversation_id: str, summary_id: str, *, user_id: str
    ) -> StoredSummary:
        """Roll a summary back: later prompts send its messages again as they fit in the
        budget, and that range is never summarised again; owner only. An unknown summary, or
        another user's or tenant's: :class:`errors.NotFound`. Rolling back twice is a no-op."""
        ...

    async def ping(self) -> None: ...

    async def aclose(self) -> None:
        """Close the store; any later call raises :class:`errors.AdapterClosed`."""
        ...


class PolicyAdmin(PolicyStore, Protocol):
    """The egress policy store as a tenant's admins use it: read, list a tenant's user
    policies, set.

    Every call is scoped to ``tenant_id``: one tenant's admins never read or change another
    tenant's policies (on PostgreSQL row-level security says so too)."""

    async def user_policies(self, tenant_id: str, limit: int = 500) -> dict[str, UserPolicy]:
        """The users of the tenant that have a policy of their own, by user id."""
        ...

    async def set_tenant_policy(self, tenant_id: str, policy: TenantPolicy) -> None: ...

    async def set_user_policy(self, tenant_id: str, user_id: str, policy: UserPolicy) -> None: ...


@dataclass(frozen=True)
class EgressAdapters:
    """The egress ports a conversation store keeps in its own database."""

    vault: PseudonymVault
    policies: PolicyAdmin
    audit: AuditSink


class ScenarioStore(Protocol):
    """A user's scenarios (issue 28): owner-only; another user's or tenant's is ``NotFound``."""

    async def create_scenario(
        self, tenant_id: str, user_id: str, label: str, body: str
    ) -> StoredScenario: ...

    async def get_scenario(
        self, tenant_id: str, scenario_id: str, *, user_id: str
    ) -> StoredScenario: ...

    async def list_scenarios(
        self, tenant_id: str, user_id: str, limit: int = 100
    ) -> list[StoredScenario]: ...

    async def replace_scenario(
        self, tenant_id: str, scenario_id: str, label: str, body: str, *, user_id: str
    ) -> StoredScenario: ...

    async def delete_scenario(self, tenant_id: str, scenario_id: str, *, user_id: str) -> None: ...

    async def link_conversation(
        self, tenant_id: str, conversation_id: str, scenario_id: str, *, user_id: str
    ) -> StoredScenario:
        """Link the caller's conversation to their scenario (``NotFound`` if not theirs)."""
        ...

    async def linked_scenario(
        self, tenant_id: str, conversation_id: str, *, user_id: str
    ) -> StoredScenario | None:
        """The caller's scenario the conversation is linked to, if any."""
        ...

    async def unlink_conversation(
        self, tenant_id: str, conversation_id: str, *, user_id: str
    ) -> bool:
        """Remove the caller's link from the conversation; ``False`` if there was none."""
        ...


class ConversationBackend(ConversationStore, Protocol):
    """A conversation store that also hands out its egress ports and its scenario store."""

    def egress_adapters(self) -> EgressAdapters:
        """The pseudonym vault, policy store and audit sink over this store's database."""
        ...

    def scenario_store(self) -> ScenarioStore:
        """The users' scenarios over this store's database (issue 28)."""
        ...
