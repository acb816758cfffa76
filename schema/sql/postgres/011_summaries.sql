-- Compaction (issue 27, ADR 0065; mirrors sqlite/009_summaries.sql): the summary that stood in
-- a turn's prompt for the older messages of a branch, and what it replaced: the messages from
-- first_message_id to last_message_id of that branch's path (message_count of them), keyed by
-- the last one (a summary belongs to the branch path through it). cited_node_ids are the
-- provisions those answers cited, kept as ids. rolled_back_at: the owner rolled it back (that
-- range is never summarised again; its messages go back into the prompt as they fit).
-- Owner-only, like scenarios: the owner's turns read and write it, nobody else (migration
-- 005's claim functions); erasure deletes it with its conversation (regintel_eraser).
CREATE TABLE IF NOT EXISTS regintel.summaries (
    tenant_id text NOT NULL,
    id text NOT NULL,
    conversation_id text NOT NULL,
    user_id text NOT NULL,
    first_message_id text NOT NULL,
    last_message_id text NOT NULL,
    message_count integer NOT NULL,
    summary text NOT NULL,
    cited_node_ids text[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    rolled_back_at timestamptz,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, conversation_id, last_message_id)
);

GRANT SELECT, INSERT ON regintel.summaries TO regintel_app;
GRANT DELETE ON regintel.summaries TO regintel_eraser;
-- least privilege: a rollback sets one column
GRANT UPDATE (rolled_back_at) ON regintel.summaries TO regintel_app;
ALTER TABLE regintel.summaries ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.summaries FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS tenant_isolation ON regintel.summaries;
CREATE POLICY tenant_isolation ON regintel.summaries AS RESTRICTIVE TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
DROP POLICY IF EXISTS owner_only ON regintel.summaries;
CREATE POLICY owner_only ON regintel.summaries TO regintel_app
    USING (user_id = regintel.jwt_user()) WITH CHECK (user_id = regintel.jwt_user());
