"""What only the Ladybug backend has: its error translation (Ladybug raises ``RuntimeError`` for
everything and says in the message what went wrong) and the failures only a folder on disk has.
The behaviour every backend shares is in ``test_conformance.py``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from errors import GraphUnavailable, RegintelError, SchemaViolation
from graph.backends.ladybug import LadybugGraphStore, translate_error
from graph.models import EdgeIncrement, EdgeWrite, NodeWrite
from graph.schema import GraphSchema

pytestmark = pytest.mark.integration

NOW = "2026-01-01T00:00:00.000000Z"


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ("Connection is closed.", GraphUnavailable),
        ("Database is closed", GraphUnavailable),
        ("IO exception: Cannot open file /x/catalog.kz: Permission denied", GraphUnavailable),
        ("Buffer manager exception: Unable to allocate memory!", GraphUnavailable),
        ("Runtime exception: something else", GraphUnavailable),
        ("Conversion exception: Cast failed. abc is not in DOUBLE range.", SchemaViolation),
        ("Binder exception: Cannot find property zzz for n.", SchemaViolation),
        ("Catalog exception: Table RgNode does not exist.", SchemaViolation),
        ("Parser exception: extraneous input 'THIS'", RegintelError),
    ],
)
def test_driver_errors_become_the_projects_errors(message: str, error: type) -> None:
    translated = translate_error(RuntimeError(message), "doing it")
    assert type(translated) is error
    assert message in translated.message


@pytest.mark.anyio
async def test_a_value_the_database_cannot_hold_is_a_schema_violation_and_the_store_goes_on(
    graph_schema: GraphSchema, tmp_path: Path
) -> None:
    store = LadybugGraphStore(tmp_path / "graph.lbdb", graph_schema)
    try:
        await store.init_schema()
        # The ingress guard checks value types; the backend relies on the database for that.
        bad = NodeWrite(id="RATE:IE:X", label="Rate", properties={"value": "twenty-three"})
        with pytest.raises(SchemaViolation, match="Conversion exception"):
            await store.upsert_nodes([NodeWrite(id="RATE:IE:OK", label="Rate"), bad], NOW)
        assert await store.get_nodes(["RATE:IE:OK", "RATE:IE:X"]) == []
        good = NodeWrite(id="RATE:IE:X", label="Rate", properties={"value": 23})
        assert [r.outcome.value for r in await store.upsert_nodes([good], NOW)] == ["created"]
    finally:
        await store.aclose()


@pytest.mark.anyio
async def test_a_database_that_cannot_be_opened_is_graph_unavailable(
    graph_schema: GraphSchema, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the database's parent folder should be")
    store = LadybugGraphStore(blocker / "graph.lbdb", graph_schema)
    try:
        with pytest.raises(GraphUnavailable):
            await store.init_schema()
        with pytest.raises(GraphUnavailable):
            await store.ping()
        with pytest.raises(GraphUnavailable):
            await store.upsert_nodes([NodeWrite(id="RATE:IE:X", label="Rate")], NOW)
    finally:
        await store.aclose()


@pytest.mark.anyio
async def test_a_database_made_before_the_counters_gains_them_at_start(
    graph_schema: GraphSchema, tmp_path: Path
) -> None:
    path = tmp_path / "graph.lbdb"
    older = LadybugGraphStore(path, dataclasses.replace(graph_schema, relationship_counters=()))
    edge = EdgeWrite(
        type="HAS_ALT_LABEL", source_id="TAX:IE:WEALTH_TAX", source_label="Concept",
        target_id="LABEL:wealth_tax", target_label="Label",
    )  # fmt: skip
    try:
        await older.init_schema()
        await older.upsert_nodes(
            [
                NodeWrite(id=edge.source_id, label="Concept"),
                NodeWrite(id=edge.target_id, label="Label"),
            ],
            NOW,
        )
        await older.upsert_edges([edge], NOW)
    finally:
        await older.aclose()
    store = LadybugGraphStore(path, graph_schema)
    try:
        await store.init_schema()
        count = EdgeIncrement(**edge.model_dump(exclude={"properties"}), by={"uses": 2})
        assert [r.outcome.value for r in await store.increment_edges([count])] == ["updated"]
        [stored] = (await store.neighbourhood([edge.source_id])).edges
        assert stored.properties["uses"] == 2
    finally:
        await store.aclose()
