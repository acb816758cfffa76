-- A tenant's admin sees its users and their usage (ADR 0041): aggregate reads over every
-- user's conversations and messages of the admin's own tenant. The adapter sets
-- app_metadata.role = 'admin' in the request's claims for those reads only
-- (PostgresConversationStore.unit_of_work(..., admin=True)); a user's own work never carries
-- it. The restrictive tenant_isolation policies (migration 005) still apply: another tenant's
-- rows stay invisible, whatever the role. app_metadata, never user_metadata: a Supabase user
-- can edit their own user_metadata.
CREATE OR REPLACE FUNCTION regintel.jwt_app_role() RETURNS text
    LANGUAGE sql STABLE
    AS $$ SELECT regintel.jwt_claims() -> 'app_metadata' ->> 'role' $$;
GRANT EXECUTE ON FUNCTION regintel.jwt_app_role() TO regintel_app;

DROP POLICY IF EXISTS tenant_admin_reads ON regintel.conversations;
CREATE POLICY tenant_admin_reads ON regintel.conversations FOR SELECT TO regintel_app
    USING (regintel.jwt_app_role() IN ('admin', 'operator'));
DROP POLICY IF EXISTS tenant_admin_reads ON regintel.messages;
CREATE POLICY tenant_admin_reads ON regintel.messages FOR SELECT TO regintel_app
    USING (regintel.jwt_app_role() IN ('admin', 'operator'));
