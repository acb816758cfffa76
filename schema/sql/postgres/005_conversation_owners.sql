-- Users inside a tenant (ADR 0025): a conversation belongs to its creator; its owner may share
-- it with the tenant (visibility 'tenant': the tenant's users may read it, only the owner
-- writes). Row-level security now reads the caller's identity the way Supabase's own policies
-- do: the JWT claims of the request, `request.jwt.claims`, which the adapter sets for each
-- transaction (set_config(..., true)) as {"sub": <user>, "role": "authenticated",
-- "app_metadata": {"tenant_id": <tenant>}}. `app.tenant_id` (migration 003) is no longer read.
-- A claim that is missing reads as NULL, and NULL matches nothing: unset claims fail closed.
ALTER TABLE regintel.conversations
    ADD COLUMN IF NOT EXISTS visibility text NOT NULL DEFAULT 'private'
    CHECK (visibility IN ('private', 'tenant'));
CREATE INDEX IF NOT EXISTS conversations_reader
    ON regintel.conversations (tenant_id, user_id, updated_at DESC);
CREATE INDEX IF NOT EXISTS conversations_shared
    ON regintel.conversations (tenant_id, updated_at DESC) WHERE visibility = 'tenant';

CREATE OR REPLACE FUNCTION regintel.jwt_claims() RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$ SELECT coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb $$;
-- app_metadata, never user_metadata: a Supabase user can edit their own user_metadata
CREATE OR REPLACE FUNCTION regintel.jwt_tenant() RETURNS text
    LANGUAGE sql STABLE
    AS $$ SELECT regintel.jwt_claims() -> 'app_metadata' ->> 'tenant_id' $$;
CREATE OR REPLACE FUNCTION regintel.jwt_user() RETURNS text
    LANGUAGE sql STABLE
    AS $$ SELECT regintel.jwt_claims() ->> 'sub' $$;
GRANT EXECUTE ON FUNCTION regintel.jwt_claims(), regintel.jwt_tenant(), regintel.jwt_user()
    TO regintel_app;

-- least privilege: of a conversation the app only ever changes these two columns (never its
-- owner or tenant)
REVOKE UPDATE ON regintel.conversations FROM regintel_app;
GRANT UPDATE (updated_at, visibility) ON regintel.conversations TO regintel_app;

-- tables without an owner inside the tenant: the tenant claim alone
DROP POLICY IF EXISTS tenant_isolation ON regintel.tenants;
CREATE POLICY tenant_isolation ON regintel.tenants TO regintel_app
    USING (id = regintel.jwt_tenant()) WITH CHECK (id = regintel.jwt_tenant());
DROP POLICY IF EXISTS tenant_isolation ON regintel.tenant_policies;
CREATE POLICY tenant_isolation ON regintel.tenant_policies TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
DROP POLICY IF EXISTS tenant_isolation ON regintel.user_policies;
CREATE POLICY tenant_isolation ON regintel.user_policies TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
-- the vault is written and read during its owner's turns only, through the egress port, which
-- knows no user (ADR 0025: a known limit); the API never exposes it
DROP POLICY IF EXISTS tenant_isolation ON regintel.pseudonyms;
CREATE POLICY tenant_isolation ON regintel.pseudonyms TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
DROP POLICY IF EXISTS tenant_isolation ON regintel.egress_audit;
CREATE POLICY tenant_isolation ON regintel.egress_audit TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());

-- conversations: the tenant claim AND (restrictive) one of the permissive policies per command
DROP POLICY IF EXISTS tenant_isolation ON regintel.conversations;
CREATE POLICY tenant_isolation ON regintel.conversations AS RESTRICTIVE TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
CREATE POLICY readers ON regintel.conversations FOR SELECT TO regintel_app
    USING (user_id = regintel.jwt_user() OR visibility = 'tenant');
CREATE POLICY owner_creates ON regintel.conversations FOR INSERT TO regintel_app
    WITH CHECK (user_id = regintel.jwt_user());
CREATE POLICY owner_writes ON regintel.conversations FOR UPDATE TO regintel_app
    USING (user_id = regintel.jwt_user()) WITH CHECK (user_id = regintel.jwt_user());

-- messages and contexts follow their conversation: read where it is readable, written by its
-- owner only
DROP POLICY IF EXISTS tenant_isolation ON regintel.messages;
CREATE POLICY tenant_isolation ON regintel.messages AS RESTRICTIVE TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
CREATE POLICY readers ON regintel.messages FOR SELECT TO regintel_app
    USING (EXISTS (SELECT 1 FROM regintel.conversations c
                   WHERE c.tenant_id = messages.tenant_id AND c.id = messages.conversation_id
                     AND (c.user_id = regintel.jwt_user() OR c.visibility = 'tenant')));
CREATE POLICY owner_creates ON regintel.messages FOR INSERT TO regintel_app
    WITH CHECK (EXISTS (SELECT 1 FROM regintel.conversations c
                        WHERE c.tenant_id = messages.tenant_id AND c.id = messages.conversation_id
                          AND c.user_id = regintel.jwt_user()));
CREATE POLICY owner_writes ON regintel.messages FOR UPDATE TO regintel_app
    USING (EXISTS (SELECT 1 FROM regintel.conversations c
                   WHERE c.tenant_id = messages.tenant_id AND c.id = messages.conversation_id
                     AND c.user_id = regintel.jwt_user()));

DROP POLICY IF EXISTS tenant_isolation ON regintel.contexts;
CREATE POLICY tenant_isolation ON regintel.contexts AS RESTRICTIVE TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
CREATE POLICY readers ON regintel.contexts FOR SELECT TO regintel_app
    USING (EXISTS (SELECT 1 FROM regintel.conversations c
                   WHERE c.tenant_id = contexts.tenant_id AND c.id = contexts.conversation_id
                     AND (c.user_id = regintel.jwt_user() OR c.visibility = 'tenant')));
CREATE POLICY owner_creates ON regintel.contexts FOR INSERT TO regintel_app
    WITH CHECK (EXISTS (SELECT 1 FROM regintel.conversations c
                        WHERE c.tenant_id = contexts.tenant_id AND c.id = contexts.conversation_id
                          AND c.user_id = regintel.jwt_user()));
CREATE POLICY owner_writes ON regintel.contexts FOR UPDATE TO regintel_app
    USING (EXISTS (SELECT 1 FROM regintel.conversations c
                   WHERE c.tenant_id = contexts.tenant_id AND c.id = contexts.conversation_id
                     AND c.user_id = regintel.jwt_user()));
