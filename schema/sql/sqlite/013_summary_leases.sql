-- Compaction by a model across workers (issue 27, ADR 0065 session 8 addendum, mirrors
-- postgres/016_summary_leases.sql).
-- base_last_message_id: the last message of the summary row this one continued (NULL: it
-- started its range), and added_lines: how many extractive lines this row added to it. A model
-- summary that lands on a row after later turns stored rows continuing it is carried to them,
-- their pending lines then being the lines they added.
ALTER TABLE summaries ADD COLUMN base_last_message_id TEXT;
ALTER TABLE summaries ADD COLUMN added_lines INTEGER NOT NULL DEFAULT 0;
-- One summary call at a time per conversation, whatever the worker, when Redis is not
-- configured: a worker holds the lease until expires_at (ISO text, UTC) or until it releases
-- it. No text of the conversation: its id, the owner (every statement binds tenant and user),
-- a random holder id and a time.
CREATE TABLE IF NOT EXISTS summary_leases (
    tenant_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    holder TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id)
);
-- Pinned messages (issue 27, must-have 2, ADR 0065 session 8 addendum): the owner pins a
-- message, and a compacted prompt keeps it word for word on the branches through it. Ids and a
-- time only (the text stays in messages). Erasure deletes the pins with their conversation.
CREATE TABLE IF NOT EXISTS pinned_messages (
    tenant_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    pinned_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id, message_id)
);
