-- Compaction by a model across workers (issue 27, ADR 0065 session 8 addendum, mirrors
-- sqlite/013_summary_leases.sql).
-- base_last_message_id: the last message of the summary row this one continued (NULL: it
-- started its range), and added_lines: how many extractive lines this row added to it. A model
-- summary that lands on a row after later turns stored rows continuing it is carried to them
-- (the app role updates model_summary, model_summary_by, model_pending_lines: 013, 015).
ALTER TABLE regintel.summaries ADD COLUMN IF NOT EXISTS base_last_message_id text;
ALTER TABLE regintel.summaries ADD COLUMN IF NOT EXISTS added_lines integer NOT NULL DEFAULT 0;
-- One summary call at a time per conversation, whatever the worker, when Redis is not
-- configured: a worker holds the lease until expires_at or until it releases it. No text of
-- the conversation: its id, the owner, a random holder id and a time. Owner-only like
-- summaries (a restrictive tenant policy, a permissive owner policy); erasure deletes it with
-- its conversation (regintel_eraser).
CREATE TABLE IF NOT EXISTS regintel.summary_leases (
    tenant_id text NOT NULL,
    conversation_id text NOT NULL,
    user_id text NOT NULL,
    holder text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id)
);
GRANT SELECT, INSERT, DELETE ON regintel.summary_leases TO regintel_app;
GRANT UPDATE (holder, expires_at) ON regintel.summary_leases TO regintel_app;
GRANT SELECT, DELETE ON regintel.summary_leases TO regintel_eraser;
ALTER TABLE regintel.summary_leases ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.summary_leases FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS tenant_isolation ON regintel.summary_leases;
CREATE POLICY tenant_isolation ON regintel.summary_leases AS RESTRICTIVE TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
DROP POLICY IF EXISTS owner_only ON regintel.summary_leases;
CREATE POLICY owner_only ON regintel.summary_leases TO regintel_app
    USING (user_id = regintel.jwt_user()) WITH CHECK (user_id = regintel.jwt_user());
-- Pinned messages (issue 27, must-have 2. ADR 0065 session 8 addendum): the owner pins a
-- message, and a compacted prompt keeps it word for word on the branches through it. Ids and a
-- time only. Owner-only like summaries. Erasure deletes the pins with their conversation.
CREATE TABLE IF NOT EXISTS regintel.pinned_messages (
    tenant_id text NOT NULL,
    conversation_id text NOT NULL,
    user_id text NOT NULL,
    message_id text NOT NULL,
    pinned_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id, message_id)
);
GRANT SELECT, INSERT, DELETE ON regintel.pinned_messages TO regintel_app;
GRANT SELECT, DELETE ON regintel.pinned_messages TO regintel_eraser;
ALTER TABLE regintel.pinned_messages ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.pinned_messages FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS tenant_isolation ON regintel.pinned_messages;
CREATE POLICY tenant_isolation ON regintel.pinned_messages AS RESTRICTIVE TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
DROP POLICY IF EXISTS owner_only ON regintel.pinned_messages;
CREATE POLICY owner_only ON regintel.pinned_messages TO regintel_app
    USING (user_id = regintel.jwt_user()) WITH CHECK (user_id = regintel.jwt_user());
