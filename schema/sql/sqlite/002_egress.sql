-- Egress policies, pseudonym vault and audit, scoped by tenant.
CREATE TABLE IF NOT EXISTS tenant_policies (
    tenant_id TEXT PRIMARY KEY,
    default_mode TEXT CHECK (default_mode IN ('enforce', 'report-only', 'off')),
    allow_off_mode INTEGER NOT NULL DEFAULT 0,
    allowed_providers TEXT NOT NULL DEFAULT '[]',
    allowed_models TEXT NOT NULL DEFAULT '[]',
    updated_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS user_policies (
    tenant_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    mode TEXT CHECK (mode IN ('enforce', 'report-only', 'off')),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);

CREATE TABLE IF NOT EXISTS pseudonyms (
    tenant_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    entity_type TEXT NOT NULL,
    value TEXT NOT NULL,
    placeholder TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id, entity_type, value),
    UNIQUE (tenant_id, conversation_id, placeholder)
);

CREATE TABLE IF NOT EXISTS egress_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    task TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    requested_mode TEXT,
    effective_mode TEXT NOT NULL,
    counts TEXT NOT NULL,
    violations TEXT NOT NULL,
    blocked INTEGER NOT NULL,
    reason TEXT,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS egress_audit_tenant ON egress_audit(tenant_id, at);
