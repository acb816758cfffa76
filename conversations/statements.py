"""Every tenant-scoped statement of the conversation store, written once for both dialects.

The SQLite and PostgreSQL adapters used to carry a copy each and the copies drifted (SQLite's
``MAX(seq)`` lost its ``tenant_id`` filter). Now each statement is one template here: named
parameters (``:tenant_id``), ``{schema}`` before every table name and ``{row_lock}`` where
PostgreSQL locks the row it is about to update. :meth:`Statements.render` turns the templates
into one dialect's text; the adapters only choose the schema, the parameter style, the row lock
and the extra statement the vault needs on PostgreSQL (an advisory lock).

Every statement binds ``:tenant_id`` and filters (or inserts) with it;
``tests/unit/conversations/test_tenant_scoped_sql.py`` fails on one that does not. Inside the
tenant, the statements on a conversation and the rows that hang off it also bind ``:user_id``:
reads see the user's own conversations and those shared with the tenant, writes only the
user's own (ADR 0025).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields

__all__ = ["Statements"]

# a named parameter, not the second colon of a PostgreSQL cast (``::text``)
_NAMED_PARAMETER = re.compile(r"(?<!:):([a-z_]+)\b")

# the conversation of :conversation_id is one :user_id may read (own or shared) / write (own);
# appended to statements on the rows that hang off a conversation (ADR 0025)
_READABLE = (
    " AND EXISTS (SELECT 1 FROM {schema}conversations c WHERE c.tenant_id = :tenant_id"
    " AND c.id = :conversation_id AND (c.user_id = :user_id OR c.visibility = 'tenant'))"
)
_OWNED = (
    " AND EXISTS (SELECT 1 FROM {schema}conversations c WHERE c.tenant_id = :tenant_id"
    " AND c.id = :conversation_id AND c.user_id = :user_id)"
)


@dataclass(frozen=True)
class Statements:
    """The tenant-scoped statements, one field per operation (the defaults are the templates).

    ``lock_pseudonyms`` is the only dialect-specific one: ``None`` where the transaction
    already serialises vault assignments (SQLite's ``BEGIN IMMEDIATE``).
    """

    # -- conversations, messages, context ------------------------------------------------------
    insert_tenant: str = (
        "INSERT INTO {schema}tenants (id, created_at) VALUES (:tenant_id, :now)"
        " ON CONFLICT (id) DO NOTHING"
    )
    insert_conversation: str = (
        "INSERT INTO {schema}conversations (id, tenant_id, user_id, created_at, updated_at)"
        " VALUES (:conversation_id, :tenant_id, :user_id, :now, :now)"
    )
    insert_context: str = (
        "INSERT INTO {schema}contexts (tenant_id, conversation_id, active_node_ids, updated_at)"
        " VALUES (:tenant_id, :conversation_id, :active_node_ids, :now)"
    )
    # a conversation the user may read: their own, or one its owner shared with the tenant
    select_conversation: str = (
        "SELECT id, tenant_id, user_id, visibility, created_at, updated_at, active_leaf_id"
        " FROM {schema}conversations WHERE tenant_id = :tenant_id AND id = :conversation_id"
        " AND (user_id = :user_id OR visibility = 'tenant')"
    )
    # the conversations a user may read, most recent first, each titled by its first question:
    # once that was edited (several first messages, ADR 0062), the one of the active branch,
    # found up from the active leaf (only then: the usual conversation has one)
    select_user_conversations: str = (
        "SELECT c.id, c.tenant_id, c.user_id, c.visibility, c.created_at, c.updated_at,"
        " COALESCE((SELECT CASE WHEN (SELECT COUNT(*) FROM {schema}messages r"
        " WHERE r.tenant_id = :tenant_id AND r.conversation_id = c.id AND r.parent_id IS NULL)"
        " > 1 THEN (WITH RECURSIVE up (id, parent_id, depth) AS ("
        " SELECT a.id, a.parent_id, 0 FROM {schema}messages a WHERE a.tenant_id = :tenant_id"
        " AND a.conversation_id = c.id AND a.id = c.active_leaf_id"
        " UNION ALL SELECT p.id, p.parent_id, up.depth + 1 FROM {schema}messages p"
        " JOIN up ON p.id = up.parent_id WHERE up.depth < 10000)"
        " SELECT t.content FROM up JOIN {schema}messages t ON t.id = up.id"
        " WHERE t.tenant_id = :tenant_id AND t.parent_id IS NULL AND t.role = 'user') END),"
        " (SELECT m.content FROM {schema}messages m WHERE m.tenant_id = :tenant_id"
        " AND m.conversation_id = c.id AND m.role = 'user' ORDER BY m.seq LIMIT 1)) AS title"
        " FROM {schema}conversations c WHERE c.tenant_id = :tenant_id"
        " AND (c.user_id = :user_id OR c.visibility = 'tenant')"
        " ORDER BY c.updated_at DESC, c.id DESC LIMIT :limit OFFSET :offset"
    )
    # sharing is the owner's decision alone; updated_at stays: sharing is no new content
    update_visibility: str = (
        "UPDATE {schema}conversations SET visibility = :visibility"
        " WHERE tenant_id = :tenant_id AND id = :conversation_id AND user_id = :user_id"
    )
    # only the owner writes into a conversation (a shared one is read-only to the others)
    touch_conversation: str = (
        "UPDATE {schema}conversations SET updated_at = :now"
        " WHERE tenant_id = :tenant_id AND id = :conversation_id AND user_id = :user_id"
    )
    last_seq: str = (
        "SELECT COALESCE(MAX(seq), 0) AS seq FROM {schema}messages"
        " WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
    )
    insert_message: str = (
        "INSERT INTO {schema}messages (id, tenant_id, conversation_id, seq, role, content,"
        " content_sanitised, status, referenced_nodes, parent_id, context_node_ids, created_at,"
        " updated_at) VALUES (:id, :tenant_id, :conversation_id, :seq, :role, :content,"
        " :content_sanitised, :status, :referenced_nodes, :parent_id, :context_node_ids, :now,"
        " :now)"
    )
    # the answer so far, while it streams: a finished message is never overwritten (ADR 0018)
    checkpoint_message: str = (
        "UPDATE {schema}messages SET content = :content, content_sanitised = :content_sanitised,"
        " updated_at = :now WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
        " AND id = :message_id AND status = 'streaming'" + _OWNED
    )
    finish_message: str = (
        "UPDATE {schema}messages SET content = :content, content_sanitised = :content_sanitised,"
        " status = :status, referenced_nodes = :referenced_nodes,"
        " context_node_ids = :context_node_ids, updated_at = :now"
        " WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
        " AND id = :message_id AND status = 'streaming'"
    )
    # -- branches (issue 27, ADR 0062): messages form a tree, one branch is active ----------
    # A branch is the path from a message up to the conversation's first: each step a primary
    # key read, at most :limit of them (the newest first). Both dialects take WITH RECURSIVE.
    # The step follows the key alone: a tenant and conversation filter there made SQLite read
    # the conversation's index at every step (quadratic: 14 ms for 100 messages); the anchor
    # and the outer select filter on both, so nothing of another reaches the result.
    select_branch_messages: str = (
        "WITH RECURSIVE branch (id, parent_id, depth) AS ("
        " SELECT id, parent_id, 0 FROM {schema}messages WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND id = :message_id"
        " UNION ALL SELECT m.id, m.parent_id, b.depth + 1 FROM {schema}messages m"
        " JOIN branch b ON m.id = b.parent_id WHERE b.depth + 1 < :limit)"
        " SELECT m.id, m.conversation_id, m.parent_id, m.role, m.content, m.content_sanitised,"
        " m.status, m.referenced_nodes, m.created_at, m.updated_at FROM branch b"
        " JOIN {schema}messages m ON m.id = b.id WHERE m.tenant_id = :tenant_id"
        " AND m.conversation_id = :conversation_id" + _READABLE + " ORDER BY b.depth"
    )
    # The branch from :message_id up to the nearest end of a summary not rolled back (part 1:
    # the messages after it; part 2: that summary's last message, where the walk stops): what
    # a compacted turn reads when it continues a stored summary (ADR 0065 addendum)
    select_branch_since_summary: str = (
        "WITH RECURSIVE branch (id, parent_id, depth, part) AS ("
        " SELECT id, parent_id, 0, 1 FROM {schema}messages WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND id = :message_id"
        " UNION ALL SELECT m.id, m.parent_id, b.depth + 1, CASE"
        " WHEN m.id IN (SELECT s.last_message_id FROM {schema}summaries s"
        " WHERE s.tenant_id = :tenant_id AND s.conversation_id = :conversation_id"
        " AND s.user_id = :user_id AND s.rolled_back_at IS NULL) THEN 2 ELSE 1 END"
        " FROM {schema}messages m JOIN branch b ON m.id = b.parent_id"
        " WHERE b.part = 1 AND b.depth + 1 < :limit)"
        " SELECT m.id, m.conversation_id, m.parent_id, m.role, m.content, m.content_sanitised,"
        " m.status, m.referenced_nodes, m.created_at, m.updated_at, b.part FROM branch b"
        " JOIN {schema}messages m ON m.id = b.id WHERE m.tenant_id = :tenant_id"
        " AND m.conversation_id = :conversation_id" + _READABLE + " ORDER BY b.depth"
    )
    # The conversation's first messages (more than one once its first question was edited)
    select_branch_roots: str = (
        "SELECT id, conversation_id, parent_id, role, content, content_sanitised, status,"
        " referenced_nodes, created_at, updated_at FROM {schema}messages"
        " WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
        " AND parent_id IS NULL" + _READABLE + " ORDER BY seq"
    )
    # The first message of the branch through :message_id (keys only up to it)
    select_branch_root: str = (
        "WITH RECURSIVE up (id, parent_id, depth) AS ("
        " SELECT id, parent_id, 0 FROM {schema}messages WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND id = :message_id"
        " UNION ALL SELECT m.id, m.parent_id, up.depth + 1 FROM {schema}messages m"
        " JOIN up ON m.id = up.parent_id WHERE up.depth + 1 < :limit)"
        " SELECT m.id, m.conversation_id, m.parent_id, m.role, m.content, m.content_sanitised,"
        " m.status, m.referenced_nodes, m.created_at, m.updated_at FROM up"
        " JOIN {schema}messages m ON m.id = up.id WHERE m.tenant_id = :tenant_id"
        " AND m.conversation_id = :conversation_id AND m.parent_id IS NULL" + _READABLE
    )
    # A branch's context: the snapshot nearest up its path from :message_id (first), else the
    # conversation's contexts row (before its first answer, or written before branches); the
    # step follows the key alone, as above, and the result is filtered on the conversation
    select_branch_context: str = (
        "WITH RECURSIVE up (id, parent_id, nodes, tenant_id, conversation_id) AS ("
        " SELECT id, parent_id, context_node_ids, tenant_id, conversation_id"
        " FROM {schema}messages WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND id = :message_id"
        + _READABLE
        + " UNION ALL SELECT m.id, m.parent_id, m.context_node_ids, m.tenant_id,"
        " m.conversation_id FROM {schema}messages m"
        " JOIN up ON m.id = up.parent_id WHERE up.nodes IS NULL)"
        " SELECT 0 AS precedence, nodes AS active_node_ids FROM up WHERE nodes IS NOT NULL"
        " AND tenant_id = :tenant_id AND conversation_id = :conversation_id"
        " UNION ALL SELECT 1 AS precedence, active_node_ids FROM {schema}contexts"
        " WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
        + _READABLE
        + " ORDER BY precedence LIMIT 1"
    )
    # the tree without its text: which message follows which (the branch points, a switch)
    select_message_links: str = (
        "SELECT id, parent_id, role, seq FROM {schema}messages"
        " WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
        + _READABLE
        + " ORDER BY seq"
    )
    select_message_link: str = (
        "SELECT id, parent_id, role, seq FROM {schema}messages WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND id = :message_id" + _READABLE
    )
    # the owner moves the active branch; updated_at stays (no new content)
    update_active_leaf: str = (
        "UPDATE {schema}conversations SET active_leaf_id = :leaf_id"
        " WHERE tenant_id = :tenant_id AND id = :conversation_id AND user_id = :user_id"
    )
    # a late capture's concepts join the branch context of the answer that captured them
    update_message_context: str = (
        "UPDATE {schema}messages SET context_node_ids = :context_node_ids"
        " WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
        " AND id = :message_id" + _OWNED
    )

    update_context: str = (
        "UPDATE {schema}contexts SET active_node_ids = :active_node_ids, updated_at = :now"
        " WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
    )

    # -- a tenant's admin: its users and their usage (ADR 0041) ---------------------------
    # on PostgreSQL these run with the admin claim, which row-level security needs to let them
    # see every user's conversations of the tenant (migration 006); aggregates only, no text
    select_tenant_users: str = (
        "SELECT c.user_id, COUNT(*) AS conversations, MAX(c.updated_at) AS last_activity,"
        " MAX(p.mode) AS egress_mode FROM {schema}conversations c"
        " LEFT JOIN {schema}user_policies p ON p.tenant_id = c.tenant_id"
        " AND p.user_id = c.user_id WHERE c.tenant_id = :tenant_id"
        " GROUP BY c.user_id ORDER BY c.user_id LIMIT :limit"
    )
    # per owner: conversations started and messages written since :since
    select_tenant_message_usage: str = (
        "SELECT c.user_id,"
        " COUNT(DISTINCT CASE WHEN c.created_at >= :since THEN c.id END) AS conversations,"
        " COUNT(CASE WHEN m.role = 'user' THEN 1 END) AS user_messages,"
        " COUNT(CASE WHEN m.role = 'assistant' THEN 1 END) AS answers"
        " FROM {schema}conversations c LEFT JOIN {schema}messages m"
        " ON m.tenant_id = c.tenant_id AND m.conversation_id = c.id AND m.created_at >= :since"
        " WHERE c.tenant_id = :tenant_id GROUP BY c.user_id"
        " HAVING COUNT(m.id) > 0 OR COUNT(CASE WHEN c.created_at >= :since THEN 1 END) > 0"
        " ORDER BY c.user_id LIMIT :limit"
    )
    # per caller: the model calls the egress audit recorded since :since
    select_tenant_call_usage: str = (
        "SELECT user_id, COUNT(*) AS model_calls,"
        " COUNT(CASE WHEN blocked THEN 1 END) AS blocked_calls FROM {schema}egress_audit"
        " WHERE tenant_id = :tenant_id AND at >= :since GROUP BY user_id"
        " ORDER BY user_id LIMIT :limit"
    )

    # -- export, erasure, retention (ADR 0048) ------------------------------------------------
    # the owner's own conversations (never those shared with them)
    select_owned_conversations: str = (
        "SELECT c.id, c.tenant_id, c.user_id, c.visibility, c.created_at, c.updated_at,"
        " c.active_leaf_id FROM {schema}conversations c"
        " WHERE c.tenant_id = :tenant_id AND c.user_id = :user_id ORDER BY c.created_at, c.id"
    )
    select_owned_messages: str = (
        "SELECT m.id, m.conversation_id, m.seq, m.role, m.content, m.status, m.referenced_nodes,"
        " m.parent_id, m.created_at, m.updated_at FROM {schema}messages m"
        " JOIN {schema}conversations c"
        " ON c.tenant_id = m.tenant_id AND c.id = m.conversation_id"
        " WHERE m.tenant_id = :tenant_id AND c.user_id = :user_id ORDER BY m.conversation_id, m.seq"
    )
    select_owned_conversation_ids: str = (
        "SELECT id FROM {schema}conversations WHERE tenant_id = :tenant_id"
        " AND user_id = :user_id ORDER BY id"
    )
    # any owner's conversations last written before :before (the retention job, admin claim)
    select_expired_conversations: str = (
        "SELECT id, user_id FROM {schema}conversations WHERE tenant_id = :tenant_id"
        " AND updated_at < :before ORDER BY updated_at, id LIMIT :limit"
    )
    # the owner's conversation, locked first: a turn's save touches it first, so the two queue
    # up; the retention job passes its cutoff (a conversation written since then is kept)
    lock_owned_conversation: str = (
        "SELECT id FROM {schema}conversations WHERE tenant_id = :tenant_id"
        " AND id = :conversation_id AND user_id = :user_id AND updated_at < :before{row_lock}"
    )
    count_conversation_messages: str = (
        "SELECT COUNT(CASE WHEN role = 'user' THEN 1 END) AS questions,"
        " COUNT(CASE WHEN role = 'assistant' THEN 1 END) AS answers FROM {schema}messages"
        " WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
    )
    delete_pseudonyms: str = (
        "DELETE FROM {schema}pseudonyms WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id"
    )
    delete_messages: str = (
        "DELETE FROM {schema}messages WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id"
    )
    delete_context: str = (
        "DELETE FROM {schema}contexts WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id"
    )
    delete_conversation: str = (
        "DELETE FROM {schema}conversations WHERE tenant_id = :tenant_id"
        " AND id = :conversation_id AND user_id = :user_id"
    )
    # the egress audit keeps the call (its counts, provider, model, time), not whose it was
    anonymise_conversation_calls: str = (
        "UPDATE {schema}egress_audit SET conversation_id = '(erased)'"
        " WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
    )
    anonymise_erased_user_calls: str = (
        "UPDATE {schema}egress_audit SET user_id = '(erased)', conversation_id = '(erased)'"
        " WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
    )
    anonymise_user_calls: str = (
        "UPDATE {schema}egress_audit SET user_id = '(erased)', conversation_id = '(erased)'"
        " WHERE tenant_id = :tenant_id AND user_id = :user_id"
    )
    delete_user_policy: str = (
        "DELETE FROM {schema}user_policies WHERE tenant_id = :tenant_id AND user_id = :user_id"
    )
    insert_erased_conversation: str = (
        "INSERT INTO {schema}erased_conversations (tenant_id, conversation_id, user_erased,"
        " erased_at) VALUES (:tenant_id, :conversation_id, :user_erased, :now)"
        " ON CONFLICT (tenant_id, conversation_id) DO NOTHING"
    )
    # read by the vault and the egress audit before they write a conversation's row
    select_erased_conversation: str = (
        "SELECT user_erased FROM {schema}erased_conversations WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id"
    )
    insert_erasure: str = (
        "INSERT INTO {schema}erasures (tenant_id, kind, subject_user_id, conversation_id,"
        " requested_by, conversations, questions, answers, pseudonyms, model_calls, at)"
        " VALUES (:tenant_id, :kind, :subject_user_id, :conversation_id, :requested_by,"
        " :conversations, :questions, :answers, :pseudonyms, :model_calls, :now)"
    )
    select_erasures: str = (
        "SELECT id, kind, subject_user_id, conversation_id, requested_by, conversations,"
        " questions, answers, pseudonyms, model_calls, at FROM {schema}erasures"
        " WHERE tenant_id = :tenant_id ORDER BY id DESC LIMIT :limit"
    )

    # -- token usage (ADR 0050): counts and cost per user, day, provider and model ----------------
    upsert_usage: str = (
        "INSERT INTO {schema}usage_daily (tenant_id, user_id, day, provider, model, turns,"
        " input_tokens, output_tokens, cost_micros) VALUES (:tenant_id, :user_id, :day,"
        " :provider, :model, :turns, :input_tokens, :output_tokens, :cost_micros)"
        " ON CONFLICT (tenant_id, user_id, day, provider, model) DO UPDATE SET"
        " turns = usage_daily.turns + excluded.turns,"
        " input_tokens = usage_daily.input_tokens + excluded.input_tokens,"
        " output_tokens = usage_daily.output_tokens + excluded.output_tokens,"
        " cost_micros = usage_daily.cost_micros + excluded.cost_micros"
    )
    select_user_usage_by_model: str = (
        "SELECT provider, model, SUM(turns) AS turns, SUM(input_tokens) AS input_tokens,"
        " SUM(output_tokens) AS output_tokens, SUM(cost_micros) AS cost_micros"
        " FROM {schema}usage_daily WHERE tenant_id = :tenant_id AND user_id = :user_id"
        " AND day >= :since GROUP BY provider, model ORDER BY provider, model"
    )
    select_tenant_usage_by_model: str = (
        "SELECT provider, model, SUM(turns) AS turns, SUM(input_tokens) AS input_tokens,"
        " SUM(output_tokens) AS output_tokens, SUM(cost_micros) AS cost_micros"
        " FROM {schema}usage_daily WHERE tenant_id = :tenant_id AND day >= :since"
        " GROUP BY provider, model ORDER BY provider, model"
    )
    # the tenant's heaviest users first (by cost, then tokens)
    select_tenant_usage_by_user: str = (
        "SELECT user_id, SUM(turns) AS turns, SUM(input_tokens) AS input_tokens,"
        " SUM(output_tokens) AS output_tokens, SUM(cost_micros) AS cost_micros"
        " FROM {schema}usage_daily WHERE tenant_id = :tenant_id AND day >= :since"
        " GROUP BY user_id ORDER BY SUM(cost_micros) DESC,"
        " SUM(input_tokens) + SUM(output_tokens) DESC, user_id LIMIT :limit"
    )
    # an erased user's rows, folded into the user '(erased)' (the tenant's totals stay)
    select_user_usage_rows: str = (
        "SELECT day, provider, model, turns, input_tokens, output_tokens, cost_micros"
        " FROM {schema}usage_daily WHERE tenant_id = :tenant_id AND user_id = :user_id"
    )
    delete_user_usage: str = (
        "DELETE FROM {schema}usage_daily WHERE tenant_id = :tenant_id AND user_id = :user_id"
    )

    # -- egress: policies, pseudonym vault, audit ----------------------------------------------
    select_tenant_policy: str = (
        "SELECT default_mode, allow_off_mode, allowed_providers, allowed_models"
        " FROM {schema}tenant_policies WHERE tenant_id = :tenant_id"
    )
    select_user_policy: str = (
        "SELECT mode FROM {schema}user_policies WHERE tenant_id = :tenant_id AND user_id = :user_id"
    )
    # the users of a tenant that have a policy row of their own (the operators' view)
    select_user_policies: str = (
        "SELECT user_id, mode FROM {schema}user_policies WHERE tenant_id = :tenant_id"
        " ORDER BY user_id LIMIT :limit"
    )
    upsert_tenant_policy: str = (
        "INSERT INTO {schema}tenant_policies (tenant_id, default_mode, allow_off_mode,"
        " allowed_providers, allowed_models, updated_at) VALUES (:tenant_id, :default_mode,"
        " :allow_off_mode, :allowed_providers, :allowed_models, :now)"
        " ON CONFLICT (tenant_id) DO UPDATE SET default_mode = excluded.default_mode,"
        " allow_off_mode = excluded.allow_off_mode,"
        " allowed_providers = excluded.allowed_providers,"
        " allowed_models = excluded.allowed_models, updated_at = excluded.updated_at"
    )
    upsert_user_policy: str = (
        "INSERT INTO {schema}user_policies (tenant_id, user_id, mode, updated_at)"
        " VALUES (:tenant_id, :user_id, :mode, :now) ON CONFLICT (tenant_id, user_id)"
        " DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at"
    )
    lock_pseudonyms: str | None = None
    select_placeholder: str = (
        "SELECT placeholder FROM {schema}pseudonyms WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND entity_type = :entity_type"
        " AND value = :value"
    )
    count_placeholders: str = (
        "SELECT COUNT(*) AS n FROM {schema}pseudonyms WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND entity_type = :entity_type"
    )
    insert_pseudonym: str = (
        "INSERT INTO {schema}pseudonyms (tenant_id, conversation_id, entity_type, value,"
        " placeholder, created_at) VALUES (:tenant_id, :conversation_id, :entity_type, :value,"
        " :placeholder, :now)"
    )
    select_pseudonyms: str = (
        "SELECT placeholder, value FROM {schema}pseudonyms"
        " WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
    )
    insert_audit: str = (
        "INSERT INTO {schema}egress_audit (tenant_id, user_id, conversation_id, task, provider,"
        " model, requested_mode, effective_mode, counts, violations, blocked, reason, at)"
        " VALUES (:tenant_id, :user_id, :conversation_id, :task, :provider, :model,"
        " :requested_mode, :effective_mode, :counts, :violations, :blocked, :reason, :at)"
    )
    select_recent_audit: str = (
        "SELECT tenant_id, user_id, conversation_id, task, provider, model, requested_mode,"
        " effective_mode, counts, violations, blocked, reason, at FROM {schema}egress_audit"
        " WHERE tenant_id = :tenant_id ORDER BY id DESC LIMIT :limit"
    )

    # -- scenarios (issue 28, ADR 0054): owner-only, every statement binds both ids ----------
    insert_scenario: str = (
        "INSERT INTO {schema}scenarios (tenant_id, id, user_id, label, body, created_at,"
        " updated_at) VALUES (:tenant_id, :scenario_id, :user_id, :label, :body, :now, :now)"
    )
    select_scenario: str = (
        "SELECT id, tenant_id, user_id, label, body, created_at, updated_at"
        " FROM {schema}scenarios WHERE tenant_id = :tenant_id AND id = :scenario_id"
        " AND user_id = :user_id"
    )
    select_user_scenarios: str = (
        "SELECT id, tenant_id, user_id, label, body, created_at, updated_at"
        " FROM {schema}scenarios WHERE tenant_id = :tenant_id AND user_id = :user_id"
        " ORDER BY updated_at DESC, id DESC LIMIT :limit"
    )
    update_scenario: str = (
        "UPDATE {schema}scenarios SET label = :label, body = :body, updated_at = :now"
        " WHERE tenant_id = :tenant_id AND id = :scenario_id AND user_id = :user_id"
    )
    delete_scenario: str = (
        "DELETE FROM {schema}scenarios"
        " WHERE tenant_id = :tenant_id AND id = :scenario_id AND user_id = :user_id"
    )
    # erasure of a user (ADR 0048) takes their scenarios too
    delete_user_scenarios: str = (
        "DELETE FROM {schema}scenarios WHERE tenant_id = :tenant_id AND user_id = :user_id"
    )
    # a conversation linked to one of the user's scenarios (ADR 0063 second addendum): one
    # link per user and conversation; read back joined to the scenario, both owner-bound
    upsert_conversation_scenario: str = (
        "INSERT INTO {schema}conversation_scenarios (tenant_id, conversation_id, user_id,"
        " scenario_id, linked_at) VALUES (:tenant_id, :conversation_id, :user_id, :scenario_id,"
        " :now) ON CONFLICT (tenant_id, conversation_id, user_id) DO UPDATE SET"
        " scenario_id = excluded.scenario_id, linked_at = excluded.linked_at"
    )
    select_conversation_scenario: str = (
        "SELECT s.id, s.tenant_id, s.user_id, s.label, s.body, s.created_at, s.updated_at"
        " FROM {schema}conversation_scenarios l JOIN {schema}scenarios s"
        " ON s.tenant_id = l.tenant_id AND s.id = l.scenario_id AND s.user_id = l.user_id"
        " WHERE l.tenant_id = :tenant_id AND l.conversation_id = :conversation_id"
        " AND l.user_id = :user_id"
    )
    delete_user_conversation_scenario: str = (
        "DELETE FROM {schema}conversation_scenarios WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND user_id = :user_id"
    )
    delete_conversation_scenarios: str = (
        "DELETE FROM {schema}conversation_scenarios WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id"
    )
    delete_user_conversation_scenarios: str = (
        "DELETE FROM {schema}conversation_scenarios WHERE tenant_id = :tenant_id"
        " AND user_id = :user_id"
    )

    # -- compaction (issue 27, ADR 0065): a branch's summaries, owner-only ---------------------
    insert_summary: str = (
        "INSERT INTO {schema}summaries (tenant_id, id, conversation_id, user_id,"
        " first_message_id, last_message_id, message_count, summary, cited_node_ids,"
        " created_at, model_summary, model_summary_by, model_pending_lines,"
        " base_last_message_id, added_lines)"
        " VALUES (:tenant_id, :summary_id, :conversation_id, :user_id,"
        " :first_message_id, :last_message_id, :message_count, :summary, :cited_node_ids, :now,"
        " :model_summary, :model_summary_by, :model_pending_lines,"
        " :base_last_message_id, :added_lines)"
        " ON CONFLICT (tenant_id, conversation_id, last_message_id) DO NOTHING"
    )
    select_summaries: str = (
        "SELECT id, conversation_id, first_message_id, last_message_id, message_count, summary,"
        " cited_node_ids, created_at, rolled_back_at, model_summary, model_summary_by,"
        " model_pending_lines, base_last_message_id, added_lines FROM {schema}summaries"
        " WHERE tenant_id = :tenant_id AND conversation_id = :conversation_id"
        " AND user_id = :user_id ORDER BY created_at, id"
    )
    roll_back_summary: str = (
        "UPDATE {schema}summaries SET rolled_back_at = :now WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND id = :summary_id AND user_id = :user_id"
        " AND rolled_back_at IS NULL"
    )
    # a configured model's summary, written in the background after the turn (ADR 0065 third
    # addendum): never over a rolled-back one, never twice; over a model summary carried from
    # the row it continues (fourth addendum: pending lines > 0), which this one covers
    set_model_summary: str = (
        "UPDATE {schema}summaries SET model_summary = :model_summary,"
        " model_summary_by = :model_summary_by, model_pending_lines = 0"
        " WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND last_message_id = :last_message_id"
        " AND user_id = :user_id AND rolled_back_at IS NULL"
        " AND (model_summary IS NULL OR model_pending_lines > 0)"
    )
    # a model summary that landed on a row after later turns stored rows continuing it,
    # carried to them (ADR 0065 session 8 addendum): only to a row that still carries what
    # that row carried before (its own call did not cover it since)
    carry_model_summary: str = (
        "UPDATE {schema}summaries SET model_summary = :model_summary,"
        " model_summary_by = :model_summary_by, model_pending_lines = :model_pending_lines"
        " WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND last_message_id = :last_message_id"
        " AND user_id = :user_id AND rolled_back_at IS NULL"
        " AND COALESCE(model_summary, '') = :carried"
    )
    # pinned messages (issue 27, ADR 0065 session 8 addendum), owner-only: those on the branch
    # from :message_id up (none read at all while the conversation has no pin), oldest first
    select_pinned_on_branch: str = (
        "WITH RECURSIVE up (id, parent_id, depth) AS ("
        " SELECT id, parent_id, 0 FROM {schema}messages WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND id = :message_id"
        " AND EXISTS (SELECT 1 FROM {schema}pinned_messages p WHERE p.tenant_id = :tenant_id"
        " AND p.conversation_id = :conversation_id AND p.user_id = :user_id)"
        " UNION ALL SELECT m.id, m.parent_id, up.depth + 1 FROM {schema}messages m"
        " JOIN up ON m.id = up.parent_id WHERE up.depth + 1 < :limit)"
        " SELECT m.id, m.conversation_id, m.parent_id, m.role, m.content, m.content_sanitised,"
        " m.status, m.referenced_nodes, m.created_at, m.updated_at FROM up"
        " JOIN {schema}messages m ON m.id = up.id"
        " JOIN {schema}pinned_messages p ON p.tenant_id = m.tenant_id"
        " AND p.conversation_id = m.conversation_id AND p.message_id = m.id"
        " WHERE m.tenant_id = :tenant_id AND m.conversation_id = :conversation_id"
        " AND p.user_id = :user_id ORDER BY up.depth DESC"
    )
    select_owned_pins: str = (  # the export (GDPR access)
        "SELECT conversation_id, message_id FROM {schema}pinned_messages"
        " WHERE tenant_id = :tenant_id AND user_id = :user_id ORDER BY pinned_at, message_id"
    )
    select_pins: str = (
        "SELECT message_id FROM {schema}pinned_messages WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND user_id = :user_id"
        " ORDER BY pinned_at, message_id"
    )
    insert_pin: str = (
        "INSERT INTO {schema}pinned_messages"
        " (tenant_id, conversation_id, user_id, message_id, pinned_at)"
        " VALUES (:tenant_id, :conversation_id, :user_id, :message_id, :now)"
        " ON CONFLICT (tenant_id, conversation_id, message_id) DO NOTHING"
    )
    unpin_message: str = (
        "DELETE FROM {schema}pinned_messages WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND user_id = :user_id"
        " AND message_id = :message_id"
    )
    delete_pinned_messages: str = (
        "DELETE FROM {schema}pinned_messages WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id"
    )
    delete_summaries: str = (
        "DELETE FROM {schema}summaries WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id"
    )
    # one summary call at a time per conversation across workers, without Redis (ADR 0065
    # session 8 addendum): taken when free or expired, released by its holder only
    acquire_summary_lease: str = (
        "INSERT INTO {schema}summary_leases"
        " (tenant_id, conversation_id, user_id, holder, expires_at)"
        " VALUES (:tenant_id, :conversation_id, :user_id, :holder, :expires_at)"
        " ON CONFLICT (tenant_id, conversation_id) DO UPDATE"
        " SET holder = excluded.holder, expires_at = excluded.expires_at"
        " WHERE summary_leases.expires_at < :now"
        " AND summary_leases.user_id = excluded.user_id"
    )
    release_summary_lease: str = (
        "DELETE FROM {schema}summary_leases WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id AND user_id = :user_id AND holder = :holder"
    )
    delete_summary_leases: str = (
        "DELETE FROM {schema}summary_leases WHERE tenant_id = :tenant_id"
        " AND conversation_id = :conversation_id"
    )

    def render(
        self,
        *,
        schema: str = "",
        pyformat: bool = False,
        row_lock: str = "",
        lock_pseudonyms: str | None = None,
    ) -> Statements:
        """The templates in one dialect.

        ``schema`` prefixes every table (``"regintel."``); ``pyformat`` turns ``:name`` into
        ``%(name)s`` (psycopg); ``row_lock`` ends the reads that precede an update
        (``" FOR UPDATE"``); ``lock_pseudonyms`` is taken as it is, already in the dialect.
        """

        def one(template: str) -> str:
            text = template.format(schema=schema, row_lock=row_lock)
            return _NAMED_PARAMETER.sub(r"%(\1)s", text) if pyformat else text

        rendered = {
            field.name: one(getattr(self, field.name))
            for field in fields(self)
            if field.name != "lock_pseudonyms"
        }
        return Statements(**rendered, lock_pseudonyms=lock_pseudonyms)
