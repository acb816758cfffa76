-- Export, erasure and retention (ADR 0048, mirrors postgres/007_erasure.sql, without RLS: the
-- statements' tenant and owner filters are the scoping). Erasure keeps counts only: the erasure
-- audit trail (no text) and the egress audit's records with the erased ids replaced.
CREATE TABLE IF NOT EXISTS erasures (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('conversation', 'all_conversations', 'user', 'expired')),
    subject_user_id TEXT NOT NULL,
    conversation_id TEXT,
    requested_by TEXT NOT NULL,
    conversations INTEGER NOT NULL,
    questions INTEGER NOT NULL,
    answers INTEGER NOT NULL,
    pseudonyms INTEGER NOT NULL,
    model_calls INTEGER NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS erasures_tenant ON erasures(tenant_id, id);

-- an erased conversation's id: a turn still running when it was erased writes nothing back
CREATE TABLE IF NOT EXISTS erased_conversations (
    tenant_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    user_erased INTEGER NOT NULL,
    erased_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id)
);
CREATE INDEX IF NOT EXISTS conversations_expiry ON conversations(tenant_id, updated_at);
