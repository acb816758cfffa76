-- A question refused for the tenant's hard quota (ADR 0050, addendum) is stored with the status
-- 'quota_exceeded' and no answer, so its conversation shows it. (SQLite has no CHECK on status.)
ALTER TABLE regintel.messages DROP CONSTRAINT IF EXISTS messages_status_check;
ALTER TABLE regintel.messages ADD CONSTRAINT messages_status_check
    CHECK (status IN ('streaming', 'complete', 'partial', 'error', 'interrupted', 'quota_exceeded'));
