"""Operator commands, run through Typer's runner against a real data folder."""

import asyncio
import json
from pathlib import Path

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


SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "eu-legislation"
DIRECTIVE = SHARED / "payment-accounts-directive_32014L0092" / "32014L0092_akn4eu.xml"
FORMEX = sorted((SHARED / "interoperable-europe-act_32024R0903" / "formex").glob("*.xml"))


def test_ingest_writes_an_act_once_and_evaluation_reads_the_graph(tmp_path, monkeypatch):
    monkeypatch.setenv("REGINTEL_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("REGINTEL_LOG_LEVEL", "WARNING")
    first = json.loads(run("ingest", str(DIRECTIVE)))
    second = json.loads(run("ingest", str(DIRECTIVE)))
    assert first["acts"] == ["EU:DIR_2014_92"] == second["acts"]
    assert set(first["nodes"]) == {"created"} and set(second["nodes"]) == {"unchanged"}
    assert set(second["edges"]) == {"unchanged"}
    counts = json.loads(run("graph", "counts"))
    assert counts["by_label"]["Article"] == 31

    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        json.dumps({"id": "q1", "question": "What does Article 16 of Directive 2014/92/EU say?",
                    "provisions": ["EU:DIR_2014_92:ART_16"], "category": "lookup"}) + "\n"
        + json.dumps({"id": "q2", "question": "What is the wealth tax rate in France?",
                      "provisions": [], "category": "negative"}) + "\n"
    )  # fmt: skip
    report = json.loads(run("eval", "retrieval", str(questions), "--json"))
    assert report["overall"]["recall_at_1"] == 1.0
    assert report["overall"]["refusal_rate"] == 1.0


def test_ingest_refuses_a_missing_file_clearly(tmp_path, monkeypatch):
    monkeypatch.setenv("REGINTEL_DATA_DIR", str(tmp_path / "var"))
    result = CliRunner().invoke(app, ["ingest", str(tmp_path / "nope.html")])
    assert result.exit_code == 2  # a usage error, before anything is opened
    assert "Invalid value" in result.output  # "…: no such file", wrapped by the error box
