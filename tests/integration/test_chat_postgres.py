"""The chat turn with the production conversation store: PostgreSQL with row-level security."""

import pytest

from api.bootstrap import bootstrap
from api.settings import Settings
from engine.chat import TurnRequest
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
        conversation_id = first[-1].conversation_id
        second = [
            e
            async for e in engine.run_turn(
                TurnRequest("acme", "alice", "And the reduced rate?", conversation_id)
            )
        ]
        assert second[-1].status == "complete"
        messages = await store.recent_messages("acme", conversation_id, 10)
        assert [m.role for m in messages] == ["user", "assistant"] * 2
        assert "1234567TW" in messages[0].content
        assert "1234567TW" not in messages[0].content_sanitised
        assert "[PPSN_1]" in messages[0].content_sanitised
        context = await store.load_context("acme", conversation_id)
        assert "TAX:IE:VAT" in context.active_node_ids
        with pytest.raises(NotFound):
            await store.get_conversation("globex", conversation_id)
        with pytest.raises(NotFound):
            [
                e
                async for e in engine.run_turn(
                    TurnRequest("globex", "carol", "hi", conversation_id)
                )
            ]
        [record, *_] = await container.egress._audit.recent("acme")
        assert record.effective_mode == "enforce"
    finally:
        await container.aclose()
