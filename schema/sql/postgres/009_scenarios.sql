-- Scenarios (issue 28, ADR 0054): a user's what-if facts, labelled dated snapshots stored as a
-- JSON text the API validates (scenarios.models). Tenant data: never in the graph. Owner-only,
-- like a private conversation: no sharing, so one permissive policy per command on the user
-- claim, under the restrictive tenant claim (migration 005's functions). Deletes stay the
-- eraser's (ADR 0048): DELETE /api/scenarios/{id} and the erasure of a user run as
-- regintel_eraser, a member of regintel_app, so the same owner policies apply to it.
CREATE TABLE IF NOT EXISTS regintel.scenarios (
    tenant_id text NOT NULL,
    id text NOT NULL,
    user_id text NOT NULL,
    label text NOT NULL,
    body text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX IF NOT EXISTS scenarios_owner
    ON regintel.scenarios (tenant_id, user_id, updated_at DESC);

GRANT SELECT, INSERT ON regintel.scenarios TO regintel_app;
GRANT DELETE ON regintel.scenarios TO regintel_eraser;
-- least privilege: never its owner, tenant or id
GRANT UPDATE (label, body, updated_at) ON regintel.scenarios TO regintel_app;
ALTER TABLE regintel.scenarios ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.scenarios FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS tenant_isolation ON regintel.scenarios;
CREATE POLICY tenant_isolation ON regintel.scenarios AS RESTRICTIVE TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
DROP POLICY IF EXISTS owner_only ON regintel.scenarios;
CREATE POLICY owner_only ON regintel.scenarios TO regintel_app
    USING (user_id = regintel.jwt_user()) WITH CHECK (user_id = regintel.jwt_user());
