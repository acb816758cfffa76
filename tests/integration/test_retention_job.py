"""The retention job (``conversations.retention``, ADR 0048) over a real store (SQLite and
PostgreSQL): it erases what is older than its period and nothing else, on its schedule, and a
failing pass does not stop the next; and the app starts one only when the setting is on."""

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from api.bootstrap import bootstrap
from api.settings import Settings
from conversations.models import ConversationContext, ErasureTotals, NewMessage
from conversations.retention import RetentionJob
from engine.lexicon import ConceptLexicon
from errors import ConversationStoreUnavailable

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def store(conversation_backend: Any) -> Any:
    store = conversation_backend.open()
    await store.init()
    yield store
    await store.aclose()


async def conversation(store: Any, tenant: str, user: str, text: str) -> str:
    created = await store.create_conversation(tenant, user)
    message = NewMessage(role="user", content=text, content_sanitised=text)
    await store.save_turn(tenant, created.id, [message], ConversationContext(), user_id=user)
    return str(created.id)


async def test_a_pass_erases_only_what_is_older_than_the_period(store: Any) -> None:
    old = await conversation(store, "acme", "alice", "old")
    await conversation(store, "globex", "gina", "old too")
    written = datetime.now(UTC)
    later = written + timedelta(days=30)
    # thirty days on: a 31-day period keeps both, a 30-day one erases both
    assert (await RetentionJob(store, 31, clock=lambda: later).run_once()).conversations == 0
    assert [c.id for c in await store.export_conversations("acme", user_id="alice")] == [old]
    fresh = await conversation(store, "acme", "alice", "fresh")
    totals = await RetentionJob(store, 30, clock=lambda: later).run_once()
    assert (totals.conversations, totals.questions) == (2, 2)
    # the one started after the cutoff (the moment ``written``) stays
    assert [c.id for c in await store.export_conversations("acme", user_id="alice")] == [fresh]
    assert await store.export_conversations("globex", user_id="gina") == []
    [record] = await store.erasures("acme")  # one per tenant
    assert (record.kind, record.requested_by, record.conversations) == ("expired", "retention", 1)


class FlakyStore:
    """Fails its first pass, then counts the cutoffs it is asked for."""

    def __init__(self) -> None:
        self.cutoffs: list[datetime] = []

    async def erase_expired(self, before: datetime, batch: int = 200) -> ErasureTotals:
        self.cutoffs.append(before)
        if len(self.cutoffs) == 1:
            raise ConversationStoreUnavailable("down")
        return ErasureTotals()


async def test_the_schedule_runs_on_after_a_failed_pass_and_stops_on_close() -> None:
    flaky = FlakyStore()
    now = datetime(2026, 11, 27, tzinfo=UTC)
    job = RetentionJob(flaky, 7, interval=0.01, jitter=0.0, clock=lambda: now)
    job.start()
    with anyio.fail_after(10):
        while job.passes < 3:  # noqa: ASYNC110 - the job's own counter, no event to wait on
            await asyncio.sleep(0.01)
    await job.aclose()
    assert flaky.cutoffs[:3] == [now - timedelta(days=7)] * 3
    passes = job.passes
    await asyncio.sleep(0.05)
    assert job.passes == passes  # stopped
    with pytest.raises(ValueError):
        RetentionJob(flaky, 0)


@pytest.mark.parametrize("days", [0, 1])
async def test_the_app_runs_the_job_only_when_the_setting_is_on(
    tmp_path: Path, days: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[int] = []
    monkeypatch.setattr(RetentionJob, "start", lambda self: started.append(self._days))
    settings = Settings(data_dir=tmp_path, log_json=False, conversation_retention_days=days)
    container = await bootstrap(settings, lexicon=ConceptLexicon())
    try:
        assert started == ([days] if days else [])
    finally:
        await container.aclose()
