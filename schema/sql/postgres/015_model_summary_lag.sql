-- Throttled model summaries (issue 27, ADR 0065 fourth addendum, mirrors
-- sqlite/012_model_summary_lag.sql). A summary row stored on a turn whose background model
-- call was skipped (too little new text, or a call still running for the conversation)
-- carries the model summary of the row it continues, and model_pending_lines is how many of its
-- newest extractive lines that model summary does not cover (0: it covers the whole range).
-- The app role inserts it with the row and resets it when a call covers the range.
ALTER TABLE regintel.summaries ADD COLUMN IF NOT EXISTS model_pending_lines integer NOT NULL DEFAULT 0;
GRANT UPDATE (model_pending_lines) ON regintel.summaries TO regintel_app;
