"""The chat turn with the production conversation store: PostgreSQL with row-level security."""

import pytest

from api.bootstrap import bootstrap
from api.settings import Settings
from conversations.sql_egress import SqlAuditSink
from egress.client import EgressClient
from engine.events import DoneEvent
from engine.turn import TurnRequest
from errors import NotFound

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


async def test_two_turns_on_postgres_with_pseudonyms_and_tenant_isolation(
    seeded_data_dir, postgres_dsn
):
    settings = Settings(
        data_dir=seeded_data_dir,
        conversation_store="postgres",
        postgres_dsn=postgres_dsn,
        log_json=False,
    )
    container = await bootstrap(settings)
    try:
        engine, store = container.engine, container.conversations
        first = [
            e
            async for e in engine.run_turn(
                TurnRequest(
                    "acme",
                    "alice",
                    "My PPSN is 1234567TW. What is the standard rate of VAT in Ireland?",
                )
            )
        ]
        done = first[-1]
        assert isinstance(done, DoneEvent)
        conversation_id = done.conversation_id
        second = [
            e
            async for e in engine.run_turn(
                TurnRequest("acme", "alice", "And the reduced rate?", conversation_id)
            )
        ]
        done = second[-1]
        assert isinstance(done, DoneEvent)
        assert done.status == "complete"
        messages = await store.recent_messages("acme", conversation_id, 10, user_id="alice")
        assert [m.role for m in messages] == ["user", "assistant"] * 2
        assert "1234567TW" in messages[0].content
        assert "1234567TW" not in messages[0].content_sanitised
        assert "[PPSN_1]" in messages[0].content_sanitised
        context = await store.load_context("acme", conversation_id, user_id="alice")
        assert "TAX:IE:VAT" in context.active_node_ids
        with pytest.raises(NotFound):
            await store.get_conversation("globex", conversation_id, user_id="carol")
        with pytest.raises(NotFound):
            [
                e
                async for e in engine.run_turn(
                    TurnRequest("globex", "carol", "hi", conversation_id)
                )
            ]
        egress = container.egress
        assert isinstance(egress, EgressClient)
        audit = egress._audit
        assert isinstance(audit, SqlAuditSink)
        [record, *_] = await audit.recent("acme")
        assert record.effective_mode == "enforce"
    finally:
        await container.aclose()
