"""Operator commands, run through Typer's runner against a real data folder."""

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.bootstrap import bootstrap
from api.cli import app
from api.settings import Settings
from corpus import shipped_acts
from engine.concepts import CapturedConcept
from engine.seeding import read_seed_files

pytestmark = pytest.mark.integration


def run(*args):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout  # stderr (logs, progress) is not part of what a command prints


def test_seed_is_idempotent_and_a_provisional_concept_can_be_confirmed(
    seeded_data_dir, monkeypatch
):
    # The session's seeded template (the same acts, seeded through the same function from
    # empty, every node created) seeded again by the command: nothing changes.
    monkeypatch.setenv("REGINTEL_DATA_DIR", str(seeded_data_dir))
    monkeypatch.setenv("REGINTEL_LOG_LEVEL", "WARNING")
    # Two Official Journal acts and DORA: the 49 JSON acts take minutes through the guard.
    acts = ["--act", "dora.json.gz"] + [
        arg for p in shipped_acts() if p.parent.name == "legal" for arg in ("--act", p.name)
    ]
    before = json.loads(run("graph", "counts"))
    again = json.loads(run("seed", *acts))
    assert set(again["nodes"]) == {"unchanged"} and set(again["edges"]) == {"unchanged"}
    assert json.loads(run("graph", "counts")) == before

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


def test_the_standin_command_serves_a_paced_stream():
    """``regintel standin`` by hand: the OpenAI chat-completions SDK gets a streamed answer."""
    import socket
    import subprocess
    import sys
    import time

    from openai import OpenAI

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    regintel = str(Path(sys.executable).parent / "regintel")  # the installed entry point
    command = [regintel, "standin", "--port", str(port)]
    command += ["--first-token-ms", "50", "--text", "hello from the stand-in"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = OpenAI(api_key="x", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
        for _ in range(1200):  # the command imports the whole app first
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        stream = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        assert text == "hello from the stand-in "
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_cli_reads_beside_a_running_server_and_says_so_when_it_cannot_write(
    tmp_path, monkeypatch
):
    """Regression: every command failed with a Ladybug lock traceback while `make demo` ran.
    Reads now open the embedded graph read-only beside the writer; writes say why in one line."""
    import subprocess
    import sys

    monkeypatch.setenv("REGINTEL_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("REGINTEL_LOG_LEVEL", "WARNING")
    run("graph", "init")
    path = Settings().resolved_ladybug_path
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import ladybug, sys, time; db = ladybug.Database(sys.argv[1]); "
         "ladybug.Connection(db).execute('RETURN 1'); print('held', flush=True); time.sleep(60)",
         str(path)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert json.loads(run("concept", "list")) == []
        assert "nodes" in json.loads(run("graph", "counts"))
        result = CliRunner().invoke(app, ["concept", "confirm", "TAX:IE:WEALTH_TAX"])
        assert result.exit_code == 1
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1, result.output
        assert "in use by another process" in lines[0]
        assert "POST /api/review/concepts/TAX:IE:WEALTH_TAX/confirm" in lines[0]
        assert "Traceback" not in result.output
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()  # an unclosed pipe is a ResourceWarning, an error here
