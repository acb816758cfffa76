-- A conversation linked to one of the user's scenarios (issue 28, ADR 0063 second addendum):
-- a what-if asked in it evaluates that scenario's latest snapshot. One link per user and
-- conversation. Owner-only like the scenarios it points to (migration 009): one permissive
-- policy on the user claim under the restrictive tenant claim; the store writes a link only
-- after reading the scenario as the caller's, and reads it back joined to the scenario with
-- both bound, so another user's or tenant's scenario is never reached through a link.
-- Deletes are the eraser's (ADR 0048): with the conversation and with the user.
CREATE TABLE IF NOT EXISTS regintel.conversation_scenarios (
    tenant_id text NOT NULL,
    conversation_id text NOT NULL,
    user_id text NOT NULL,
    scenario_id text NOT NULL,
    linked_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id, user_id)
);

GRANT SELECT, INSERT ON regintel.conversation_scenarios TO regintel_app;
GRANT DELETE ON regintel.conversation_scenarios TO regintel_eraser;
-- least privilege: a new link changes the scenario and when, never its owner or conversation
GRANT UPDATE (scenario_id, linked_at) ON regintel.conversation_scenarios TO regintel_app;
ALTER TABLE regintel.conversation_scenarios ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.conversation_scenarios FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS tenant_isolation ON regintel.conversation_scenarios;
CREATE POLICY tenant_isolation ON regintel.conversation_scenarios AS RESTRICTIVE
    TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
DROP POLICY IF EXISTS owner_only ON regintel.conversation_scenarios;
CREATE POLICY owner_only ON regintel.conversation_scenarios TO regintel_app
    USING (user_id = regintel.jwt_user()) WITH CHECK (user_id = regintel.jwt_user());
