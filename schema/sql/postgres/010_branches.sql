-- Edit and regenerate as branches (issue 27, ADR 0062; mirrors sqlite/008_branches.sql).
-- Messages form a tree: parent_id is the message a message follows (NULL: the first of its
-- conversation, or an edit of it). An edit or a regeneration adds a sibling beside the message
-- it replaces, and every earlier message is kept. active_leaf_id is the last message of the
-- branch the conversation shows and continues. context_node_ids is the branch's context (its
-- active node ids) as of an answer: a branch's context is the nearest one up its path, so each
-- branch keeps its own (NULL on a question, and on a message written before this migration,
-- whose branch falls back to the contexts row).
--
-- New columns of tables that row-level security already covers: the policies of migrations
-- 005 and 007 are per row, so they hold for these columns too (messages and the context
-- snapshots follow their conversation: read where it is readable, written by its owner only).
ALTER TABLE regintel.messages ADD COLUMN IF NOT EXISTS parent_id text;
ALTER TABLE regintel.messages ADD COLUMN IF NOT EXISTS context_node_ids text[];
ALTER TABLE regintel.conversations ADD COLUMN IF NOT EXISTS active_leaf_id text;

-- the conversations stored so far are one line: each message follows the one before it
UPDATE regintel.messages m SET parent_id = (
    SELECT p.id FROM regintel.messages p WHERE p.tenant_id = m.tenant_id
    AND p.conversation_id = m.conversation_id AND p.seq < m.seq ORDER BY p.seq DESC LIMIT 1
) WHERE m.parent_id IS NULL;
UPDATE regintel.conversations c SET active_leaf_id = (
    SELECT m.id FROM regintel.messages m WHERE m.tenant_id = c.tenant_id
    AND m.conversation_id = c.id ORDER BY m.seq DESC LIMIT 1
) WHERE c.active_leaf_id IS NULL;
CREATE INDEX IF NOT EXISTS messages_parent
    ON regintel.messages (tenant_id, conversation_id, parent_id);

-- least privilege, as before: the app moves a conversation's active branch, and writes a
-- finished answer's context snapshot (a late capture's concepts); a message's parent is set
-- once, on insert, and never changes
GRANT UPDATE (active_leaf_id) ON regintel.conversations TO regintel_app;
GRANT UPDATE (context_node_ids) ON regintel.messages TO regintel_app;
