-- A conversation linked to one of the user's scenarios (issue 28, ADR 0063 second addendum,
-- mirrors postgres/014_conversation_scenarios.sql): a what-if asked in it evaluates that
-- scenario's latest snapshot. One link per user and conversation, owner-only: every statement
-- binds tenant_id and user_id, and the link is written only after the scenario is read as the
-- caller's. Erased with the conversation and with the user.
CREATE TABLE IF NOT EXISTS conversation_scenarios (
    tenant_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    scenario_id TEXT NOT NULL,
    linked_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id, user_id)
);
