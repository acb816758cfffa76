-- Export, erasure and retention (ADR 0048). Erasure deletes a conversation's messages, context
-- and pseudonym vault originals and the conversation itself; what it keeps is counts: a row of
-- the erasure audit trail (no text) and the egress audit's records with the erased conversation
-- (and, for an erased user, the user) replaced by '(erased)'.
CREATE TABLE IF NOT EXISTS regintel.erasures (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('conversation', 'all_conversations', 'user', 'expired')),
    subject_user_id text NOT NULL,
    conversation_id text,
    requested_by text NOT NULL,
    conversations integer NOT NULL,
    questions integer NOT NULL,
    answers integer NOT NULL,
    pseudonyms integer NOT NULL,
    model_calls integer NOT NULL,
    at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS erasures_tenant ON regintel.erasures (tenant_id, id);

-- An erased conversation's id (a random uuid, nothing personal): a turn still running when its
-- conversation was erased must not write anything of it back. Its messages and context cannot
-- come back (their conversation is gone); the vault and the egress audit, keyed by the id
-- alone, read this first.
CREATE TABLE IF NOT EXISTS regintel.erased_conversations (
    tenant_id text NOT NULL,
    conversation_id text NOT NULL,
    user_erased boolean NOT NULL,
    erased_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id)
);
CREATE INDEX IF NOT EXISTS conversations_expiry ON regintel.conversations (tenant_id, updated_at);

-- least privilege: both tables are append-only for the app
GRANT SELECT, INSERT ON regintel.erasures TO regintel_app;
GRANT SELECT, INSERT ON regintel.erased_conversations TO regintel_app;
ALTER TABLE regintel.erasures ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.erasures FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS tenant_isolation ON regintel.erasures;
CREATE POLICY tenant_isolation ON regintel.erasures TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());
ALTER TABLE regintel.erased_conversations ENABLE ROW LEVEL SECURITY;
ALTER TABLE regintel.erased_conversations FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS tenant_isolation ON regintel.erased_conversations;
CREATE POLICY tenant_isolation ON regintel.erased_conversations TO regintel_app
    USING (tenant_id = regintel.jwt_tenant()) WITH CHECK (tenant_id = regintel.jwt_tenant());

-- Erasure deletes, and nothing else does: the app role stays append-only on messages, the vault
-- and the egress audit (migration 003). The deletes belong to regintel_eraser, a member of
-- regintel_app (its grants and policies apply) without BYPASSRLS, which the adapter SETs LOCAL
-- ROLE to for an erasure's transactions only. Only the owner's own rows: the adapter erases in
-- the owner's name (a tenant admin's erasure of a user and the retention job carry the owner's
-- sub, in the tenant).
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'regintel_eraser') THEN
        CREATE ROLE regintel_eraser NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
    END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
    NULL; -- another database of the cluster created it at the same moment
END
$$;
DO $$
BEGIN
    IF NOT pg_has_role('regintel_eraser', 'regintel_app', 'MEMBER') THEN
        GRANT regintel_app TO regintel_eraser;
    END IF;
    IF NOT pg_has_role(current_user, 'regintel_eraser', 'MEMBER') THEN
        EXECUTE format('GRANT regintel_eraser TO %I', current_user);
    END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
    NULL; -- another database of the cluster granted it at the same moment
END
$$;
GRANT DELETE ON regintel.conversations, regintel.messages, regintel.contexts,
    regintel.user_policies, regintel.pseudonyms TO regintel_eraser;
DROP POLICY IF EXISTS owner_deletes ON regintel.conversations;
CREATE POLICY owner_deletes ON regintel.conversations FOR DELETE TO regintel_eraser
    USING (user_id = regintel.jwt_user());
DROP POLICY IF EXISTS owner_deletes ON regintel.messages;
CREATE POLICY owner_deletes ON regintel.messages FOR DELETE TO regintel_eraser
    USING (EXISTS (SELECT 1 FROM regintel.conversations c
                   WHERE c.tenant_id = messages.tenant_id AND c.id = messages.conversation_id
                     AND c.user_id = regintel.jwt_user()));
DROP POLICY IF EXISTS owner_deletes ON regintel.contexts;
CREATE POLICY owner_deletes ON regintel.contexts FOR DELETE TO regintel_eraser
    USING (EXISTS (SELECT 1 FROM regintel.conversations c
                   WHERE c.tenant_id = contexts.tenant_id AND c.id = contexts.conversation_id
                     AND c.user_id = regintel.jwt_user()));
-- the egress audit keeps its counts; erasure takes the ids off (the tenant claim scopes it)
GRANT UPDATE (user_id, conversation_id) ON regintel.egress_audit TO regintel_eraser;

-- the retention job lists the tenants' ids (nothing else), then works in each tenant's name
DROP POLICY IF EXISTS retention_lists ON regintel.tenants;
CREATE POLICY retention_lists ON regintel.tenants FOR SELECT TO regintel_app
    USING (regintel.jwt_app_role() = 'retention');
