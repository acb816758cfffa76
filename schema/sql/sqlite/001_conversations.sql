-- Conversations, messages and context, scoped by tenant.
CREATE TABLE IF NOT EXISTS tenants (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    user_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS conversations_tenant ON conversations(tenant_id, id);

CREATE TABLE IF NOT EXISTS messages (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL REFERENCES conversations(id),
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content TEXT NOT NULL,
    content_sanitised TEXT NOT NULL,
    status TEXT NOT NULL,
    referenced_nodes TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    UNIQUE (conversation_id, seq)
);
CREATE INDEX IF NOT EXISTS messages_conversation ON messages(tenant_id, conversation_id, seq);

CREATE TABLE IF NOT EXISTS contexts (
    tenant_id TEXT NOT NULL,
    conversation_id TEXT PRIMARY KEY REFERENCES conversations(id),
    active_node_ids TEXT NOT NULL DEFAULT '[]',
    updated_at TEXT NOT NULL
);
