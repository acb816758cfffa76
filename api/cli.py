"""``regintel`` — the operator's command line: serve, seed, graph init, graph counts, concepts
(list, confirm, merge, reject, audit).

Every command builds what it needs through the composition root (:mod:`api.bootstrap`):
:func:`~api.bootstrap.open_graph` for the graph-only commands, so the CLI writes through the
same ``GraphWriteService`` and ingress guard as the app, and closes what it opened.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
import yaml
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from api.bootstrap import open_graph
from api.logging import configure_logging
from api.settings import Settings
from corpus.parse import detect_format
from engine.legal_ingest import ingest_acts
from engine.review import (
    REVIEW_AUDIT_FILE,
    ReviewAudit,
    confirm_concept,
    merge_concepts,
    reject_concept,
    review_queue,
)
from engine.seeding import DEFAULT_SEEDS, seed_graph
from errors import (
    GraphUnavailable,
    GraphWriteRejected,
    InvalidInput,
    NotFound,
    RegintelError,
    ReviewConflict,
)
from graph.models import NodeWrite
from graph.port import GraphReader
from graph.write_service import GraphWriteService

__all__ = [
    "acts_to_ingest",
    "app",
    "concept_app",
    "concept_audit",
    "concept_confirm",
    "concept_list",
    "concept_merge",
    "concept_reject",
    "console",
    "embed",
    "eval_app",
    "eval_retrieval",
    "graph_app",
    "graph_counts",
    "graph_init",
    "ingest",
    "jobs",
    "main",
    "seed",
    "serve",
    "standin",
]

app = typer.Typer(help="Regintel operator commands.", no_args_is_help=True)
graph_app = typer.Typer(help="Rules-graph commands.", no_args_is_help=True)
app.add_typer(graph_app, name="graph")
concept_app = typer.Typer(
    help="Captured concepts: review, confirm, merge, reject.", no_args_is_help=True
)
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
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="Worker processes on this machine, sharing one socket and the configured "
            "stores (PostgreSQL + Redis + a Bolt graph server; the embedded defaults allow 1).",
        ),
    ] = 1,
) -> None:
    """Serve the HTTP API."""
    from api.app import create_app
    from api.server import serve as serve_app
    from api.server import serve_workers, workers_refusal
    from api.settings import Settings

    settings = Settings()
    refusal = workers_refusal(settings, workers)
    if refusal is not None:
        _fail(refusal)
    if workers > 1:
        serve_workers(settings, host=host, port=port, workers=workers)
        return
    serve_app(create_app(settings), settings, host=host, port=port)


@app.command()
def standin(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to bind.")] = 8100,
    first_token_ms: Annotated[
        float, typer.Option(help="Time to first token, in milliseconds.")
    ] = 300.0,
    tokens_per_second: Annotated[
        float, typer.Option(help="Token rate after the first (0: unpaced).")
    ] = 40.0,
    text: Annotated[
        str | None, typer.Option(help="Answer text (default: a short fixed sentence).")
    ] = None,
) -> None:
    """Serve the stand-in model (OpenAI Responses, chat completions, Anthropic Messages)."""
    import uvicorn

    from tools.standin import Pacing, Reply, StandinServer

    pacing = Pacing(first_token_ms / 1000, tokens_per_second or None)
    default = Reply(text=[f"{word} " for word in text.split()]) if text else None
    console.print(
        f"stand-in model on http://{host}:{port}: OpenAI base_url http://{host}:{port}/v1, "
        f"Anthropic base_url http://{host}:{port}",
        highlight=False,
    )
    uvicorn.run(StandinServer(pacing=pacing, default=default), host=host, port=port)


@app.command()
def seed(
    folder: Annotated[Path, typer.Option(help="Folder of seed YAML files.")] = DEFAULT_SEEDS,
    acts: Annotated[
        list[str] | None,
        typer.Option(
            "--act",
            help="Only these shipped acts (file names under seeds/legal, e.g. dora.json.gz; "
            "repeatable). Default: every shipped act (the AI Act, the GDPR and 49 JSON acts).",
        ),
    ] = None,
) -> None:
    """Load the seed rules graph and the shipped acts through the write service (idempotent)."""
    from corpus import shipped_acts

    settings = Settings()
    legal = None
    if acts:
        legal = [p for p in shipped_acts() if p.name in set(acts)]
        unknown = set(acts) - {p.name for p in legal}
        if unknown:
            raise typer.BadParameter(f"not a shipped act: {', '.join(sorted(unknown))}")

    async def run() -> dict[str, object]:
        async with open_graph(settings) as handle:
            with _progress() as advance:
                advance(f"seed rules and concepts from {folder}", 0)
                try:
                    report = await seed_graph(
                        handle.graph, handle.writer, folder, legal, progress=advance
                    )
                except GraphWriteRejected as exc:
                    raise _located(exc, folder, handle.writer) from None
                advance("embed the new provisions", 0)
                embedded = await _embed_new(
                    settings, handle.graph, advance, limit=_SEED_EMBED_LIMIT
                )
            counts = await handle.graph.counts()
            graph = {"nodes": counts.nodes, "edges": counts.edges}
            return {**report.summary(), "graph": graph, "embeddings": embedded}

    summary = _run(run())
    console.print_json(json.dumps(summary))
    legal_report = summary.get("legal")
    if isinstance(legal_report, dict):
        _explain_skipped_edges(legal_report)


@app.command()
def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="EU acts (EUR-Lex XHTML, Formex, AKN or EU act JSON), or folders of them: a "
            "folder's files that are not acts are named and skipped."
        ),
    ],
) -> None:
    """Ingest EU legal acts into the rules graph (idempotent; through the ingress guard)."""
    settings = Settings()
    for path in paths:
        if not path.exists():  # a usage error (exit 2), before anything is opened
            raise typer.BadParameter(f"{path}: no such file or folder")
    acts, skipped = _run_checked(lambda: acts_to_ingest(paths))
    for path, reason in skipped:
        _err(f"skipped {path}: {reason}")
    if not acts:
        _fail("no act to ingest: " + ", ".join(str(p) for p in paths) + " holds none")

    async def run() -> dict[str, object]:
        async with open_graph(settings) as handle:
            with _progress() as advance:
                report = await ingest_acts(acts, handle.graph, handle.writer, advance)
                embedded = await _embed_new(settings, handle.graph, advance)
            return {
                **report.summary(),
                "skippedFiles": [{"path": str(p), "reason": r} for p, r in skipped],
                "embeddings": embedded,
            }

    summary = _run(run())
    console.print_json(json.dumps(summary))
    _explain_skipped_edges(summary)


def acts_to_ingest(paths: Sequence[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The acts ``paths`` name, and the files of their folders that are not acts, with why.

    A file named on the command line must be an act (:class:`errors.InvalidInput` otherwise); a
    folder is read for the files it holds (recursively; a folder of Formex files is one act) and
    the rest is skipped, by name."""
    acts: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    for path in paths:
        if not path.exists():
            raise InvalidInput(f"{path}: no such file or folder")
        if path.is_file() or any(path.glob("*.fmx.xml")):
            detect_format(path)
            acts.append(path)
            continue
        formex = {p.parent for p in path.rglob("*.fmx.xml")}
        acts += sorted(formex)
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            if file.parent in formex:
                continue
            try:
                detect_format(file)
            except InvalidInput as exc:
                skipped.append((file, exc.message.removeprefix(f"{file.name}: ")))
            except (OSError, EOFError) as exc:  # unreadable, a broken .gz
                skipped.append((file, f"unreadable ({type(exc).__name__})"))
            else:
                acts.append(file)
    return acts, skipped


def _explain_skipped_edges(summary: dict[str, object]) -> None:
    """One line on what ``skippedEdges`` counts (issue 26): not an error, and why."""
    count = summary.get("skippedEdges")
    if isinstance(count, int) and count:
        _err(
            f"skippedEdges {count}: references (CITES, PART_OF) to provisions the graph does "
            "not hold (an act not ingested, a paragraph its act lacks) or from a provision the "
            "guard refused; they are linked once their target is ingested"
        )


_SEED_EMBED_LIMIT = 500  # texts `regintel seed` embeds beyond the shipped vectors (the rest: embed)


async def _embed_new(
    settings: Settings,
    graph: GraphReader,
    advance: Callable[[str, int], None],
    *,
    rebuild: bool = False,
    limit: int | None = None,
) -> dict[str, object] | None:
    """Embed the provisions that have no vector yet (all of them with ``rebuild``) into the
    data folder's vector store; ``None`` when the embedder is ``none``."""
    from api.embedder import build_settings_embedder
    from embeddings import VectorStore
    from embeddings.factory import open_vectors, vectors_path
    from engine.embedding_sync import embed_graph

    embedder = build_settings_embedder(settings)
    try:
        if not embedder.dimension:
            return None
        path = vectors_path(settings.data_dir, embedder)
        if rebuild:
            store: VectorStore | None = VectorStore(embedder.model, embedder.dimension)
        else:
            store = open_vectors(settings.data_dir, embedder)
        assert store is not None
        report = await embed_graph(graph, embedder, store, path, advance, limit=limit)
        return report.summary()
    finally:
        embedder.close()


@app.command()
def embed(
    rebuild: Annotated[
        bool,
        typer.Option(
            "--rebuild",
            help="Start from an empty vector store (after changing REGINTEL_EMBEDDER or the "
            "model, or when the stored vectors are another model's).",
        ),
    ] = False,
) -> None:
    """Embed the graph's provisions that have no vector yet (ADR "sentence embeddings")."""
    settings = Settings()

    async def run() -> dict[str, object] | None:
        async with open_graph(settings, read_only=True) as handle:
            with _progress() as advance:
                return await _embed_new(settings, handle.graph, advance, rebuild=rebuild)

    console.print_json(json.dumps(_run(run())))


@app.command()
def jobs(
    dead: Annotated[int, typer.Option(help="How many dead-lettered jobs to list.")] = 20,
) -> None:
    """The ingestion job queue: waiting, in progress, delayed, dead (and the last dead jobs)."""
    from api.topology import build_ingestion_queue, build_redis

    settings = Settings()

    async def run() -> dict[str, object]:
        redis = build_redis(settings)
        try:
            queue = build_ingestion_queue(settings, redis)
            stats = await queue.stats()
            letters = await queue.dead_letters(dead)
        finally:
            if redis is not None:
                await redis.aclose()
        return {
            "waiting": stats.waiting,
            "inProgress": stats.in_progress,
            "delayed": stats.delayed,
            "dead": stats.dead,
            "deadLetters": [
                {"conceptId": job.concept_id, "reason": job.reason, "error": error}
                for job, error in letters
            ],
        }

    console.print_json(json.dumps(_run(run())))


@eval_app.command("retrieval")
def eval_retrieval(
    path: Annotated[Path, typer.Argument(help="Questions: SCRA JSON or JSONL with provisions.")],
    k: Annotated[int, typer.Option(help="Evidence retrieved per question.")] = 10,
    modes: Annotated[
        str,
        typer.Option(
            help="Comma-separated channels to compare side by side in one run: lexical (BM25, "
            "references, graph), dense (the semantic channel alone), fused (both)."
        ),
    ] = "fused",
    acts: Annotated[bool, typer.Option("--acts", help="Also one row per act.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Recall@1/5/10, MRR, nDCG@10 and refusal rates of evidence retrieval on the graph, per
    category (and per act), for each retrieval mode."""
    from api.embedder import build_settings_embedder
    from embeddings.factory import open_vectors
    from engine.evidence import EvidenceIndex
    from tools.retrieval_eval import evaluate, load_questions

    channels = {"lexical": frozenset({"lexical"}), "dense": frozenset({"dense"}), "fused": None}
    chosen = [m.strip() for m in modes.split(",") if m.strip()]
    if unknown := [m for m in chosen if m not in channels]:
        raise typer.BadParameter(f"unknown mode {unknown}: lexical, dense or fused")
    questions = load_questions(path)
    settings = Settings()
    embedder = build_settings_embedder(settings)

    async def run() -> EvidenceIndex:
        async with open_graph(settings, read_only=True) as handle:
            vectors = open_vectors(settings.data_dir, embedder)
            index = EvidenceIndex(handle.graph, embedder=embedder, vectors=vectors)
            await index.refresh()
            return index

    index = _run(run())
    reports = {}
    for mode in chosen:

        def retrieve(question: str, used: frozenset[str] | None = channels[mode]) -> Any:
            evidence = index.search(question, k, channels_used=used)
            return [hit.node.id for hit in evidence.hits], not evidence.verdict.answerable

        reports[mode] = evaluate(questions, retrieve)
    embedder.close()
    if as_json:
        # One mode: its report, as before --modes existed; several: keyed by mode.
        if len(reports) == 1:
            console.print_json(json.dumps(next(iter(reports.values())).to_dict()))
        else:
            console.print_json(json.dumps({mode: r.to_dict() for mode, r in reports.items()}))
        return
    for mode, report in reports.items():
        console.print(f"== {mode} ==", markup=False, highlight=False)
        console.print(report.format(acts=acts), markup=False, highlight=False)


@graph_app.command("init")
def graph_init() -> None:
    """Create the tables / constraints / indexes derived from schema/graph.yaml."""

    async def run() -> None:
        async with open_graph(Settings()):
            pass  # opening initialises the schema

    _run(run())
    console.print("graph schema initialised")


@graph_app.command("counts")
def graph_counts() -> None:
    """Print node and edge counts by label."""

    async def run() -> dict[str, object]:
        async with open_graph(Settings(), read_only=True) as handle:
            return (await handle.graph.counts()).model_dump()

    console.print_json(json.dumps(_run(run())))


@concept_app.command("list")
def concept_list(
    status: Annotated[str | None, typer.Option(help="provisional or confirmed")] = None,
) -> None:
    """List concepts (id, status, preferred label); a provisional one also with every label,
    its definition and source URLs, the flags on text that needs a careful look (markup,
    newline, instruction, citation, figure), its version (pass it to confirm), its phrasings
    (label text -> captures that used it) and mentions (captures in all)."""

    async def run() -> list[dict[str, object]]:
        async with open_graph(Settings(), read_only=True) as handle:
            nodes = (await handle.graph.snapshot(labels=["Concept"], limit=100_000)).nodes
            waiting = (
                await review_queue(handle.graph, limit=100_000) if status != "confirmed" else []
            )
            queue = {item.id: item for item in waiting}
        listed: list[dict[str, object]] = []
        for n in nodes:
            if status is not None and n.properties.get("status") != status:
                continue
            entry: dict[str, object] = {
                "id": n.id,
                "status": n.properties.get("status"),
                "prefLabel": n.properties.get("pref_label"),
            }
            if (item := queue.get(n.id)) is not None:
                # everything confirming it makes shared, with what needs a careful look
                # (issue 30, ADR 0044); confirm with --version to approve exactly this
                entry |= {
                    "labels": list(item.labels),
                    "definition": item.definition,
                    "sourceUrls": list(item.source_urls),
                    "flags": {key: list(kinds) for key, kinds in item.flags.items()},
                    "version": item.version,
                    "phrasings": item.phrasings,
                    "mentions": item.mentions,
                }
            listed.append(entry)
        return listed

    console.print_json(json.dumps(_run(run())))


@concept_app.command("confirm")
def concept_confirm(
    concept_id: str,
    version: Annotated[
        str | None,
        typer.Option(
            help="The version `concept list` showed: a concept changed since is not confirmed."
        ),
    ] = None,
) -> None:
    """Confirm a provisional concept: from now on it is evidence for every tenant."""

    async def run() -> str:
        async with open_graph(Settings()) as handle:
            try:
                outcome = await confirm_concept(
                    handle.graph, handle.writer, concept_id, version=version
                )
            except (NotFound, ReviewConflict) as exc:
                raise typer.BadParameter(exc.message) from exc
            return outcome.value

    hint = (
        f"or confirm it through the running server: POST /api/review/concepts/{concept_id}/confirm"
    )
    console.print(f"{concept_id}: {_run(run(), hint)}")


@concept_app.command("merge")
def concept_merge(
    concept_id: Annotated[str, typer.Argument(help="The concept merged away (the redirect).")],
    into: Annotated[str, typer.Argument(help="The reviewed concept that survives.")],
) -> None:
    """Merge a concept into another: its labels and edges move, it becomes a redirect."""
    settings = Settings()

    async def run() -> dict[str, object]:
        async with open_graph(settings) as handle:
            try:
                record = await merge_concepts(
                    handle.graph,
                    handle.writer,
                    concept_id,
                    into,
                    audit=_audit(settings),
                    by="cli",
                )
            except (NotFound, InvalidInput, ReviewConflict) as exc:
                raise typer.BadParameter(exc.message) from exc
        return {
            "merged": concept_id,
            "into": into,
            "labels": len(record.labels),
            "edges": record.edges,
        }

    hint = f"or merge through the running server: POST /api/review/concepts/{concept_id}/merge"
    console.print_json(json.dumps(_run(run(), hint)))


@concept_app.command("reject")
def concept_reject(concept_id: str) -> None:
    """Reject a quarantined concept: it and the labels only it used are removed."""
    settings = Settings()

    async def run() -> dict[str, object]:
        async with open_graph(settings) as handle:
            try:
                record = await reject_concept(
                    handle.graph, handle.writer, concept_id, audit=_audit(settings), by="cli"
                )
            except (NotFound, ReviewConflict) as exc:
                raise typer.BadParameter(exc.message) from exc
        return {"rejected": concept_id, "removed": list(record.removed)}

    hint = f"or reject through the running server: POST /api/review/concepts/{concept_id}/reject"
    console.print_json(json.dumps(_run(run(), hint)))


@concept_app.command("audit")
def concept_audit() -> None:
    """List the audited merges and rejections, oldest first (one JSON object per line)."""
    for record in _audit(Settings()).records():
        console.print(record.to_json(), markup=False, highlight=False, soft_wrap=True)


def _audit(settings: Settings) -> ReviewAudit:
    return ReviewAudit(settings.data_dir / REVIEW_AUDIT_FILE)


_T = TypeVar("_T")


#: Errors in the data a command reads (a seed file, an act): one line, never a traceback.
_DATA_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,  # a seed file's SeedFileError, JSON, a parser's complaint
    KeyError,
    SyntaxError,  # lxml's XMLSyntaxError
    yaml.YAMLError,
    OSError,
    EOFError,  # a truncated .gz
)


def _run(work: Coroutine[Any, Any, _T], hint: str = "") -> _T:
    """Run a graph command; a graph that cannot be opened (held by a running server, down) is
    one clear line on stderr and exit status 1, not a traceback; so is an error in the data it
    reads (issue 26): what, where and which rule, in a line or two."""
    try:
        return asyncio.run(work)
    except GraphUnavailable as exc:
        _fail(f"{exc.message}{'; ' + hint if hint else ''}")
    except RegintelError as exc:
        _fail(f"{exc.message} ({exc.code})")
    except _DATA_ERRORS as exc:
        _fail(_data_error(exc))


def _run_checked(check: Callable[[], _T]) -> _T:
    """A check before the graph is opened, with :func:`_run`'s one-line errors."""
    try:
        return check()
    except RegintelError as exc:
        _fail(f"{exc.message} ({exc.code})")
    except _DATA_ERRORS as exc:
        _fail(_data_error(exc))


def _data_error(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _err(line: str) -> None:
    Console(stderr=True).print(f"regintel: {line}", highlight=False, soft_wrap=True, markup=False)


def _fail(line: str) -> NoReturn:
    _err(line)
    raise typer.Exit(1)


def _located(exc: GraphWriteRejected, folder: Path, writer: GraphWriteService) -> RegintelError:
    """The guard's refusal during ``seed``, with the seed file and node it came from: the
    rules are checked again file by file (only after a refusal; the value is never shown)."""
    for file in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
        for index, node in enumerate(data.get("nodes") or []):
            write = NodeWrite(
                id=str(node.get("id", "")),
                label=str(node.get("label", "")),
                properties=node.get("properties") or {},
            )
            try:
                writer.check_nodes([write])
            except GraphWriteRejected as found:
                rule = "the ingress guard keeps personal data and unknown properties out"
                where = f"{file.name}: nodes[{index}] ({write.label})"
                return type(found)(f"{where}: {found.message}; {rule}")
    return type(exc)(f"{exc.message} (in the shipped acts or rate tables, not {folder})")


@contextmanager
def _progress() -> Iterator[Callable[[str, int], None]]:
    """A progress bar on stderr; yields the callback that advances it."""
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    err = Console(stderr=True)
    if not err.is_terminal:
        # No bar off a terminal (`make demo` piped, CI): one line per stage instead, so a long
        # seed is never silent (issue 26).
        last: list[str] = []

        def say(step: str, count: int) -> None:
            stage = step.split(" ", 1)[0] if step.startswith("parsed ") else step
            if not last or last[-1] != stage:
                last.append(stage)
                _err(step)

        yield say
        return
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("ingesting", total=None)

        def advance(step: str, count: int) -> None:
            bar.update(task, description=step, advance=count)

        yield advance
