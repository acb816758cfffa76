"""The durable local job queue (engine/ingestion/sqlite_queue.py) on a real SQLite file."""

import pytest

from engine.ingestion import IngestionJob, QueueStats
from engine.ingestion.sqlite_queue import SqliteIngestionQueue

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


def queue(tmp_path, clock, **kwargs):
    return SqliteIngestionQueue(tmp_path / "jobs.db", clock=lambda: clock[0], **kwargs)


async def test_a_job_survives_a_restart_and_is_deduplicated_per_concept(tmp_path):
    clock = [1000.0]
    first = queue(tmp_path, clock)
    assert await first.enqueue(IngestionJob("TAX:IE:WEALTH_TAX", "missing"))
    assert not await first.enqueue(IngestionJob("TAX:IE:WEALTH_TAX", "sparse"))
    again = queue(tmp_path, clock)  # a new process on the same file
    [delivery] = await again.claim("w1", 5)
    assert (delivery.job.concept_id, delivery.attempt) == ("TAX:IE:WEALTH_TAX", 1)
    await again.ack(delivery)
    assert await again.stats() == QueueStats(0, 0, 0, 0)
    assert await again.enqueue(IngestionJob("TAX:IE:WEALTH_TAX", "sparse"))  # done: may requeue


async def test_a_failed_job_backs_off_and_a_poison_job_is_dead_lettered(tmp_path):
    clock = [1000.0]
    jobs = queue(tmp_path, clock, max_attempts=3, backoff_s=2.0)
    await jobs.enqueue(IngestionJob("TAX:IE:POISON", "missing"))
    for attempt in (1, 2, 3):
        [delivery] = await jobs.claim("w1")
        assert delivery.attempt == attempt
        await jobs.fail(delivery, "RuntimeError")
        assert await jobs.claim("w1") == []  # backing off (or dead after the last)
        clock[0] += 100
    assert [(job.concept_id, error) for job, error in await jobs.dead_letters()] == [
        ("TAX:IE:POISON", "RuntimeError")
    ]
    assert (await jobs.stats()).dead == 1


async def test_a_job_whose_worker_died_is_claimed_again_by_another(tmp_path):
    clock = [1000.0]
    jobs = queue(tmp_path, clock, claim_idle_s=60.0)
    await jobs.enqueue(IngestionJob("TAX:IE:ORPHAN", "missing"))
    [first] = await jobs.claim("dies")
    assert await jobs.claim("w2") == []  # not idle long enough yet
    clock[0] += 61
    [second] = await jobs.claim("w2")
    assert (second.job.concept_id, second.attempt) == ("TAX:IE:ORPHAN", 2)
    await jobs.ack(first)  # the dead worker's late ack does not remove the new claim
    assert (await jobs.stats()).in_progress == 1
    await jobs.ack(second)
    assert (await jobs.stats()).in_progress == 0


def test_the_jobs_command_lists_the_queue_and_its_dead_letters(tmp_path, monkeypatch):
    import asyncio
    import json

    from typer.testing import CliRunner

    from api.cli import app

    monkeypatch.setenv("REGINTEL_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("REGINTEL_LOG_LEVEL", "WARNING")
    jobs = SqliteIngestionQueue(tmp_path / "ingestion_jobs.db", max_attempts=1)

    async def fill() -> None:
        await jobs.enqueue(IngestionJob("TAX:IE:WAITING", "missing"))
        await jobs.enqueue(IngestionJob("TAX:IE:POISON", "sparse"))
        [first] = await jobs.claim("w1")
        await jobs.fail(first, "GraphUnavailable")

    asyncio.run(fill())
    result = CliRunner().invoke(app, ["jobs"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert (shown["waiting"], shown["dead"]) == (1, 1)
    assert shown["deadLetters"][0]["error"] == "GraphUnavailable"
