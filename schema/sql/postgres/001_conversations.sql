-- Conversations, messages and context, scoped by tenant (mirrors sqlite/001_conversations.sql).
-- Everything lives in schema "regintel", not "public": on Supabase, "public" is exposed through
-- the Data API, and these tables are for the API server only. The runner creates the schema.
CREATE TABLE IF NOT EXISTS regintel.tenants (
    id text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS regintel.conversations (
    id text PRIMARY KEY,
    tenant_id text NOT NULL REFERENCES regintel.tenants (id),
    user_id text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    -- the target of the (tenant_id, conversation_id) foreign keys below: a message or a
    -- context can never belong to a conversation of another tenant
    UNIQUE (tenant_id, id)
);

CREATE TABLE IF NOT EXISTS regintel.messages (
    id text PRIMARY KEY,
    tenant_id text NOT NULL,
    conversation_id text NOT NULL,
    seq integer NOT NULL,
    role text NOT NULL CHECK (role IN ('user', 'assistant')),
    content text NOT NULL,
    content_sanitised text NOT NULL,
    status text NOT NULL CHECK (status IN ('complete', 'partial', 'error')),
    referenced_nodes text[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    UNIQUE (conversation_id, seq),
    FOREIGN KEY (tenant_id, conversation_id) REFERENCES regintel.conversations (tenant_id, id)
);
CREATE INDEX IF NOT EXISTS messages_conversation
    ON regintel.messages (tenant_id, conversation_id, seq);

CREATE TABLE IF NOT EXISTS regintel.contexts (
    tenant_id text NOT NULL,
    conversation_id text PRIMARY KEY,
    active_node_ids text[] NOT NULL DEFAULT '{}',
    updated_at timestamptz NOT NULL,
    FOREIGN KEY (tenant_id, conversation_id) REFERENCES regintel.conversations (tenant_id, id)
);
