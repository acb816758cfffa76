-- Compaction (issue 27, ADR 0065, mirrors postgres/011_summaries.sql): a branch's summary of
-- its older messages, keyed by the last message it replaced. Owner-only: every statement binds
-- tenant_id and user_id.
CREATE TABLE IF NOT EXISTS summaries (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    first_message_id TEXT NOT NULL,
    last_message_id TEXT NOT NULL,
    message_count INTEGER NOT NULL,
    summary TEXT NOT NULL,
    cited_node_ids TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    rolled_back_at TEXT,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, conversation_id, last_message_id)
);
