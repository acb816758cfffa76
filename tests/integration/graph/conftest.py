"""Fixtures of the graph conformance suite: one ``GraphStore`` per backend, same tests.

The Bolt backend runs against ArcadeDB (from ``arcadedb-embedded``), started once per test
session on free loopback ports; it stands in for Memgraph, which cannot be installed here, and
speaks dialect ``neo4j``. Every test uses ids with a fresh uuid suffix, so tests sharing the one
Bolt database never see each other's nodes. Ladybug gets a fresh database folder per test.
``faulty_store`` adds a :class:`~tests.integration.graph.faults.StoreFault` per backend, to break
the real connection in the middle of a write.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from graph.factory import build_graph_store
from graph.port import GraphStore
from graph.schema import GraphSchema, load_schema
from tests.integration.graph.faults import BoltProxy, LadybugFault, StoreFault
from tests.support.arcadedb import ArcadeDBServer, running_arcadedb

BACKENDS = ["ladybug", "bolt"]


@pytest.fixture(scope="session")
def graph_schema() -> GraphSchema:
    return load_schema()


@pytest.fixture(scope="session")
def arcadedb_server() -> Iterator[ArcadeDBServer]:
    with running_arcadedb() as server:
        yield server


def make_store(
    backend: str, request: pytest.FixtureRequest, schema: GraphSchema, tmp_path: Path
) -> GraphStore:
    if backend == "ladybug":
        return build_graph_store("ladybug", schema=schema, ladybug_path=tmp_path / "graph.lbdb")
    server: ArcadeDBServer = request.getfixturevalue("arcadedb_server")
    return server.graph_store(schema)


@pytest.fixture(params=BACKENDS)
async def store(
    request: pytest.FixtureRequest, graph_schema: GraphSchema, tmp_path: Path
) -> AsyncIterator[GraphStore]:
    graph = make_store(request.param, request, graph_schema, tmp_path)
    try:
        await graph.init_schema()
        yield graph
    finally:
        await graph.aclose()


@pytest.fixture(params=BACKENDS)
async def faulty_store(
    request: pytest.FixtureRequest, graph_schema: GraphSchema, tmp_path: Path
) -> AsyncIterator[tuple[GraphStore, StoreFault]]:
    """A store whose connection a test can break mid-write (``tests/integration/graph/faults``).

    The Bolt store talks to the server through a :class:`BoltProxy` and gives up after two
    seconds (a refused server is retried by the driver until then)."""
    if request.param == "ladybug":
        graph = make_store("ladybug", request, graph_schema, tmp_path)
        try:
            await graph.init_schema()
            yield graph, LadybugFault(graph)
        finally:
            await graph.aclose()
        return
    direct = make_store("bolt", request, graph_schema, tmp_path)
    try:
        await direct.init_schema()  # DDL takes longer than the short deadline below
    finally:
        await direct.aclose()
    server: ArcadeDBServer = request.getfixturevalue("arcadedb_server")
    proxy = BoltProxy(server.bolt_uri)
    graph = build_graph_store(
        "bolt",
        schema=graph_schema,
        bolt_uri=await proxy.start(),
        bolt_user=server.user,
        bolt_password=server.password,
        bolt_database=server.database,
        bolt_dialect="neo4j",
        bolt_timeout_s=2.0,
        bolt_connect_timeout_s=1.0,
    )
    try:
        yield graph, proxy
    finally:
        await graph.aclose()
        await proxy.aclose()
