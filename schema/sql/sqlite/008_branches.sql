-- Edit and regenerate as branches (issue 27, ADR 0062, mirrors postgres/010_branches.sql).
-- Messages form a tree: parent_id is the message a message follows (NULL: the first of its
-- conversation, or an edit of it). An edit or a regeneration adds a sibling beside the message
-- it replaces, and every earlier message is kept. active_leaf_id is the last message of the
-- branch the conversation shows and continues. context_node_ids is the branch's context (its
-- active node ids) as of an answer: a branch's context is the nearest one up its path, so each
-- branch keeps its own (NULL on a question, and on a message written before this migration,
-- whose branch falls back to the contexts row).
ALTER TABLE messages ADD COLUMN parent_id TEXT;
ALTER TABLE messages ADD COLUMN context_node_ids TEXT;
ALTER TABLE conversations ADD COLUMN active_leaf_id TEXT;
-- the conversations stored so far are one line: each message follows the one before it
UPDATE messages SET parent_id = (
    SELECT p.id FROM messages p WHERE p.tenant_id = messages.tenant_id
    AND p.conversation_id = messages.conversation_id AND p.seq < messages.seq
    ORDER BY p.seq DESC LIMIT 1
);
UPDATE conversations SET active_leaf_id = (
    SELECT m.id FROM messages m WHERE m.tenant_id = conversations.tenant_id
    AND m.conversation_id = conversations.id ORDER BY m.seq DESC LIMIT 1
);
CREATE INDEX IF NOT EXISTS messages_parent ON messages(tenant_id, conversation_id, parent_id)
