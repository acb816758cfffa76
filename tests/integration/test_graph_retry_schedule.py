"""A capture whose retries ran out is retried on a schedule, not only at the next start-up, and
``/health`` counts what is still waiting (the durability issue)."""

import asyncio
import json

import anyio
import pytest

from api.routes.health import health
from egress.wire import Done, Text
from tests.integration.test_chat_engine import NEW, Harness
from tests.support.fakes import tool

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


async def health_counts(container):
    body = json.loads(bytes((await health(container)).body))
    return body["pendingGraphWrites"], body["exhaustedGraphWrites"]


async def test_regression_an_exhausted_capture_waited_for_a_restart_and_health_said_nothing(
    tmp_path,
):
    h = await Harness(tmp_path, graph_retry_interval_seconds=0.2).start()
    try:
        h.graph.failures = 1_000  # down for longer than every attempt
        h.provider.script = [Text("answer"), tool({"concepts": [NEW]}), Done()]
        await h.turn()
        with anyio.fail_after(10):
            while not h.retry.abandoned:  # noqa: ASYNC110 - the retry runs in its own task
                await asyncio.sleep(0.01)
        assert h.retry.pending == 1 and h.retry.abandoned >= 1
        pending, _ = await health_counts(h.container)
        assert pending == 1  # reported while it waits, exhausted or being retried again

        h.graph.failures = 0  # the graph is back; no restart
        with anyio.fail_after(10):
            while h.retry.completed == 0:  # noqa: ASYNC110 - the schedule runs on its own
                await asyncio.sleep(0.01)
        assert [n.id for n in await h.graph.get_nodes(["TAX:IE:CARBON_TAX"])] == [
            "TAX:IE:CARBON_TAX"
        ]
        assert await health_counts(h.container) == (0, 0)
    finally:
        await h.close()


async def test_health_counts_an_exhausted_capture_until_the_next_round(tmp_path):
    h = await Harness(tmp_path, graph_retry_interval_seconds=3600).start()
    try:
        h.graph.failures = 1_000
        h.provider.script = [Text("answer"), tool({"concepts": [NEW]}), Done()]
        await h.turn()
        with anyio.fail_after(10):
            while not h.retry.abandoned:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        assert await health_counts(h.container) == (1, 1)
    finally:
        await h.close()


async def test_a_retried_capture_keeps_its_turns_jurisdictions(tmp_path):
    """A question that names no jurisdiction must not create an Irish concept, whether the
    capture lands at once or after the graph came back (the outbox keeps what the turn knew)."""
    h = await Harness(tmp_path, graph_retry_interval_seconds=0.2).start()
    try:
        h.graph.failures = 1_000
        plastic = {
            **NEW,
            "kind": "PLASTIC_TAX",
            "prefLabel": "Plastic packaging tax",
            "altLabels": [],
        }
        h.provider.script = [Text("answer"), tool({"concepts": [NEW]}), Done()]
        await h.turn("Is there a carbon tax?")  # no jurisdiction named
        h.provider.script = [Text("answer"), tool({"concepts": [plastic]}), Done()]
        await h.turn("Is there a plastic packaging tax in Ireland?")
        with anyio.fail_after(10):
            while h.retry.pending < 2:  # noqa: ASYNC110 - the outbox is written in a task
                await asyncio.sleep(0.01)
        h.graph.failures = 0
        with anyio.fail_after(10):
            while h.retry.pending:  # noqa: ASYNC110 - the schedule runs on its own
                await asyncio.sleep(0.01)
        found = await h.graph.get_nodes(["TAX:IE:CARBON_TAX", "TAX:IE:PLASTIC_TAX"])
        assert [n.id for n in found] == ["TAX:IE:PLASTIC_TAX"]  # not guessed; stated: created
    finally:
        await h.close()
