-- Token usage per tenant, user, day, provider and model (ADR 0050, mirrors
-- postgres/008_usage.sql): counts and cost only, no text.
CREATE TABLE IF NOT EXISTS usage_daily (
    tenant_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    day TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    turns INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_micros INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, user_id, day, provider, model)
);
CREATE INDEX IF NOT EXISTS usage_daily_tenant_day ON usage_daily(tenant_id, day);
