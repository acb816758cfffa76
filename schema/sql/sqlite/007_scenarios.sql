-- Scenarios (issue 28, ADR 0054, mirrors postgres/009_scenarios.sql): a user's what-if facts
-- as JSON text. Owner-only: every statement binds tenant_id and user_id.
CREATE TABLE IF NOT EXISTS scenarios (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    label TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX IF NOT EXISTS scenarios_owner ON scenarios(tenant_id, user_id, updated_at);
