-- Users inside a tenant (ADR 0025): a conversation belongs to its creator, who may share
-- it with the tenant (visibility 'tenant': the tenant's users may read it, only the owner
-- writes). The statements filter on user_id and visibility (no row-level security in SQLite).
ALTER TABLE conversations ADD COLUMN visibility TEXT NOT NULL DEFAULT 'private'
    CHECK (visibility IN ('private', 'tenant'));
CREATE INDEX IF NOT EXISTS conversations_reader ON conversations(tenant_id, user_id, updated_at);
