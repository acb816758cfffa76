"""The ingestion worker on the real embedded store, with real AI Act provisions: a sparse
captured concept gains an alignment and its statutory definition, word for word; a concept
reviewed meanwhile is dropped; a job that keeps failing is dead-lettered."""

import pytest

from corpus.graph_writes import to_graph_writes
from corpus.parse import parse_act, shipped_acts
from engine.concepts import CapturedConcept
from engine.evidence import EvidenceIndex
from engine.ingestion import IngestionJob, InMemoryIngestionQueue, QueueStats
from engine.ingestion.worker import ConceptEnricher, IngestionWorker, defined_in
from engine.review import confirm_concept
from engine.self_population import ConceptWrite, ConceptWriter
from graph.backends.ladybug import LadybugGraphStore
from graph.ingress_guard import IngressGuard
from graph.models import GraphNode, NodeWrite
from graph.schema import load_schema
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

AI_ACT = "EU:REG_2024_1689"
KEEP = {f"{AI_ACT}:ART_3", f"{AI_ACT}:ART_26", f"{AI_ACT}:ART_50", AI_ACT}
DEPLOYER = CapturedConcept(
    domain="EU_LAW", kind="DEPLOYER", jurisdiction="EU", prefLabel="deployer",
    altLabels=["AI deployer"],
)  # fmt: skip


@pytest.fixture
async def parts(tmp_path):
    schema = load_schema()
    graph = LadybugGraphStore(tmp_path / "g", schema)
    await graph.init_schema()
    writer = GraphWriteService(graph, IngressGuard(schema, EmailOnlyScanner()))
    [act] = [parse_act(p) for p in shipped_acts() if "2024" in p.name]
    writes, _ = to_graph_writes(act, [])
    await writer.upsert_nodes(
        [NodeWrite(id=w.id, label=w.label, properties=dict(w.properties)) for w in writes
         if w.id in KEEP]
    )  # fmt: skip
    evidence = EvidenceIndex(graph)
    await evidence.refresh()
    yield graph, writer, evidence
    await writer.aclose()
    await graph.aclose()


async def test_a_sparse_concept_gains_an_alignment_and_its_statutory_definition(parts):
    graph, writer, evidence = parts
    await ConceptWriter(graph, writer).write(ConceptWrite(DEPLOYER, status="provisional"))
    queue = InMemoryIngestionQueue()
    await queue.enqueue(IngestionJob(DEPLOYER.id, "missing"))
    [result] = await IngestionWorker(queue, ConceptEnricher(graph, writer, evidence)).run_once()
    assert result.status == "defined"
    assert f"{AI_ACT}:ART_3" in result.linked and result.definition_source == f"{AI_ACT}:ART_3"
    [node] = await graph.get_nodes([DEPLOYER.id])
    assert node.properties["ingestion_status"] == "defined"
    assert node.properties["status"] == "provisional"  # still quarantined until reviewed
    definition = node.properties["definition"]
    assert definition.startswith("‘deployer’ means a natural or legal person")
    [article] = await graph.get_nodes([f"{AI_ACT}:ART_3"])
    assert " ".join(definition.split()) in " ".join(article.properties["text"].split())
    assert node.properties["source_urls"][0].startswith("https://eur-lex.europa.eu/")
    around = await graph.neighbourhood([DEPLOYER.id])
    assert ("ALIGNS_WITH", f"{AI_ACT}:ART_3") in {(e.type, e.target) for e in around.edges}
    assert await queue.stats() == QueueStats(0, 0, 0, 0)


async def test_a_concept_the_graph_does_not_name_gets_no_source_and_no_text(parts):
    graph, writer, evidence = parts
    wealth = CapturedConcept(
        domain="TAX", kind="WEALTH_TAX", jurisdiction="IE", prefLabel="wealth tax"
    )
    await ConceptWriter(graph, writer).write(ConceptWrite(wealth, status="provisional"))
    result = await ConceptEnricher(graph, writer, evidence).enrich(wealth.id)
    assert (result.status, result.linked) == ("no_source", ())
    [node] = await graph.get_nodes([wealth.id])
    assert "definition" not in node.properties


async def test_a_concept_reviewed_meanwhile_is_dropped(parts):
    graph, writer, evidence = parts
    await ConceptWriter(graph, writer).write(ConceptWrite(DEPLOYER, status="provisional"))
    await confirm_concept(graph, writer, DEPLOYER.id)
    result = await ConceptEnricher(graph, writer, evidence).enrich(DEPLOYER.id)
    assert result.status == "dropped"


async def test_a_concept_confirmed_while_the_job_runs_is_not_written(parts):
    """The job read the concept quarantined, then an operator confirmed it before the job
    wrote: the job writes nothing (a reviewed concept gains nothing unreviewed)."""
    graph, writer, evidence = parts
    await ConceptWriter(graph, writer).write(ConceptWrite(DEPLOYER, status="provisional"))

    class ConfirmedMeanwhile(ConceptEnricher):
        async def _labels(self, concept: GraphNode) -> list[str]:
            found = await super()._labels(concept)  # after the job's first status check
            await confirm_concept(graph, writer, DEPLOYER.id)
            return found

    result = await ConfirmedMeanwhile(graph, writer, evidence).enrich(DEPLOYER.id)
    assert result.status == "dropped"
    [node] = await graph.get_nodes([DEPLOYER.id])
    assert node.properties["status"] == "confirmed" and "ingestion_status" not in node.properties
    around = await graph.neighbourhood([DEPLOYER.id])
    assert "ALIGNS_WITH" not in {e.type for e in around.edges}


async def test_a_poison_job_is_retried_then_dead_lettered(parts):
    graph, writer, evidence = parts

    class Broken(ConceptEnricher):
        async def enrich(self, concept_id):
            raise RuntimeError("the graph refused")

    clock = [0.0]
    queue = InMemoryIngestionQueue(max_attempts=3, backoff_s=1.0, clock=lambda: clock[0])
    await queue.enqueue(IngestionJob("TAX:IE:POISON", "missing"))
    worker = IngestionWorker(queue, Broken(graph, writer, evidence))
    for _ in range(3):
        assert await worker.run_once() == []
        clock[0] += 10
    assert [job.concept_id for job, _ in await queue.dead_letters()] == ["TAX:IE:POISON"]


def test_definitions_are_taken_word_for_word_or_not_at_all():
    text = "(3) ‘provider’ means a natural or legal person that develops an AI system; (4) ‘x’"
    assert defined_in(text, "provider") == (
        "‘provider’ means a natural or legal person that develops an AI system"
    )
    assert defined_in(text, "deployer") is None


async def test_the_apps_own_worker_enriches_what_a_capture_created(seeded_data_dir):
    """Wiring: the API process runs the worker over its queue (the embedded default)."""
    import anyio

    from api.bootstrap import bootstrap
    from api.settings import Settings

    container = await bootstrap(Settings(data_dir=seeded_data_dir, log_json=False))
    try:
        [resolved] = await container.population.resolve_all([DEPLOYER], ["EU"])
        assert resolved.created
        with anyio.fail_after(20):
            while True:
                [node] = await container.graph.get_nodes([DEPLOYER.id])
                if node.properties.get("ingestion_status"):
                    break
                await anyio.sleep(0.1)
        assert node.properties["ingestion_status"] == "defined"
        assert node.properties["definition"].startswith("‘deployer’ means")
    finally:
        await container.aclose()
