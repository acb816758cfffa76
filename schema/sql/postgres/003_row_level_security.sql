-- Row-level security: the database enforces tenant scoping again, under the app's own filters.
--
-- The adapter runs every transaction as role regintel_app (SET LOCAL ROLE, or by logging in as
-- it) with `set_config('app.tenant_id', <tenant>, true)`. The role is no superuser and has no
-- BYPASSRLS (both skip every policy), and RLS is FORCEd so that even the tables' owner is
-- subject to it. Policies name regintel_app only: any other non-bypassing role sees no rows.
-- An unset app.tenant_id reads as NULL (missing_ok), so a forgotten setting fails closed.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'regintel_app') THEN
        CREATE ROLE regintel_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
    END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
    NULL; -- another database of the cluster created it at the same moment
END
$$;

-- the migrating role (the tables' owner) may SET ROLE to it; a no-op for a superuser
DO $$
BEGIN
    IF NOT pg_has_role(current_user, 'regintel_app', 'MEMBER') THEN
        EXECUTE format('GRANT regintel_app TO %I', current_user);
    END IF;
END
$$;

GRANT USAGE ON SCHEMA regintel TO regintel_app;
-- least privilege: messages, pseudonyms and the audit trail are append-only for the app
GRANT SELECT, INSERT ON regintel.tenants TO regintel_app;
GRANT SELECT, INSERT, UPDATE ON regintel.conversations TO regintel_app;
GRANT SELECT, INSERT ON regintel.messages TO regintel_app;
GRANT SELECT, INSERT, UPDATE ON regintel.contexts TO regintel_app;
GRANT SELECT, INSERT, UPDATE ON regintel.tenant_policies TO regintel_app;
GRANT SELECT, INSERT, UPDATE ON regintel.user_policies TO regintel_app;
GRANT SELECT, INSERT ON regintel.pseudonyms TO regintel_app;
GRANT SELECT, INSERT ON regintel.egress_audit TO regintel_app;

ALTER TABLE regintel.tenants ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.tenants FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON regintel.tenants TO regintel_app
    USING (id = current_setting('app.tenant_id', true))
    WITH CHECK (id = current_setting('app.tenant_id', true));

ALTER TABLE regintel.conversations ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.conversations FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON regintel.conversations TO regintel_app
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE regintel.messages ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.messages FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON regintel.messages TO regintel_app
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE regintel.contexts ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.contexts FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON regintel.contexts TO regintel_app
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE regintel.tenant_policies ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.tenant_policies FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON regintel.tenant_policies TO regintel_app
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE regintel.user_policies ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.user_policies FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON regintel.user_policies TO regintel_app
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE regintel.pseudonyms ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.pseudonyms FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON regintel.pseudonyms TO regintel_app
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE regintel.egress_audit ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.egress_audit FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON regintel.egress_audit TO regintel_app
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
