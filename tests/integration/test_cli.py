"""Operator commands, run through Typer's runner against a real data folder."""

import asyncio
import json

import pytest
from typer.testing import CliRunner

from api.bootstrap import bootstrap
from api.cli import app
from api.settings import Settings
from engine.concepts import CapturedConcept
from engine.seeding import read_seed_files

pytestmark = pytest.mark.integration


def run(*args):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_seed_is_idempotent_and_a_provisional_concept_can_be_confirmed(tmp_path, monkeypatch):
    monkeypatch.setenv("REGINTEL_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("REGINTEL_LOG_LEVEL", "WARNING")
    first = json.loads(run("seed"))
    second = json.loads(run("seed"))
    assert set(first["nodes"]) == {"created"} and set(second["nodes"]) == {"unchanged"}
    assert first["graph"] == second["graph"]

    async def capture() -> None:
        container = await bootstrap(Settings())
        try:
            await container.population.resolve(
                CapturedConcept(
                    domain="TAX", kind="WEALTH_TAX", jurisdiction="IE", prefLabel="Wealth tax"
                )
            )
        finally:
            await container.aclose()

    asyncio.run(capture())
    assert [c["id"] for c in json.loads(run("concept", "list", "--status", "provisional"))] == [
        "TAX:IE:WEALTH_TAX"
    ]
    assert "TAX:IE:WEALTH_TAX: updated" in run("concept", "confirm", "TAX:IE:WEALTH_TAX")
    assert json.loads(run("concept", "list", "--status", "provisional")) == []
    counts = json.loads(run("graph", "counts"))
    assert counts["by_label"]["Concept"] == len(read_seed_files()["concepts"]) + 1


def test_confirming_an_unknown_concept_fails_clearly(tmp_path, monkeypatch):
    monkeypatch.setenv("REGINTEL_DATA_DIR", str(tmp_path / "var"))
    result = CliRunner().invoke(app, ["concept", "confirm", "TAX:IE:NOPE"])
    assert result.exit_code != 0
    assert "no concept 'TAX:IE:NOPE'" in result.output
