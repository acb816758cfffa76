"""``regintel`` — the operator's command line: serve, seed, graph init, graph counts, concepts.

Every command builds what it needs through the composition root (:mod:`api.bootstrap`):
:func:`~api.bootstrap.open_graph` for the graph-only commands, so the CLI writes through the
same ``GraphWriteService`` and ingress guard as the app, and closes what it opened.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from api.bootstrap import open_graph
from api.logging import configure_logging
from api.settings import Settings
from engine.seeding import DEFAULT_SEEDS, seed_graph
from engine.self_population import confirm_concept
from errors import NotFound

__all__ = [
    "app",
    "concept_app",
    "concept_confirm",
    "concept_list",
    "console",
    "graph_app",
    "graph_counts",
    "graph_init",
    "seed",
    "serve",
]

app = typer.Typer(help="Regintel operator commands.", no_args_is_help=True)
graph_app = typer.Typer(help="Rules-graph commands.", no_args_is_help=True)
app.add_typer(graph_app, name="graph")
concept_app = typer.Typer(help="Captured concepts: review and confirm.", no_args_is_help=True)
app.add_typer(concept_app, name="concept")
console = Console()


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
    report = asyncio.run(_seed(Settings(), folder))
    console.print_json(json.dumps(report))


async def _seed(settings: Settings, folder: Path) -> dict[str, object]:
    configure_logging(settings.log_level, json=settings.log_json)
    async with open_graph(settings) as handle:
        report = await seed_graph(handle.graph, handle.writer, folder)
        counts = await handle.graph.counts()
        return {**report.summary(), "graph": {"nodes": counts.nodes, "edges": counts.edges}}


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
