-- Compaction by a configured model (issue 27, ADR 0065 third addendum, mirrors
-- postgres/013_model_summaries.sql): the summary a configured provider wrote in the background
-- after the turn that stored the row, sanitised, and the route that wrote it. NULL: the
-- extractive summary (the column summary) is the only one, as in offline mode.
ALTER TABLE summaries ADD COLUMN model_summary TEXT;
ALTER TABLE summaries ADD COLUMN model_summary_by TEXT
