"""``regintel`` — the operator's command line: serve, seed, graph init, graph counts, concepts.

Every command builds what it needs through the composition root (:mod:`api.bootstrap`):
:func:`~api.bootstrap.open_graph` for the graph-only commands, so the CLI writes through the
same ``GraphWriteService`` and ingress guard as the app, and closes what it opened.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from api.bootstrap import open_graph
from api.logging import configure_logging
from api.settings import Settings
from engine.legal_ingest import ingest_acts
from engine.seeding import DEFAULT_SEEDS, seed_graph
from engine.self_population import confirm_concept
from errors import NotFound

__all__ = [
    "app",
    "concept_app",
    "concept_confirm",
    "concept_list",
    "console",
    "eval_app",
    "eval_retrieval",
    "graph_app",
    "graph_counts",
    "graph_init",
    "ingest",
    "main",
    "seed",
    "serve",
]

app = typer.Typer(help="Regintel operator commands.", no_args_is_help=True)
graph_app = typer.Typer(help="Rules-graph commands.", no_args_is_help=True)
app.add_typer(graph_app, name="graph")
concept_app = typer.Typer(help="Captured concepts: review and confirm.", no_args_is_help=True)
app.add_typer(concept_app, name="concept")
eval_app = typer.Typer(help="Quality measurements.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")
console = Console()


@app.callback()
def main() -> None:
    """Regintel operator commands (settings from REGINTEL_* variables; logs on stderr)."""
    settings = Settings()
    configure_logging(settings.log_level, json=settings.log_json)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to bind.")] = 8000,
) -> None:
    """Serve the HTTP API."""
    import uvicorn

    from api.app import create_app

    uvicorn.run(create_app(), host=host, port=port, log_level="info")


@app.command()
def seed(
    folder: Annotated[Path, typer.Option(help="Folder of seed YAML files.")] = DEFAULT_SEEDS,
) -> None:
    """Load the seed rules graph through the write service (idempotent)."""
    settings = Settings()

    async def run() -> dict[str, object]:
        async with open_graph(settings) as handle:
            with _progress() as advance:
                report = await seed_graph(handle.graph, handle.writer, folder, progress=advance)
            counts = await handle.graph.counts()
            return {**report.summary(), "graph": {"nodes": counts.nodes, "edges": counts.edges}}

    console.print_json(json.dumps(asyncio.run(run())))


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="EU acts: EUR-Lex XHTML, Formex or AKN.")],
) -> None:
    """Ingest EU legal acts into the rules graph (idempotent; through the ingress guard)."""
    settings = Settings()
    for path in paths:
        if not path.is_file():
            raise typer.BadParameter(f"{path}: no such file")

    async def run() -> dict[str, object]:
        async with open_graph(settings) as handle:
            with _progress() as advance:
                report = await ingest_acts(paths, handle.graph, handle.writer, advance)
            return report.summary()

    console.print_json(json.dumps(asyncio.run(run())))


@eval_app.command("retrieval")
def eval_retrieval(
    path: Annotated[Path, typer.Argument(help="Questions: SCRA JSON or JSONL with provisions.")],
    k: Annotated[int, typer.Option(help="Evidence retrieved per question.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Recall@1/5/10, MRR, nDCG@10 and refusal rates of evidence retrieval on the graph."""
    from engine.evidence import EvidenceIndex
    from engine.retrieval_eval import evaluate, load_questions

    questions = load_questions(path)

    async def run() -> EvidenceIndex:
        async with open_graph(Settings()) as handle:
            index = EvidenceIndex(handle.graph)
            await index.refresh()
            return index

    index = asyncio.run(run())

    def retrieve(question: str) -> tuple[list[str], bool]:
        evidence = index.search(question, k)
        return [hit.node.id for hit in evidence.hits], not evidence.verdict.answerable

    report = evaluate(questions, retrieve)
    if as_json:
        console.print_json(json.dumps(report.to_dict()))
    else:
        console.print(report.format(), markup=False, highlight=False)


@graph_app.command("init")
def graph_init() -> None:
    """Create the tables / constraints / indexes derived from schema/graph.yaml."""

    async def run() -> None:
        async with open_graph(Settings()):
            pass  # opening initialises the schema

    asyncio.run(run())
    console.print("graph schema initialised")


@graph_app.command("counts")
def graph_counts() -> None:
    """Print node and edge counts by label."""

    async def run() -> dict[str, object]:
        async with open_graph(Settings()) as handle:
            return (await handle.graph.counts()).model_dump()

    console.print_json(json.dumps(asyncio.run(run())))


@concept_app.command("list")
def concept_list(
    status: Annotated[str | None, typer.Option(help="provisional or confirmed")] = None,
) -> None:
    """List concepts (id, status, preferred label)."""

    async def run() -> list[dict[str, object]]:
        async with open_graph(Settings()) as handle:
            nodes = (await handle.graph.snapshot(labels=["Concept"], limit=100_000)).nodes
        return [
            {
                "id": n.id,
                "status": n.properties.get("status"),
                "prefLabel": n.properties.get("pref_label"),
            }
            for n in nodes
            if status is None or n.properties.get("status") == status
        ]

    console.print_json(json.dumps(asyncio.run(run())))


@concept_app.command("confirm")
def concept_confirm(concept_id: str) -> None:
    """Confirm a provisional concept: from now on it is evidence for every tenant."""

    async def run() -> str:
        async with open_graph(Settings()) as handle:
            try:
                return (await confirm_concept(handle.graph, handle.writer, concept_id)).value
            except NotFound as exc:
                raise typer.BadParameter(exc.message) from exc

    console.print(f"{concept_id}: {asyncio.run(run())}")


@contextmanager
def _progress() -> Iterator[Callable[[str, int], None]]:
    """A progress bar on stderr; yields the callback that advances it."""
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("ingesting", total=None)

        def advance(step: str, count: int) -> None:
            bar.update(task, description=step, advance=count)

        yield advance
