"""Material changes (ADR 0035) on Ladybug: a re-seed with a changed copy of a seed file records
one ``ChangeEvent`` per material change, none for rewording, holds an implausible value, sends
the change to patch subscribers; and a conversation relying on a changed node is told so."""

import asyncio
import shutil

import pytest
import yaml

from api.bootstrap import bootstrap
from api.settings import Settings
from egress.wire import Done, Text
from engine.material_changes import screen_node_writes
from engine.prompt import CHANGED_HEADER, quoted_section
from engine.seeding import DEFAULT_SEEDS, seed_graph
from graph.detector import PatchEvent
from graph.models import NodeWrite
from graph.patch_filter import PatchFilter
from tests.integration.test_chat_engine import Harness

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

STANDARD, SECOND_REDUCED, REDUCED = (
    "IE:RATE:VAT_STANDARD",
    "IE:RATE:VAT_SECOND_REDUCED",
    "IE:RATE:VAT_REDUCED",
)


def changed_seeds(tmp_path):
    """The seed rules, with the standard VAT rate 23 -> 24 (material), the second reduced rate
    9 -> 90 (implausible), the reduced rate's description and a concept's definition reworded."""
    folder = tmp_path / "rules"
    shutil.copytree(DEFAULT_SEEDS, folder)
    vat = folder / "ie_vat_vrt.yaml"
    data = yaml.safe_load(vat.read_text(encoding="utf-8"))
    nodes = {node["id"]: node for node in data["nodes"]}
    assert nodes[STANDARD]["properties"]["value"] == 23
    nodes[STANDARD]["properties"]["value"] = 24
    nodes[SECOND_REDUCED]["properties"]["value"] = 90
    nodes[REDUCED]["properties"]["description"] = "Reworded: Schedule 3 goods and services."
    vat.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    concepts = folder / "concepts.yaml"
    data = yaml.safe_load(concepts.read_text(encoding="utf-8"))
    data["concepts"][0]["definition"] = "Reworded: the Irish tax on supplies of goods."
    concepts.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return folder


async def change_events(graph):
    snapshot = await graph.snapshot(labels=["ChangeEvent"], limit=1000)
    return sorted(snapshot.nodes, key=lambda n: n.id)


async def test_a_reseeded_rate_change_is_one_event_rewording_none_and_the_implausible_held(
    seeded_data_dir, tmp_path
):
    folder = changed_seeds(tmp_path)
    container = await bootstrap(Settings(data_dir=seeded_data_dir, log_json=False))
    try:
        graph = container.graph
        assert await change_events(graph) == []
        live = container.patches.subscribe(PatchFilter(labels=frozenset({"ChangeEvent"})))
        first = await seed_graph(graph, container.writer, folder, legal=[])
        events = await change_events(graph)
        second = await seed_graph(graph, container.writer, folder, legal=[])
        again = await change_events(graph)
        stored = {n.id: n for n in await graph.get_nodes([STANDARD, SECOND_REDUCED, REDUCED])}
        [concept] = await graph.get_nodes(["TAX:IE:VAT"])
        await container.writer.drain()
        await container.patches.flush()
        async with asyncio.timeout(10):
            patch = await anext(live)
        around = await graph.neighbourhood([STANDARD])
    finally:
        await container.aclose()
    assert first.changes == {"applied": 1, "needs_review": 1}
    assert dict(second.changes) == {}  # nothing new the second time
    assert again == events
    by_node = {e.properties["change_of"]: e for e in events}
    assert set(by_node) == {STANDARD, SECOND_REDUCED}  # no event for the rewordings
    applied = by_node[STANDARD].properties
    assert applied["status"] == "applied" and applied["source"] == "seed"
    assert (applied["old_value"], applied["new_value"]) == (0.23, 0.24)
    assert stored[STANDARD].properties["value"] == 24
    held = by_node[SECOND_REDUCED].properties
    assert held["status"] == "needs_review" and held["new_value"] == 0.9
    assert stored[SECOND_REDUCED].properties["value"] == 9  # not applied
    assert stored[REDUCED].properties["description"].startswith("Reworded")  # applied, no event
    assert concept.properties["definition"].startswith("Reworded")
    assert ("CHANGE_OF", by_node[STANDARD].id) in {(e.type, e.source) for e in around.edges}
    assert isinstance(patch, PatchEvent)
    assert {n.id for n in patch.patch.nodes.added} == {e.id for e in events}


async def test_a_conversation_whose_active_node_changed_is_told_at_its_next_turn(tmp_path):
    h = await Harness(tmp_path).start()
    try:
        h.provider.script = [Text("It is 23% [IE:RATE:VAT_STANDARD]."), Done()]
        first = await h.turn()
        conversation = first[0].conversation_id
        assert first[-1].referenced_nodes == [STANDARD]
        assert first[0].changed == []

        rate = NodeWrite(id=STANDARD, label="Rate", properties={"value": 24.0, "unit": "percent"})
        screened = await screen_node_writes(h.graph, [rate], origin="ingestion")
        await h.container.writer.upsert_nodes([*screened.nodes, *screened.events])
        await h.container.writer.upsert_edges(screened.edges)
        await h.container.writer.drain()
        await h.evidence.refresh()

        h.provider.script = [Text("Note: the rate changed. It is 24%."), Done()]
        second = await h.turn("And now?", conversation)
        system = h.provider.requests[-1].messages[0].content
        h.provider.script = [Text("Still 24%."), Done()]
        third = await h.turn("And again?", conversation)
        system_after = h.provider.requests[-1].messages[0].content
    finally:
        await h.close()
    [event] = screened.events
    [changed] = second[0].changed
    assert changed["nodeId"] == STANDARD and changed["changeId"] == event.id
    assert "23% -> 24%" in changed["description"]
    assert second[0].data()["changed"] == [changed]
    assert quoted_section(system, CHANGED_HEADER) == [(STANDARD, changed["description"])]
    assert third[0].changed == []  # told once: the change is older than the last turn
    assert CHANGED_HEADER not in system_after
