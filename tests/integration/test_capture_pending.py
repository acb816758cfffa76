"""Regression: a capture still being written when the answer ended was dropped for the next
turn. Under load 95% of turns ended with ``graph_write_pending`` and their concepts never
reached the conversation's context. The write now finishes in the background, its concepts
join the context, and ``done`` says ``capturePending``."""

import asyncio

import anyio
import pytest

from egress.wire import Done, Text
from tests.integration.test_chat_engine import VAT, Harness, by_type
from tests.support.fakes import tool

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


async def test_regression_a_capture_pending_at_done_reaches_the_context_and_done_says_so(
    tmp_path,
):
    h = await Harness(tmp_path, graph_write_timeout_seconds=0.05).start()
    try:
        gate = asyncio.Event()
        original = h.population._resolve

        async def slow(concept, jurisdictions):
            await gate.wait()
            return await original(concept, jurisdictions)

        h.population._resolve = slow
        h.provider.script = [Text("VAT is 23%."), tool({"concepts": [VAT]}), Done()]
        events = await h.turn()
        done = events[-1]
        assert done.capture_pending is True and done.data()["capturePending"] is True
        assert [w.warning.code for w in by_type(events, "warning")] == ["graph_write_pending"]
        assert not by_type(events, "concepts")
        context = await h.store.load_context("acme", done.conversation_id, user_id="alice")
        assert "TAX:IE:VAT" not in context.active_node_ids  # not written yet

        gate.set()
        with anyio.fail_after(10):
            while True:
                context = await h.store.load_context("acme", done.conversation_id, user_id="alice")
                if "TAX:IE:VAT" in context.active_node_ids:
                    break
                await anyio.sleep(0.02)
        assert h.engine.counters.get("late_captures") == 1

        # The next turn of the conversation has the concept among its active nodes.
        h.provider.script = [Text("Still 23%."), Done()]
        await h.turn("And the reduced rate?", done.conversation_id)
        prompt = h.provider.requests[-1].messages[0].content
        assert "TAX:IE:VAT" in prompt
    finally:
        await h.close()


async def test_a_capture_written_in_time_is_not_pending(tmp_path):
    h = await Harness(tmp_path).start()
    try:
        h.provider.script = [Text("VAT is 23%."), tool({"concepts": [VAT]}), Done()]
        events = await h.turn()
        assert events[-1].capture_pending is False
        assert events[-1].data()["capturePending"] is False
        assert by_type(events, "concepts")
    finally:
        await h.close()
