"""What only the Bolt backend has: dialect DDL, the shared ``RgNode`` label, error mapping and
the factory. The behaviour every backend shares is in ``test_conformance.py``."""

from __future__ import annotations

import asyncio
import socket
import uuid
from pathlib import Path

import pytest
from neo4j import AsyncGraphDatabase

from errors import GraphUnavailable
from graph.backends.bolt import BoltGraphStore
from graph.backends.bolt_dialects import NODE_LABEL, get_dialect
from graph.factory import build_graph_store
from graph.models import EdgeIncrement, EdgeWrite, NodeWrite
from graph.schema import GraphSchema
from tests.support.arcadedb import ArcadeDBServer

pytestmark = pytest.mark.integration


def bolt_store(server: ArcadeDBServer, schema: GraphSchema) -> BoltGraphStore:
    store = server.graph_store(schema)
    assert isinstance(store, BoltGraphStore)
    return store


@pytest.mark.parametrize("dialect", ["memgraph", "neo4j"])
def test_ddl_covers_every_label_and_relationship_type(
    dialect: str, graph_schema: GraphSchema
) -> None:
    steps = get_dialect(dialect).ddl(graph_schema)
    text = "\n".join(s for step in steps for s in step.alternatives)
    assert f"(n:{NODE_LABEL})" in text
    for label in graph_schema.labels:
        assert f"(n:`{label}`) " in text, label
    for rel in graph_schema.relationships:
        assert f"`{rel}`" in text, rel
    assert "domain" in text and "normalised" in text and "updated_at" in text
    # Required steps are the constraints and indexes; only server features are optional.
    assert not any(
        step.optional for step in steps if any("CONSTRAINT" in s for s in step.alternatives)
    )
    assert any(step.optional and "TEXT" in step.alternatives[0] for step in steps)


def test_unknown_dialect_and_backend_are_refused(graph_schema: GraphSchema) -> None:
    with pytest.raises(ValueError, match="dialect"):
        get_dialect("tigergraph")
    with pytest.raises(ValueError, match="bolt_uri"):
        build_graph_store("bolt", schema=graph_schema)
    with pytest.raises(ValueError, match="ladybug_path"):
        build_graph_store("ladybug", schema=graph_schema)


@pytest.mark.anyio
async def test_unreachable_server_is_graph_unavailable(graph_schema: GraphSchema) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    store = build_graph_store(
        "bolt",
        schema=graph_schema,
        bolt_uri=f"bolt://127.0.0.1:{port}",
        bolt_user="nobody",
        bolt_password="x",
        bolt_timeout_s=3.0,
        bolt_connect_timeout_s=1.0,
    )
    try:
        with pytest.raises(GraphUnavailable):
            await store.ping()
        with pytest.raises(GraphUnavailable):
            await store.upsert_nodes([NodeWrite(id="X", label="Concept")], "2026")
    finally:
        await store.aclose()


@pytest.mark.anyio
async def test_init_schema_creates_the_constraints_on_the_server(
    arcadedb_server: ArcadeDBServer, graph_schema: GraphSchema
) -> None:
    store = bolt_store(arcadedb_server, graph_schema)
    try:
        await store.init_schema()
    finally:
        await store.aclose()
    driver = AsyncGraphDatabase.driver(arcadedb_server.bolt_uri, auth=arcadedb_server.auth)
    try:
        async with driver.session(database=arcadedb_server.database) as session:
            constraints = await (await session.run("SHOW CONSTRAINTS")).data()
            indexes = await (await session.run("SHOW INDEXES")).data()
    finally:
        await driver.close()
    names = {c["name"] for c in constraints}
    assert {"rg_node_id", "rg_concept_id", "rg_label_id"} <= names
    assert len(names) == len(graph_schema.labels) + 1
    index_names = {i["name"] for i in indexes}
    assert {"rg_node_updated_at", "rg_concept_key", "rg_label_normalised"} <= index_names


@pytest.mark.anyio
async def test_nodes_carry_the_shared_label(
    arcadedb_server: ArcadeDBServer, graph_schema: GraphSchema
) -> None:
    store = bolt_store(arcadedb_server, graph_schema)
    node_id = f"TAX:IE:SHARED_{uuid.uuid4().hex[:8]}"
    try:
        await store.init_schema()
        await store.upsert_nodes([NodeWrite(id=node_id, label="Concept")], "2026")
    finally:
        await store.aclose()
    driver = AsyncGraphDatabase.driver(arcadedb_server.bolt_uri, auth=arcadedb_server.auth)
    try:
        async with driver.session(database=arcadedb_server.database) as session:
            result = await session.run("MATCH (n {id: $id}) RETURN labels(n) AS labels", id=node_id)
            [row] = await result.data()
    finally:
        await driver.close()
    assert sorted(row["labels"]) == sorted(["Concept", NODE_LABEL])


def test_factory_builds_ladybug(graph_schema: GraphSchema, tmp_path: Path) -> None:
    store = build_graph_store("ladybug", schema=graph_schema, ladybug_path=tmp_path / "g")
    assert type(store).__name__ == "LadybugGraphStore"


@pytest.mark.anyio
async def test_two_workers_counting_one_phrasing_at_once_lose_no_count(
    arcadedb_server: ArcadeDBServer, graph_schema: GraphSchema
) -> None:
    """Two API workers are two drivers on one server: the store adds (ADR 0036), so what each
    counted survives the other's concurrent increments of the same relationship."""
    suffix = uuid.uuid4().hex[:8].upper()
    concept_id, label_id = f"TAX:IE:WEALTH_TAX_{suffix}", f"LABEL:wealth_tax_{suffix.lower()}"
    edge = EdgeWrite(
        type="HAS_ALT_LABEL", source_id=concept_id, source_label="Concept",
        target_id=label_id, target_label="Label",
    )  # fmt: skip
    count = EdgeIncrement(
        type="HAS_ALT_LABEL", source_id=concept_id, source_label="Concept",
        target_id=label_id, target_label="Label", by={"uses": 1},
    )  # fmt: skip
    workers = [bolt_store(arcadedb_server, graph_schema) for _ in range(2)]
    try:
        await workers[0].init_schema()
        await workers[0].upsert_nodes(
            [NodeWrite(id=concept_id, label="Concept"), NodeWrite(id=label_id, label="Label")],
            "2026",
        )
        await workers[0].upsert_edges([edge], "2026")
        async with asyncio.TaskGroup() as group:
            for _ in range(12):
                for worker in workers:
                    group.create_task(worker.increment_edges([count]))
        [stored] = (await workers[1].neighbourhood([concept_id])).edges
    finally:
        for worker in workers:
            await worker.aclose()
    assert stored.properties["uses"] == 24
