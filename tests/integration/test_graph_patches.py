"""Graph change patches: one detector per process, fed by the write service, the bus and one
timestamp catch-up; batched, filtered per subscriber, replayable by id (ADR 0027)."""

import asyncio

import pytest

from graph.backends.ladybug import LadybugGraphStore
from graph.bus import GraphChange, InProcessGraphBus, InProcessHub, announcer
from graph.detector import ChangeDetector, PatchEvent, Resync
from graph.ingress_guard import IngressGuard
from graph.models import EdgeWrite, NodeWrite, WriteOutcome, WriteResult
from graph.patch_filter import PatchFilter
from graph.patches import GraphPatch, catch_up_patch
from graph.schema import load_schema
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

IE = NodeWrite(id="IE", label="Jurisdiction", properties={"name": "Ireland"})
UK = NodeWrite(id="UK", label="Jurisdiction", properties={"name": "United Kingdom"})
VAT = NodeWrite(id="IE:REGIME:VAT", label="Regime", properties={"name": "VAT"})
CAPTURED = NodeWrite(
    id="TAX:IE:FALCON_RELIEF",
    label="Concept",
    properties={"pref_label": "Falcon relief", "status": "provisional", "jurisdiction": "IE",
                "domain": "TAX", "kind": "FALCON_RELIEF"},
)  # fmt: skip


@pytest.fixture
async def parts(tmp_path):
    schema = load_schema()
    store = LadybugGraphStore(tmp_path / "g", schema)
    await store.init_schema()
    writer = GraphWriteService(store, IngressGuard(schema, EmailOnlyScanner()))
    # a window wide enough that a hundred writes on a slow machine still fall in a few of them
    detector = ChangeDetector(store, batch_window=0.25, log_size=5, max_queue=50)
    writer.subscribe(detector.on_local)
    yield writer, detector, store
    await detector.aclose()
    await writer.aclose()
    await store.aclose()


async def settle(writer, detector):
    """Every listener has run and the open batch is a patch."""
    await writer.drain()
    return await detector.flush()


async def next_event(live, seconds=5.0):
    async with asyncio.timeout(seconds):
        return await anext(live)


async def test_a_matching_subscriber_gets_a_write_and_another_does_not(parts):
    writer, detector, _ = parts
    irish = detector.subscribe(PatchFilter(jurisdictions=frozenset({"IE"})))
    british = detector.subscribe(PatchFilter(jurisdictions=frozenset({"UK"})))
    await writer.upsert_nodes([IE, VAT])
    await settle(writer, detector)
    event = await next_event(irish)
    assert isinstance(event, PatchEvent)
    assert sorted(n.id for n in event.patch.nodes.added) == ["IE", "IE:REGIME:VAT"]
    await writer.upsert_nodes([UK])
    await settle(writer, detector)
    event = await next_event(british)
    assert isinstance(event, PatchEvent)
    assert [n.id for n in event.patch.nodes.added] == ["UK"]  # nothing of the Irish write


async def test_a_hundred_rapid_writes_arrive_as_a_few_batched_patches_with_nothing_missed(parts):
    writer, detector, _ = parts
    live = detector.subscribe()
    nodes = [NodeWrite(id=f"IE:RATE:R{i}", label="Rate", properties={"name": f"r{i}"})
             for i in range(100)]  # fmt: skip
    for node in nodes:
        await writer.upsert_nodes([node])  # 100 write calls, committed within the window
    await settle(writer, detector)
    patches: list[GraphPatch] = []
    while sum(len(p.nodes.added) for p in patches) < 100:
        event = await next_event(live)
        assert isinstance(event, PatchEvent)
        patches.append(event.patch)
    assert len(patches) < 10
    assert sorted(n.id for p in patches for n in p.nodes.added) == sorted(n.id for n in nodes)


async def test_removals_arrive_for_a_node_that_leaves_the_subscribers_view(parts):
    writer, detector, _ = parts
    live = detector.subscribe(PatchFilter(keyword="standard"))
    rate = NodeWrite(id="IE:RATE:STD", label="Rate", properties={"name": "standard rate"})
    await writer.upsert_nodes([rate])
    await settle(writer, detector)
    first = await next_event(live)
    assert isinstance(first, PatchEvent) and [n.id for n in first.patch.nodes.added] == [rate.id]
    await writer.upsert_nodes([rate.model_copy(update={"properties": {"name": "reduced rate"}})])
    await settle(writer, detector)
    second = await next_event(live)
    assert isinstance(second, PatchEvent)
    assert second.patch.nodes.removed == [rate.id]
    assert not second.patch.nodes.updated


async def test_a_reconnect_with_last_event_id_loses_nothing_and_a_too_old_id_gets_resync(parts):
    writer, detector, _ = parts
    live = detector.subscribe()
    for i in range(3):
        await writer.upsert_nodes([IE.model_copy(update={"properties": {"name": f"v{i}"}})])
        await settle(writer, detector)
    seen = [await next_event(live) for _ in range(3)]
    await live.aclose()
    assert all(isinstance(e, PatchEvent) for e in seen)
    first_id = seen[0].id
    # Two patches were written after the client's first one: it reconnects and gets both.
    again = detector.subscribe(last_event_id=first_id)
    replayed = [await next_event(again) for _ in range(2)]
    assert [e.id for e in replayed] == [e.id for e in seen[1:]]
    await again.aclose()
    # The log keeps 5 patches: after 6 more, the first id is out of reach.
    for i in range(6):
        await writer.upsert_nodes([IE.model_copy(update={"properties": {"name": f"w{i}"}})])
        await settle(writer, detector)
    stale = detector.subscribe(last_event_id=first_id)
    assert isinstance(await next_event(stale), Resync)
    foreign = detector.subscribe(last_event_id="another-process-7")
    assert isinstance(await next_event(foreign), Resync)


async def test_quarantined_content_is_never_sent_and_an_all_quarantined_patch_not_at_all(parts):
    writer, detector, _ = parts
    live = detector.subscribe()
    await writer.upsert_nodes([VAT])
    await settle(writer, detector)
    assert isinstance(await next_event(live), PatchEvent)
    await writer.upsert_nodes([CAPTURED])
    await writer.upsert_edges([EdgeWrite(
        type="ALIGNS_WITH", source_id=CAPTURED.id, source_label="Concept",
        target_id=VAT.id, target_label="Regime",
    )])  # fmt: skip
    last = detector.last_id
    assert await settle(writer, detector) is None  # nothing was built, so nothing was sent
    assert detector.last_id == last
    # Confirmed: the node and its edge are news now.
    await writer.upsert_nodes(
        [CAPTURED.model_copy(update={"properties": {**CAPTURED.properties, "status": "confirmed"}})]
    )
    await settle(writer, detector)
    event = await next_event(live)
    assert isinstance(event, PatchEvent)
    assert [n.id for n in event.patch.nodes.updated] == [CAPTURED.id]


async def test_writes_of_another_process_arrive_once_by_bus_and_catch_up_alike(parts, tmp_path):
    _, detector, store = parts
    hub = InProcessHub()
    here, there = InProcessGraphBus(hub, origin=detector.origin), InProcessGraphBus(hub)
    here.subscribe(detector.on_remote, on_gap=detector.request_catch_up)
    heard: list[list[str]] = []

    async def remote(results, _):
        heard.append([r.node_id for r in results if r.node_id])

    detector.add_remote_listener(remote)
    # "Another process": a second write service on the same store, announcing on the bus.
    other = GraphWriteService(store, IngressGuard(load_schema(), EmailOnlyScanner()))
    other.subscribe(announcer(there))
    live = detector.subscribe()
    await other.upsert_nodes([UK])
    await other.drain()
    assert await detector.catch_up() == 0  # the bus told it first: nothing new
    await detector.flush()
    event = await next_event(live)
    assert isinstance(event, PatchEvent) and [n.id for n in event.patch.nodes.added] == ["UK"]
    # A write nobody announces (the CLI without Redis) is found by the catch-up, once.
    silent = GraphWriteService(store, IngressGuard(load_schema(), EmailOnlyScanner()))
    await silent.upsert_nodes([VAT])
    assert await detector.catch_up() == 1
    assert await detector.catch_up() == 0
    await detector.on_remote(
        GraphChange(origin=there.origin, timestamp="2000-01-01T00:00:00.000000Z")
    )
    await detector.flush()
    event = await next_event(live)
    assert isinstance(event, PatchEvent) and [n.id for n in event.patch.nodes.added] == [VAT.id]
    assert heard == [["UK"], [VAT.id]]
    assert detector.patches_sent == 2  # UK once, VAT once: no duplicate from the other feed
    await other.aclose()
    await silent.aclose()


async def test_catch_up_patch_lists_what_changed_since_a_timestamp(parts):
    writer, _, store = parts
    await writer.upsert_nodes([IE])
    await writer.upsert_nodes([VAT])
    before_vat = (await store.get_nodes(["IE"]))[0].properties["updated_at"]
    patch = await catch_up_patch(store, before_vat)
    assert [n.id for n in patch.nodes.added] == ["IE:REGIME:VAT"]
    assert patch.meta == {"catchUp": True}
    only_uk = await catch_up_patch(
        store, before_vat, flt=PatchFilter(jurisdictions=frozenset({"UK"}))
    )
    assert only_uk.nodes.added == []


async def test_a_version_newer_than_the_catch_ups_read_is_read_again_for_the_patch(parts):
    """The catch-up reads a captured concept while it is quarantined; its confirmation arrives
    by the bus before the batch becomes a patch: the patch reads it again and sends it (a
    stale read would drop it as quarantined, and the confirmation would never be sent)."""
    _, detector, store = parts
    hub = InProcessHub()
    here, there = InProcessGraphBus(hub, origin=detector.origin), InProcessGraphBus(hub)
    here.subscribe(detector.on_remote, on_gap=detector.request_catch_up)
    other = GraphWriteService(store, IngressGuard(load_schema(), EmailOnlyScanner()))
    live = detector.subscribe()
    await other.upsert_nodes([CAPTURED])  # not announced: only the catch-up finds it
    assert await detector.catch_up() == 1
    other.subscribe(announcer(there))
    confirmed = {**CAPTURED.properties, "status": "confirmed"}
    await other.upsert_nodes([CAPTURED.model_copy(update={"properties": confirmed})])
    await other.drain()
    patch = await detector.flush()
    assert patch is not None  # new to subscribers: they never saw the quarantined version
    assert [n.id for n in patch.nodes.added] == [CAPTURED.id]
    event = await next_event(live)
    assert isinstance(event, PatchEvent)
    assert event.patch.nodes.added[0].properties["status"] == "confirmed"
    await other.aclose()


async def test_two_writers_versions_arriving_out_of_stamp_order_each_make_a_patch(parts):
    """Two processes write one node at once; each stamps before it commits, so the write with
    the older stamp can commit, and arrive, last. It is a version not seen before, so it is
    still taken (compared by identity, not order) and the patch shows the node as stored. A
    notice of a state already sent adds nothing."""
    _, detector, store = parts
    live = detector.subscribe()
    changed = WriteResult(outcome=WriteOutcome.UPDATED, node_id=VAT.id)

    async def write(name: str, stamp: str) -> None:  # as a process stamping ``stamp`` commits
        await store.upsert_nodes([VAT.model_copy(update={"properties": {"name": name}})], stamp)
        await detector.on_remote(
            GraphChange(origin="elsewhere", timestamp=stamp, results=[changed])
        )

    await store.upsert_nodes([VAT], "2030-01-01T00:00:00.000000Z")
    await write("VAT (second stamp, committed first)", "2030-01-01T00:00:02.000000Z")
    assert await detector.flush() is not None
    await write("VAT (first stamp, committed last)", "2030-01-01T00:00:01.000000Z")
    assert await detector.flush() is not None
    names = []
    for _ in range(2):
        event = await next_event(live)
        assert isinstance(event, PatchEvent)
        names.append(event.patch.nodes.updated[0].properties["name"])
    assert names == ["VAT (second stamp, committed first)", "VAT (first stamp, committed last)"]
    again = GraphChange(
        origin="elsewhere", timestamp="2030-01-01T00:00:01.000000Z", results=[changed]
    )
    await detector.on_remote(again)  # the same version again (bus and catch-up alike)
    assert await detector.flush() is None
    assert await detector.catch_up() == 0  # what is stored was sent


async def test_a_write_announced_before_this_process_can_read_it_is_sent_by_the_catch_up(tmp_path):
    """Another process's notice arrives before its write is visible to this process's reads:
    the patch cannot show it, so the version is not marked seen, and the catch-up sends it
    once it is visible (it was once dropped for good)."""
    schema = load_schema()
    store = LadybugGraphStore(tmp_path / "g", schema)
    await store.init_schema()

    class Lagging:
        """The store, with some nodes not visible yet to this process's reads."""

        def __init__(self):
            self.hidden: set[str] = set()

        async def get_nodes(self, ids):
            return [n for n in await store.get_nodes(ids) if n.id not in self.hidden]

        def __getattr__(self, name):
            return getattr(store, name)

    reader = Lagging()
    detector = ChangeDetector(reader, batch_window=0.05)
    other = GraphWriteService(store, IngressGuard(schema, EmailOnlyScanner()))
    live = detector.subscribe()
    try:
        await other.upsert_nodes([VAT])
        [stored] = await store.get_nodes([VAT.id])
        stamp = str(stored.properties["updated_at"])
        created = WriteResult(outcome=WriteOutcome.CREATED, node_id=VAT.id)
        reader.hidden = {VAT.id}
        await detector.on_remote(
            GraphChange(origin="elsewhere", timestamp=stamp, results=[created])
        )
        assert await detector.flush() is None  # nothing to show yet
        reader.hidden = set()
        assert await detector.catch_up() == 1
        await detector.flush()
        event = await next_event(live)
        assert isinstance(event, PatchEvent) and [n.id for n in event.patch.nodes.added] == [VAT.id]
    finally:
        await detector.aclose()
        await other.aclose()
        await store.aclose()


async def test_the_catch_up_sends_a_visible_state_that_a_batch_took_but_never_sent(tmp_path):
    """Whatever made a batch miss a state it was told of (here: a read that showed the node
    still quarantined), the next catch-up compares what is stored with what was sent, and
    sends it; a state already sent is not sent again."""
    schema = load_schema()
    store = LadybugGraphStore(tmp_path / "g", schema)
    await store.init_schema()

    class Stale:
        """The store, reading one node as it was (quarantined) until told otherwise."""

        def __init__(self):
            self.stale: dict[str, object] = {}

        async def get_nodes(self, ids):
            nodes = await store.get_nodes(ids)
            return [
                n.model_copy(update={"properties": {**n.properties, **self.stale}})
                if n.id == CAPTURED.id and self.stale
                else n
                for n in nodes
            ]

        def __getattr__(self, name):
            return getattr(store, name)

    reader = Stale()
    detector = ChangeDetector(reader, batch_window=0.05)
    writer = GraphWriteService(store, IngressGuard(schema, EmailOnlyScanner()))
    live = detector.subscribe()
    try:
        confirmed = {**CAPTURED.properties, "status": "confirmed"}
        [result] = await writer.upsert_nodes(
            [CAPTURED.model_copy(update={"properties": confirmed})]
        )
        [stored] = await store.get_nodes([CAPTURED.id])
        stamp = str(stored.properties["updated_at"])
        reader.stale = {"status": "provisional"}
        await detector.on_remote(GraphChange(origin="elsewhere", timestamp=stamp, results=[result]))
        assert await detector.flush() is None  # read as quarantined: nothing sent
        reader.stale = {}
        assert await detector.catch_up() == 1
        await detector.flush()
        event = await next_event(live)
        assert isinstance(event, PatchEvent)
        assert [n.id for n in event.patch.nodes.added + event.patch.nodes.updated] == [CAPTURED.id]
        assert await detector.catch_up() == 0  # sent: not again
    finally:
        await detector.aclose()
        await writer.aclose()
        await store.aclose()


async def test_a_change_that_arrives_while_a_patch_is_built_gets_its_own_patch(parts):
    """A local write lands while a flush awaits the remote listeners: it goes to the next
    batch, and that batch is flushed too, without waiting for some later change (it once
    waited, on a quiet worker for ever)."""
    writer, detector, store = parts
    live = detector.subscribe()
    other = GraphWriteService(store, IngressGuard(load_schema(), EmailOnlyScanner()))
    await other.upsert_nodes([UK])
    [stored] = await store.get_nodes(["UK"])
    remote = GraphChange(
        origin="elsewhere",
        timestamp=str(stored.properties["updated_at"]),
        results=[WriteResult(outcome=WriteOutcome.CREATED, node_id="UK")],
    )

    async def write_meanwhile(results, _):
        await writer.upsert_nodes([VAT])  # this process's own write, during the flush
        await writer.drain()

    detector.add_remote_listener(write_meanwhile)
    await detector.on_remote(remote)  # schedules the flush: no explicit flush() from here on
    seen: list[str] = []
    for _ in range(2):
        event = await next_event(live)
        assert isinstance(event, PatchEvent)
        seen += [n.id for n in event.patch.nodes.added]
    assert seen == ["UK", VAT.id]
    await other.aclose()
