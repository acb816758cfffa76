"""Review actions on the real embedded store (ADR 0020, 0034): merge moves labels and edges and
leaves a redirect that resolution follows; reject removes a quarantined concept and the labels
only it used; both are audited and reach live subscribers as patches, without revealing what
tenants never saw."""

import asyncio

import pytest
import structlog
from structlog.testing import capture_logs

from engine.concepts import CapturedConcept
from engine.evidence import EvidenceIndex, describe
from engine.graph_sync import GraphSync
from engine.ingestion import InMemoryIngestionQueue
from engine.lexicon import ConceptLexicon
from engine.review import merge_concepts, reject_concept, review_queue
from engine.review.audit import ReviewAudit
from engine.self_population import ConceptWrite, ConceptWriter, SelfPopulation
from errors import InvalidInput, NotFound, ReviewConflict
from graph.backends.ladybug import LadybugGraphStore
from graph.detector import ChangeDetector, PatchEvent
from graph.ingress_guard import IngressGuard
from graph.models import EdgeWrite, NodeWrite
from graph.quarantine import ReviewedGraph
from graph.schema import load_schema
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

REGIME = NodeWrite(id="IE:REGIME:SMALL_BENEFIT", label="Regime", properties={"name": "SBE"})
REVIEWED = CapturedConcept(
    domain="TAX", kind="SMALL_BENEFIT_EXEMPTION", jurisdiction="IE",
    prefLabel="Small benefit exemption", altLabels=["small benefit"],
)  # fmt: skip
CAPTURED = CapturedConcept(
    domain="TAX", kind="SMALL_BENEFIT_SCHEME", jurisdiction="IE",
    prefLabel="Small benefit scheme", altLabels=["staff voucher relief"],
)  # fmt: skip
BROADER = CapturedConcept(
    domain="TAX", kind="BENEFIT_IN_KIND", jurisdiction="IE", prefLabel="Benefit in kind"
)
LOSER, WINNER, PARENT = CAPTURED.id, REVIEWED.id, BROADER.id


def concept_edge(kind: str, source: str, target: str) -> EdgeWrite:
    return EdgeWrite(
        type=kind, source_id=source, source_label="Concept", target_id=target,
        target_label="Concept",
    )  # fmt: skip


@pytest.fixture
async def parts(tmp_path):
    schema = load_schema()
    graph = LadybugGraphStore(tmp_path / "g", schema)
    await graph.init_schema()
    writer = GraphWriteService(graph, IngressGuard(schema, EmailOnlyScanner()))
    lexicon = ConceptLexicon()
    evidence = EvidenceIndex(graph)
    writer.subscribe(GraphSync(graph, evidence, lexicon).on_change)
    detector = ChangeDetector(graph, batch_window=0.05, max_queue=50)
    writer.subscribe(detector.on_local)
    concepts = ConceptWriter(graph, writer)
    await writer.upsert_nodes([REGIME])
    await concepts.write(ConceptWrite(concept=REVIEWED, status="confirmed"))
    await concepts.write(ConceptWrite(concept=BROADER, status="confirmed"))
    await concepts.write(
        ConceptWrite(concept=CAPTURED, status="provisional", aligns_with=[(REGIME.id, "Regime")])
    )
    await writer.upsert_edges(
        [concept_edge("BROADER", LOSER, PARENT), concept_edge("RELATED", PARENT, LOSER)]
    )
    population = SelfPopulation(graph, writer, evidence, InMemoryIngestionQueue(), lexicon)
    audit = ReviewAudit(tmp_path / "data" / "review-audit.jsonl")
    await writer.drain()
    await detector.flush()
    yield graph, writer, detector, population, audit, lexicon
    await detector.aclose()
    await writer.aclose()
    await graph.aclose()


async def patches_after(writer, detector, live) -> list[PatchEvent]:
    """Every patch the subscriber got for what was written so far."""
    await writer.drain()
    await detector.flush()
    events: list[PatchEvent] = []
    while True:
        try:
            async with asyncio.timeout(0.2):
                event = await anext(live)
        except TimeoutError:
            return events
        assert isinstance(event, PatchEvent)
        events.append(event)


def mentions(events: list[PatchEvent], node_id: str) -> bool:
    return any(node_id in event.patch.model_dump_json() for event in events)


async def test_a_merge_moves_labels_and_edges_and_leaves_a_redirect(parts):
    graph, writer, detector, _, audit, _ = parts
    live = detector.subscribe()
    # Another test may have configured logging at WARNING (the CLI's callback does): the
    # audit line is INFO, so capture it under structlog's defaults, then restore.
    saved = structlog.get_config()
    structlog.reset_defaults()
    try:
        with capture_logs() as logs:
            record = await merge_concepts(graph, writer, LOSER, WINNER, audit=audit, by="cli")
    finally:
        structlog.configure(**saved)

    around = await graph.neighbourhood([WINNER], limit=500)
    edges = {(e.source, e.type, e.target) for e in around.edges}
    assert {
        (WINNER, "HAS_ALT_LABEL", "LABEL:small_benefit_scheme"),
        (WINNER, "HAS_ALT_LABEL", "LABEL:staff_voucher_relief"),
        (WINNER, "ALIGNS_WITH", REGIME.id),
        (WINNER, "BROADER", PARENT),
        (PARENT, "RELATED", WINNER),
    } <= edges
    labels = {n.id: n for n in around.nodes if n.label == "Label"}
    assert labels["LABEL:staff_voucher_relief"].properties["status"] == "confirmed"
    [loser] = await graph.get_nodes([LOSER])
    assert (loser.properties["status"], loser.properties["merged_into"]) == ("merged", WINNER)
    # Hidden from tenants, and out of the review queue.
    assert LOSER not in {n.id for n in (await ReviewedGraph(graph).snapshot(limit=500)).nodes}
    assert LOSER not in [item.id for item in await review_queue(graph)]
    # Audited: a log line and a record an operator can list.
    assert [e["concept"] for e in logs if e["event"] == "review_action"] == [LOSER]
    [stored] = audit.records()
    assert stored == record
    assert (stored.action, stored.into, stored.previous_status, stored.by) == (
        "merge", WINNER, "provisional", "cli",
    )  # fmt: skip
    assert stored.edges == 5 and "LABEL:staff_voucher_relief" in stored.labels
    # The patch shows the survivor's new (now reviewed) labels and edges, never the loser,
    # which was quarantined: no tenant ever saw it.
    events = await patches_after(writer, detector, live)
    added = {(e.source, e.type, e.target) for ev in events for e in ev.patch.edges.added}
    assert (WINNER, "HAS_ALT_LABEL", "LABEL:staff_voucher_relief") in added
    assert not mentions(events, LOSER)


async def test_a_quarantined_concept_written_just_before_its_merge_is_not_revealed(parts):
    """Regression: the ingestion worker's ``ingestion_status`` write on a capture, in the same
    patch batch as its merge, made the patch report the capture ``removed`` to every tenant."""
    graph, writer, detector, _, _, _ = parts
    live = detector.subscribe()
    status = NodeWrite(id=LOSER, label="Concept", properties={"ingestion_status": "no_source"})
    await writer.upsert_nodes([status])  # not flushed: one batch with the merge
    await merge_concepts(graph, writer, LOSER, WINNER)
    events = await patches_after(writer, detector, live)
    assert events and not mentions(events, LOSER)
    # The other order: the write's batch is built after the merge committed, in its own patch.
    await writer.drain()
    again = detector.subscribe()  # a timed-out read closes a subscription: a new one
    await merge_concepts(graph, writer, PARENT, WINNER)  # PARENT reviewed: reported once
    assert [i for ev in await patches_after(writer, detector, again)
            for i in ev.patch.nodes.removed] == [PARENT]  # fmt: skip


async def test_a_write_batched_apart_from_the_rejection_that_follows_reveals_nothing(parts):
    """Regression (found under load): the batch of a write to a capture was read after the
    capture's rejection had committed, and reported it removed to every tenant."""
    graph, writer, detector, _, _, _ = parts
    live = detector.subscribe()
    status = NodeWrite(id=LOSER, label="Concept", properties={"ingestion_status": "no_source"})
    await writer.upsert_nodes([status])
    await writer.drain()  # the detector holds the write; its batch is not built yet
    await reject_concept(graph, writer, LOSER)  # commits before that batch reads the node
    await detector.flush()  # the write's batch, read now: the node is gone
    events = await patches_after(writer, detector, live)
    assert not mentions(events, LOSER)


async def test_resolution_follows_the_redirect_by_key_and_by_label(parts):
    graph, writer, _, population, _, _ = parts
    await merge_concepts(graph, writer, LOSER, WINNER)
    await writer.drain()
    by_key = await population.resolve(CAPTURED, ["IE"])
    assert (by_key.id, by_key.matched_by, by_key.status) == (WINNER, "key", "confirmed")
    mention = CapturedConcept(
        domain="TAX", kind="STAFF_VOUCHERS", jurisdiction="IE", prefLabel="staff voucher relief"
    )
    by_label = await population.resolve(mention, ["IE"])
    assert (by_label.id, by_label.created) == (WINNER, False)
    [loser] = await graph.get_nodes([LOSER])
    assert loser.properties["status"] == "merged"  # nothing rewrote the redirect


async def test_merging_a_reviewed_concept_reports_its_removal_and_forgets_it(parts):
    graph, writer, detector, population, audit, lexicon = parts
    live = detector.subscribe()
    assert PARENT in lexicon
    await merge_concepts(graph, writer, PARENT, WINNER, audit=audit)
    events = await patches_after(writer, detector, live)
    assert PARENT in [i for ev in events for i in ev.patch.nodes.removed]
    assert PARENT not in lexicon
    assert (await population.resolve(BROADER, ["IE"])).id == WINNER


async def test_a_merge_into_itself_an_unknown_or_an_unreviewed_concept_is_refused(parts):
    graph, writer, _, _, audit, _ = parts
    with pytest.raises(ReviewConflict):
        await merge_concepts(graph, writer, WINNER, WINNER, audit=audit)
    with pytest.raises(InvalidInput):
        await merge_concepts(graph, writer, LOSER, "TAX:IE:NOTHING", audit=audit)
    with pytest.raises(ReviewConflict):
        await merge_concepts(graph, writer, WINNER, LOSER, audit=audit)  # LOSER is provisional
    with pytest.raises(NotFound):
        await merge_concepts(graph, writer, "TAX:IE:NOTHING", WINNER, audit=audit)
    await merge_concepts(graph, writer, LOSER, WINNER, audit=audit)
    with pytest.raises(ReviewConflict):
        await merge_concepts(graph, writer, LOSER, PARENT, audit=audit)  # merged already
    assert [r.action for r in audit.records()] == ["merge"]


async def test_reject_removes_the_concept_and_the_labels_only_it_used(parts):
    graph, writer, detector, _, audit, _ = parts
    shared = CapturedConcept(
        domain="TAX", kind="GIFT_VOUCHER", jurisdiction="IE", prefLabel="Gift voucher",
        altLabels=["small benefit"],  # a label of the reviewed concept too
    )  # fmt: skip
    await ConceptWriter(graph, writer).write(ConceptWrite(concept=shared, status="provisional"))
    await writer.drain()
    await detector.flush()
    live = detector.subscribe()
    record = await reject_concept(graph, writer, shared.id, audit=audit, by="cli")
    assert await graph.get_nodes([shared.id, "LABEL:gift_voucher"]) == []
    assert [n.id for n in await graph.get_nodes(["LABEL:small_benefit"])] == ["LABEL:small_benefit"]
    assert [c.id for c in await graph.find_concepts_by_label("small benefit")] == [WINNER]
    assert record.removed == (shared.id, "LABEL:gift_voucher")
    assert audit.records() == [record]
    # Quarantined until now: its removal is no patch, so no tenant learns it existed.
    assert not mentions(await patches_after(writer, detector, live), shared.id)


async def test_a_rejection_removing_a_reviewed_label_reaches_subscribers(parts):
    graph, writer, detector, _, _, _ = parts
    orphan = NodeWrite(
        id="LABEL:orphan_voucher", label="Label",
        properties={"text": "orphan voucher", "normalised": "orphan voucher",
                    "status": "confirmed"},
    )  # fmt: skip
    await writer.upsert_nodes([orphan])
    edge = EdgeWrite(
        type="HAS_ALT_LABEL", source_id=LOSER, source_label="Concept", target_id=orphan.id,
        target_label="Label",
    )  # fmt: skip
    await writer.upsert_edges([edge])
    await writer.drain()
    await detector.flush()
    live = detector.subscribe()
    await reject_concept(graph, writer, LOSER)
    events = await patches_after(writer, detector, live)
    assert [i for ev in events for i in ev.patch.nodes.removed] == [orphan.id]
    assert not mentions(events, LOSER)


async def test_only_a_quarantined_concept_can_be_rejected(parts):
    graph, writer, _, _, audit, _ = parts
    with pytest.raises(ReviewConflict):
        await reject_concept(graph, writer, WINNER, audit=audit)
    with pytest.raises(NotFound):
        await reject_concept(graph, writer, "TAX:IE:NOTHING", audit=audit)
    with pytest.raises(NotFound):
        await reject_concept(graph, writer, REGIME.id, audit=audit)  # not a concept
    assert audit.records() == []
    assert len(await graph.get_nodes([WINNER, REGIME.id])) == 2


async def test_a_merge_seen_only_by_the_catch_up_is_judged_by_the_redirect(parts):
    """A merge made by another process whose bus message was lost reaches this process by the
    timestamp catch-up only: the redirect's ``merged_from`` says tenants never saw the
    capture, so nothing reports it; a reviewed concept merged that way is reported removed."""
    graph, writer, detector, _, _, _ = parts
    other = GraphWriteService(graph, IngressGuard(load_schema(), EmailOnlyScanner()))
    detector.start(watermark="2000-01-01T00:00:00.000000Z")
    live = detector.subscribe()
    await merge_concepts(graph, other, LOSER, WINNER)  # no listener: like a lost bus message
    await other.aclose()
    assert await detector.catch_up() > 0
    events = await patches_after(writer, detector, live)
    assert events and not mentions(events, LOSER)
    assert not [i for ev in events for i in ev.patch.nodes.removed]
    again = detector.subscribe()  # a timed-out read closes a subscription: a new one
    other = GraphWriteService(graph, IngressGuard(load_schema(), EmailOnlyScanner()))
    await merge_concepts(graph, other, PARENT, WINNER)
    await other.aclose()
    assert await detector.catch_up() > 0
    events = await patches_after(writer, detector, again)
    assert [i for ev in events for i in ev.patch.nodes.removed] == [PARENT]


async def test_a_redirect_in_a_conversations_context_is_described_without_its_own_text(parts):
    graph, writer, _, _, _, _ = parts
    await merge_concepts(graph, writer, LOSER, WINNER)
    [redirect] = await graph.get_nodes([LOSER])
    line = describe(redirect)
    assert WINNER in line and "merged" in line
    assert CAPTURED.prefLabel not in line  # another conversation's phrasing never travels
