-- Egress policies, pseudonym vault and audit, scoped by tenant (mirrors sqlite/002_egress.sql).
CREATE TABLE IF NOT EXISTS regintel.tenant_policies (
    tenant_id text PRIMARY KEY,
    default_mode text CHECK (default_mode IN ('enforce', 'report-only', 'off')),
    allow_off_mode boolean NOT NULL DEFAULT false,
    allowed_providers text[] NOT NULL DEFAULT '{}',
    allowed_models text[] NOT NULL DEFAULT '{}',
    updated_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS regintel.user_policies (
    tenant_id text NOT NULL,
    user_id text NOT NULL,
    mode text CHECK (mode IN ('enforce', 'report-only', 'off')),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);

CREATE TABLE IF NOT EXISTS regintel.pseudonyms (
    tenant_id text NOT NULL,
    conversation_id text NOT NULL,
    entity_type text NOT NULL,
    value text NOT NULL,
    placeholder text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id, entity_type, value),
    UNIQUE (tenant_id, conversation_id, placeholder)
);

CREATE TABLE IF NOT EXISTS regintel.egress_audit (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id text NOT NULL,
    user_id text NOT NULL,
    conversation_id text NOT NULL,
    task text NOT NULL,
    provider text NOT NULL,
    model text NOT NULL,
    requested_mode text,
    effective_mode text NOT NULL,
    counts jsonb NOT NULL DEFAULT '{}',
    violations text[] NOT NULL DEFAULT '{}',
    blocked boolean NOT NULL,
    reason text,
    at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS egress_audit_tenant ON regintel.egress_audit (tenant_id, id);
