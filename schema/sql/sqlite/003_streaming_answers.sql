-- An answer is written as it streams (ADR 0018): the assistant message is inserted with status
-- 'streaming' before the model is called and rewritten at a bounded rate. updated_at is the
-- time of its last write, which tells a live stream from one whose process died. Older rows
-- have no updated_at: readers fall back to created_at. (SQLite has no CHECK on status.)
ALTER TABLE messages ADD COLUMN updated_at TEXT
