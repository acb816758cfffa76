"""``regintel serve --workers N`` (ADR 0056): refused in one line on the embedded defaults,
handed to uvicorn's supervisor on shared stores."""

from __future__ import annotations

from typing import Any

import pytest
import uvicorn
from typer.testing import CliRunner

from api.cli import app
from api.server import workers_refusal
from api.settings import Settings

pytestmark = pytest.mark.unit

SHARED = {
    "REGINTEL_GRAPH_BACKEND": "bolt",
    "REGINTEL_CONVERSATION_STORE": "postgres",
    "REGINTEL_REDIS_URL": "redis://127.0.0.1:6379/0",
}


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What uvicorn.run was asked to serve (nothing binds a port here)."""
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(
        uvicorn, "run", lambda app, **options: calls.append({"app": app, **options})
    )
    for name in (*SHARED, "REGINTEL_ENV"):
        monkeypatch.delenv(name, raising=False)
    return calls


def test_several_workers_on_the_embedded_defaults_are_refused_in_one_line(started) -> None:
    result = CliRunner().invoke(app, ["serve", "--workers", "2"])
    assert result.exit_code == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("regintel: --workers 2 needs stores the workers can share")
    assert "Ladybug" in line and "SQLite" in line and "no Redis" in line
    assert "PostgreSQL + Redis + a Bolt graph server" in line
    assert started == []  # nothing was served


@pytest.mark.parametrize("missing", sorted(SHARED))
def test_one_embedded_part_is_enough_to_refuse(missing: str) -> None:
    values = {
        "graph_backend": "bolt",
        "conversation_store": "postgres",
        "redis_url": "redis://127.0.0.1:6379/0",
    }
    del values[missing.removeprefix("REGINTEL_").lower()]
    refusal = workers_refusal(Settings(**values), 3)
    assert refusal is not None and "--workers 3" in refusal
    assert workers_refusal(Settings(**values), 1) is None


def test_several_workers_on_shared_stores_run_under_uvicorns_supervisor(
    started, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SHARED.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(app, ["serve", "--workers", "2", "--port", "8123"])
    assert result.exit_code == 0, result.output
    [call] = started
    assert call["app"] == "api.app:create_app" and call["factory"] is True
    assert call["workers"] == 2 and call["port"] == 8123
    assert call["http"] == "api.server:TimedHttpToolsProtocol"  # the head deadline and caps


def test_zero_workers_is_a_usage_error(started) -> None:
    result = CliRunner().invoke(app, ["serve", "--workers", "0"])
    assert result.exit_code == 2 and started == []
