"""Graph change patches: built from the write service's notifications, fanned out."""

import pytest

from graph.backends.ladybug import LadybugGraphStore
from graph.ingress_guard import IngressGuard
from graph.models import EdgeWrite, NodeWrite
from graph.patches import PatchFeed
from graph.schema import load_schema
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def parts(tmp_path):
    schema = load_schema()
    store = LadybugGraphStore(tmp_path / "g", schema)
    await store.init_schema()
    writer = GraphWriteService(store, IngressGuard(schema, EmailOnlyScanner()))
    feed = PatchFeed(store, max_queue=3)
    writer.subscribe(feed.on_change)
    yield writer, feed
    await writer.aclose()
    await store.aclose()


IE = NodeWrite(id="IE", label="Jurisdiction", properties={"name": "Ireland"})
VAT = NodeWrite(id="IE:REGIME:VAT", label="Regime", properties={"name": "VAT"})


async def test_a_write_becomes_one_numbered_patch(parts):
    writer, feed = parts
    live = feed.subscribe()
    await writer.upsert_nodes([IE, VAT])
    await writer.upsert_nodes([IE])  # unchanged: no patch
    await writer.upsert_nodes([IE.model_copy(update={"properties": {"name": "Éire"}})])
    await writer.upsert_edges(
        [
            EdgeWrite(
                type="IN_JURISDICTION",
                source_id=VAT.id,
                source_label="Regime",
                target_id="IE",
                target_label="Jurisdiction",
            )
        ]
    )
    first, second, third = [await anext(live) for _ in range(3)]
    assert [n.id for n in first.nodes.added] == ["IE", "IE:REGIME:VAT"]
    assert [n.properties["name"] for n in second.nodes.updated] == ["Éire"]
    assert [(e.source, e.type, e.target) for e in third.edges.added] == [
        ("IE:REGIME:VAT", "IN_JURISDICTION", "IE")
    ]
    assert first.seq < second.seq < third.seq
    assert first.model_dump()["type"] == "graph_patch"
    await live.aclose()
    assert feed.subscribers == 0


async def test_a_reader_that_falls_behind_is_told_to_resync(parts):
    writer, feed = parts
    live = feed.subscribe()
    for i in range(5):
        await writer.upsert_nodes([IE.model_copy(update={"properties": {"name": f"v{i}"}})])
    await writer.drain()
    patches = [patch async for patch in live]
    assert patches[-1].meta == {"resync": True}
    assert feed.subscribers == 0


async def test_catch_up_lists_what_changed_since_a_timestamp(parts):
    writer, feed = parts
    await writer.upsert_nodes([IE])
    await writer.upsert_nodes([VAT])
    before_vat = (await writer._store.get_nodes(["IE"]))[0].properties["updated_at"]
    patch = await feed.catch_up(before_vat)
    assert [n.id for n in patch.nodes.added] == ["IE:REGIME:VAT"]
    assert patch.meta == {"catchUp": True}
