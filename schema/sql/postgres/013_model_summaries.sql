-- Compaction by a configured model (issue 27, ADR 0065 third addendum, mirrors
-- sqlite/010_model_summaries.sql): the summary a configured provider wrote in the background
-- after the turn that stored the row, sanitised, and the route that wrote it. NULL: the
-- extractive summary (the column summary) is the only one, as in offline mode. The app role
-- may set these two columns only (row-level security of migration 011 still applies).
ALTER TABLE regintel.summaries ADD COLUMN IF NOT EXISTS model_summary text;
ALTER TABLE regintel.summaries ADD COLUMN IF NOT EXISTS model_summary_by text;
GRANT UPDATE (model_summary, model_summary_by) ON regintel.summaries TO regintel_app;
