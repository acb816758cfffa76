"""``regintel concept merge / reject / audit`` against a real data folder (ADR 0034)."""

import asyncio
import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from api.bootstrap import bootstrap, open_graph
from api.cli import app
from api.settings import Settings
from engine.concepts import CapturedConcept
from engine.review import content_version
from engine.self_population import ConceptWrite, ConceptWriter

pytestmark = pytest.mark.integration

REVIEWED = CapturedConcept(
    domain="TAX", kind="SMALL_BENEFIT_EXEMPTION", jurisdiction="IE",
    prefLabel="Small benefit exemption",
)  # fmt: skip
MERGED = CapturedConcept(
    domain="TAX", kind="SMALL_BENEFIT_SCHEME", jurisdiction="IE", prefLabel="Small benefit scheme"
)
REJECTED = CapturedConcept(
    domain="TAX", kind="FALCON_RELIEF", jurisdiction="IE", prefLabel="Falcon relief"
)


def run(*args):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout  # stderr (logs, progress) is not part of what a command prints


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("REGINTEL_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("REGINTEL_LOG_LEVEL", "WARNING")

    async def write() -> None:
        async with open_graph(Settings()) as handle:
            concepts = ConceptWriter(handle.graph, handle.writer)
            await concepts.write(ConceptWrite(concept=REVIEWED, status="confirmed"))
            for captured in (MERGED, REJECTED):
                await concepts.write(ConceptWrite(concept=captured, status="provisional"))

    asyncio.run(write())
    return tmp_path / "var"


def statuses() -> dict[str, object]:
    return {c["id"]: c["status"] for c in json.loads(run("concept", "list"))}


def test_concept_list_shows_the_phrasings_of_quarantined_concepts_and_their_mentions(data_dir):
    async def capture() -> None:
        container = await bootstrap(Settings())
        try:
            for _ in range(2):  # two conversations, in the same words
                await container.population.resolve(
                    MERGED.model_copy(update={"altLabels": ["staff voucher"]})
                )
        finally:
            await container.aclose()

    asyncio.run(capture())
    listed = {c["id"]: c for c in json.loads(run("concept", "list"))}
    labels = ["Small benefit scheme", "staff voucher"]
    assert listed[MERGED.id] == {
        "id": MERGED.id, "status": "provisional", "prefLabel": "Small benefit scheme",
        "labels": labels, "definition": None, "sourceUrls": [], "flags": {},
        "version": content_version("Small benefit scheme", labels, None, [], []),
        "phrasings": {"Small benefit scheme": 2, "staff voucher": 2}, "mentions": 2,
    }  # fmt: skip
    assert (listed[REJECTED.id]["phrasings"], listed[REJECTED.id]["mentions"]) == (
        {"Falcon relief": 0},  # written before anything was counted
        0,
    )
    assert "phrasings" not in listed[REVIEWED.id]  # reviewed: not in the queue
    provisional = json.loads(run("concept", "list", "--status", "provisional"))
    assert {c["id"]: c["mentions"] for c in provisional} == {MERGED.id: 2, REJECTED.id: 0}
    confirmed = json.loads(run("concept", "list", "--status", "confirmed"))
    assert confirmed == [
        {"id": REVIEWED.id, "status": "confirmed", "prefLabel": "Small benefit exemption"}
    ]


def test_merge_reject_and_the_audit_trail(data_dir):
    assert json.loads(run("concept", "merge", MERGED.id, REVIEWED.id)) == {
        "merged": MERGED.id, "into": REVIEWED.id, "labels": 1, "edges": 1,
    }  # fmt: skip
    assert json.loads(run("concept", "reject", REJECTED.id)) == {
        "rejected": REJECTED.id, "removed": [REJECTED.id, "LABEL:falcon_relief"],
    }  # fmt: skip
    assert statuses() == {REVIEWED.id: "confirmed", MERGED.id: "merged"}
    records = [json.loads(line) for line in run("concept", "audit").splitlines()]
    assert [(r["action"], r["concept"], r["into"], r["by"]) for r in records] == [
        ("merge", MERGED.id, REVIEWED.id, "cli"),
        ("reject", REJECTED.id, None, "cli"),
    ]
    assert (data_dir / "review-audit.jsonl").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["merge", REVIEWED.id, REVIEWED.id], "cannot be merged into itself"),
        (["merge", MERGED.id, "TAX:IE:NOPE"], "no concept 'TAX:IE:NOPE' to merge into"),
        (["merge", REVIEWED.id, MERGED.id], "merge into a reviewed concept"),
        (["merge", "TAX:IE:NOPE", REVIEWED.id], "no concept 'TAX:IE:NOPE'"),
        (["reject", REVIEWED.id], "only a quarantined concept can be rejected"),
        (["reject", "TAX:IE:NOPE"], "no concept 'TAX:IE:NOPE'"),
    ],
)
def test_a_refused_review_action_fails_clearly_and_changes_nothing(data_dir, args, message):
    result = CliRunner().invoke(app, ["concept", *args])
    assert result.exit_code == 2
    assert message in " ".join(result.output.replace("│", " ").split())  # unboxed, unwrapped
    assert "Traceback" not in result.output
    assert statuses() == {
        REVIEWED.id: "confirmed", MERGED.id: "provisional", REJECTED.id: "provisional",
    }  # fmt: skip
    assert run("concept", "audit") == ""


def test_merge_and_reject_say_so_in_one_line_when_a_server_holds_the_graph(data_dir):
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
        for args, route in [
            (["merge", MERGED.id, REVIEWED.id], f"/api/review/concepts/{MERGED.id}/merge"),
            (["reject", REJECTED.id], f"/api/review/concepts/{REJECTED.id}/reject"),
        ]:
            result = CliRunner().invoke(app, ["concept", *args])
            assert result.exit_code == 1
            lines = [line for line in result.output.splitlines() if line.strip()]
            assert len(lines) == 1, result.output
            assert "in use by another process" in lines[0] and route in lines[0]
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    assert statuses()[MERGED.id] == "provisional"


def test_concept_list_shows_the_definition_and_sources_and_confirm_checks_the_version(data_dir):
    """issue 30: `concept list` never showed definitions or source URLs, so an operator
    confirmed blind; `concept confirm --version` confirms exactly what was listed."""
    shown = CapturedConcept(
        domain="TAX", kind="HERON_LEVY", jurisdiction="IE", prefLabel="Heron levy",
        definition="A levy of 0 percent on herons.",
        sourceUrls=["https://www.revenue.ie/en/heron-levy"],
    )  # fmt: skip

    async def write(concept: CapturedConcept) -> None:
        async with open_graph(Settings()) as handle:
            await ConceptWriter(handle.graph, handle.writer).write(
                ConceptWrite(concept=concept, status="provisional")
            )

    asyncio.run(write(shown))
    item = {c["id"]: c for c in json.loads(run("concept", "list"))}[shown.id]
    assert item["definition"] == "A levy of 0 percent on herons."
    assert item["sourceUrls"] == ["https://www.revenue.ie/en/heron-levy"]
    assert item["flags"] == {"definition": ["figure"]}
    version = item["version"]
    asyncio.run(write(shown.model_copy(update={"altLabels": ["heron duty"]})))  # changed since
    stale = CliRunner().invoke(app, ["concept", "confirm", shown.id, "--version", version])
    assert stale.exit_code != 0 and "changed since it was listed" in stale.output
    assert statuses()[shown.id] == "provisional"
    fresh = {c["id"]: c for c in json.loads(run("concept", "list"))}[shown.id]["version"]
    assert "updated" in run("concept", "confirm", shown.id, "--version", fresh)
    assert statuses()[shown.id] == "confirmed"
