-- Throttled model summaries (issue 27, ADR 0065 fourth addendum, mirrors
-- postgres/015_model_summary_lag.sql). A summary row stored on a turn whose background model
-- call was skipped (too little new text, or a call still running for the conversation)
-- carries the model summary of the row it continues, and model_pending_lines is how many of its
-- newest extractive lines that model summary does not cover (0: it covers the whole range).
ALTER TABLE summaries ADD COLUMN model_pending_lines INTEGER NOT NULL DEFAULT 0
