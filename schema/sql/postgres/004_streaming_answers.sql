-- An answer is written as it streams (ADR 0018): the assistant message is inserted with status
-- 'streaming' before the model is called and rewritten at a bounded rate. updated_at is the
-- time of its last write, which tells a live stream from one whose process died. Older rows
-- have no updated_at: readers fall back to created_at.
ALTER TABLE regintel.messages ADD COLUMN IF NOT EXISTS updated_at timestamptz;

-- 'interrupted' is what a reader reports for a 'streaming' row nobody writes any more; it is
-- allowed in the table too, so an operator may record it.
ALTER TABLE regintel.messages DROP CONSTRAINT IF EXISTS messages_status_check;
ALTER TABLE regintel.messages ADD CONSTRAINT messages_status_check
    CHECK (status IN ('streaming', 'complete', 'partial', 'error', 'interrupted'));

-- messages stay append-only except for the answer of a turn in flight: the app may rewrite
-- these columns only (the statements also require status = 'streaming')
GRANT UPDATE (content, content_sanitised, status, referenced_nodes, updated_at)
    ON regintel.messages TO regintel_app;
