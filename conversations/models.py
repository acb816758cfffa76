"""Conversation-store models: tenants' conversations, messages and context."""

from __future__ import annotations

from datetime import date, datetime
from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field

__all__ = [
    "Attach",
    "Conversation",
    "ConversationContext",
    "ConversationSummary",
    "ConversationView",
    "ErasureKind",
    "ErasureRecord",
    "ErasureTotals",
    "ExportedConversation",
    "ExportedMessage",
    "MessageLink",
    "MessageRole",
    "MessageStatus",
    "ModelUsage",
    "NewMessage",
    "NewSummary",
    "StoredMessage",
    "StoredScenario",
    "StoredSummary",
    "TenantUser",
    "UsageEntry",
    "UsageTotals",
    "UserTokenUsage",
    "UserUsage",
    "Visibility",
]

MessageRole = Literal["user", "assistant"]
MessageStatus = Literal[
    "streaming", "complete", "partial", "error", "interrupted", "quota_exceeded"
]
"""``streaming``: the answer is being written as it arrives. Then, once: ``complete``,
``partial`` (the client left), ``error`` (the provider or egress failed). ``interrupted`` is
how a read reports a ``streaming`` answer nobody has written for a lease: its process died
(ADR 0018). ``quota_exceeded``: a question refused for the tenant's hard quota before the
model was called; stored without an answer, never part of a later turn's prompt (ADR 0050)."""


Visibility = Literal["private", "tenant"]
"""Who may read a conversation: ``private`` (the default) its creator only; ``tenant`` every user
of its tenant. Only the creator ever writes into it or changes this (ADR 0025)."""


class ConversationContext(BaseModel):
    """Backend-owned context of one conversation (never stored in the graph)."""

    active_node_ids: list[str] = Field(default_factory=list)

    def with_nodes(self, node_ids: list[str], limit: int) -> ConversationContext:
        """Most recent first, no duplicates, at most ``limit`` ids."""
        merged = list(dict.fromkeys([*node_ids, *self.active_node_ids]))
        return ConversationContext(active_node_ids=merged[:limit])


class Attach(Enum):
    """Where :meth:`~conversations.port.TurnStore.save_turn` attaches a turn's messages when no
    parent is named: after the conversation's active leaf, read under its write lock."""

    ACTIVE_LEAF = "active_leaf"


class Conversation(BaseModel):
    """A conversation of one tenant, owned by the user who created it (``user_id``).

    Its messages form a tree (ADR 0062): ``active_leaf_id`` is the last message of the branch
    it shows and continues (``None`` before its first message)."""

    id: str
    tenant_id: str
    user_id: str
    visibility: Visibility = "private"
    created_at: datetime
    updated_at: datetime
    active_leaf_id: str | None = None


class ConversationSummary(Conversation):
    """A conversation in a list: its first question stands for its title (empty before one)."""

    title: str = ""


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
    updated_at: datetime | None = None  # the last write of a streamed answer
    parent_id: str | None = None  # the message it follows (None: the first of its branch)


class MessageLink(BaseModel):
    """A message's place in its conversation's tree, without its text."""

    id: str
    parent_id: str | None
    role: MessageRole
    seq: int


class ConversationView(BaseModel):
    """A conversation as its reader sees it, read together: the active branch's messages
    (oldest first), that branch's context, and each of those messages' siblings (the ids of
    the messages that follow the same parent, oldest first, itself among them): a message with
    more than one sits at a branch point."""

    conversation: Conversation
    messages: list[StoredMessage]
    context: ConversationContext
    siblings: dict[str, list[str]] = Field(default_factory=dict)


class TenantUser(BaseModel):
    """A user of a tenant as the store knows them: they own at least one conversation there.

    ``egress_mode`` is their own egress policy's mode (``None``: none, or cleared)."""

    user_id: str
    conversations: int
    last_activity: datetime  # the latest update of any of their conversations
    egress_mode: str | None = None


class UserUsage(BaseModel):
    """What one user of a tenant did since a moment, from what the store keeps: conversations
    started, questions asked (user messages), answers (assistant messages, any status), and
    the model calls the egress audit recorded (blocked ones among them). Token counts are not
    stored, so they are not reported."""

    user_id: str
    conversations: int = 0
    user_messages: int = 0
    answers: int = 0
    model_calls: int = 0
    blocked_calls: int = 0


ErasureKind = Literal["conversation", "all_conversations", "user", "expired"]
"""What an erasure removed: one conversation of its owner; every conversation of their own (the
user asked); a user of the tenant (their admin asked: their conversations, and their id taken
off the egress audit); conversations past the retention period (the retention job)."""


class ExportedMessage(BaseModel):
    """A message as its owner exports it (GDPR Articles 15 and 20)."""

    id: str
    seq: int
    role: MessageRole
    content: str
    status: MessageStatus
    referenced_nodes: list[str] = Field(default_factory=list)
    created_at: datetime
    updated_at: datetime | None = None
    parent_id: str | None = None


class ExportedConversation(BaseModel):
    """One of the owner's conversations with every message of every branch, oldest first, and
    the context of its active branch. ``branches``: the last message of each branch when there
    are several (empty for a conversation that never branched)."""

    id: str
    visibility: Visibility
    created_at: datetime
    updated_at: datetime
    active_node_ids: list[str] = Field(default_factory=list)
    active_leaf_id: str | None = None
    branches: list[str] = Field(default_factory=list)
    messages: list[ExportedMessage] = Field(default_factory=list)
    pinned_message_ids: list[str] = Field(default_factory=list)  # ADR 0065 session 8


class ErasureTotals(BaseModel):
    """What an erasure removed, as counts only (the non-personal totals that are kept)."""

    conversations: int = 0
    questions: int = 0  # user messages
    answers: int = 0  # assistant messages
    pseudonyms: int = 0  # egress vault originals
    model_calls: int = 0  # egress audit records taken off the erased conversation (or user)

    def plus(self, other: ErasureTotals) -> ErasureTotals:
        return ErasureTotals(
            conversations=self.conversations + other.conversations,
            questions=self.questions + other.questions,
            answers=self.answers + other.answers,
            pseudonyms=self.pseudonyms + other.pseudonyms,
            model_calls=self.model_calls + other.model_calls,
        )


class ErasureRecord(ErasureTotals):
    """One entry of the erasure audit trail: who asked, whose data, what kind, the totals;
    never any erased text."""

    id: int | None = None  # the trail's; None on the record an erasure call returns
    kind: ErasureKind
    subject_user_id: str  # whose conversations ("" for the retention job's records)
    conversation_id: str | None = None  # the one conversation of a ``conversation`` erasure
    requested_by: str  # the user who asked, or "retention"
    at: datetime


class UsageEntry(BaseModel):
    """One turn's token usage, as the ledger adds it up (ADR 0050)."""

    day: date
    provider: str
    model: str
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cost_micros: int = Field(default=0, ge=0)  # millionths of the price table's currency


class UsageTotals(BaseModel):
    """Turns, tokens and cost added up (by model, or by user)."""

    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_micros: int = 0


class ModelUsage(UsageTotals):
    provider: str
    model: str


class UserTokenUsage(UsageTotals):
    user_id: str


class StoredScenario(BaseModel):
    """A user's scenario as stored (issue 28): its label and its body, the JSON text of its
    snapshots, which the store keeps and never reads (the API validates it, ADR 0054)."""

    id: str
    tenant_id: str
    user_id: str
    label: str
    body: str
    created_at: datetime
    updated_at: datetime


class NewSummary(BaseModel):
    """A summary of a branch's older messages, about to be stored (compaction, ADR 0065): it
    replaced the ``message_count`` messages of the branch's path from ``first_message_id`` to
    ``last_message_id`` in a turn's prompt; ``cited_node_ids`` are the provisions those answers
    cited, kept as ids."""

    first_message_id: str
    last_message_id: str
    message_count: int = Field(ge=1)
    summary: str
    cited_node_ids: list[str] = Field(default_factory=list)
    # a configured model's summary, sanitised (ADR 0065 third addendum); stored with the row
    # when carried from the summary it continues (fourth addendum: the turn made no call), then
    # ``model_pending_lines`` of the newest ``summary`` lines are what it does not cover
    model_summary: str | None = None
    model_summary_by: str | None = None  # "provider:model"
    model_pending_lines: int = Field(default=0, ge=0)
    # the row this one continued (its last message; None: it started its range) and how many
    # extractive lines it added to it: a model summary that lands on that row late is carried
    # to this one (ADR 0065 session 8 addendum)
    base_last_message_id: str | None = None
    added_lines: int = Field(default=0, ge=0)


class StoredSummary(NewSummary):
    """A stored summary; ``rolled_back_at`` set once its owner rolled it back (that range of
    messages is never summarised again)."""

    id: str
    conversation_id: str
    created_at: datetime
    rolled_back_at: datetime | None = None
