-- Token usage per tenant, user, day, provider and model (issue 27, must-have 3; ADR 0050): counts
-- and cost only, no text. Written by the turn as it ends (one upsert that adds), read by the
-- user (their own) and the tenant's admin (totals, top users, by model). An erased user's rows
-- are folded into the user '(erased)' (ADR 0048): the tenant's totals stay.
CREATE TABLE IF NOT EXISTS regintel.usage_daily (
    tenant_id text NOT NULL,
    user_id text NOT NULL,
    day date NOT NULL,
    provider text NOT NULL,
    model text NOT NULL,
    turns integer NOT NULL,
    input_tokens bigint NOT NULL,
    output_tokens bigint NOT NULL,
    cost_micros bigint NOT NULL,
    PRIMARY KEY (tenant_id, user_id, day, provider, model)
);
CREATE INDEX IF NOT EXISTS usage_daily_tenant_day ON regintel.usage_daily (tenant_id, day);

GRANT SELECT, INSERT ON regintel.usage_daily TO regintel_app;
GRANT UPDATE (turns, input_tokens, output_tokens, cost_micros) ON regintel.usage_daily
    TO regintel_app;
GRANT DELETE ON regintel.usage_daily TO regintel_eraser;
ALTER TABLE regintel.usage_daily ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.usage_daily FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS tenant_isolation ON regintel.usage_daily;
CREATE POLICY tenant_isolation ON regintel.usage_daily TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
