"""Resolution's classes (issue 24, ADR 0049) through the capture path (``SelfPopulation``:
resolution, the ingress guard, the store) on both graph backends (Ladybug and the Bolt server):
surface variants and jurisdiction spellings land on the existing concept; near misses create a
provisional concept whose ``candidates`` list the existing one; nothing merges that should not;
the review queue shows the candidates and one merge resolves a duplicate, audited."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from engine.concepts import CapturedConcept
from engine.evidence import EvidenceIndex
from engine.ingestion import InMemoryIngestionQueue
from engine.lexicon import ConceptLexicon
from engine.lexicon_entry import LexiconEntry
from engine.review import merge_concepts, review_queue
from engine.review.audit import ReviewAudit
from engine.self_population import ConceptWrite, ConceptWriter, ResolvedConcept, SelfPopulation
from graph.ingress_guard import IngressGuard
from graph.port import GraphStore
from graph.schema import GraphSchema
from graph.write_service import GraphWriteService
from tests.support.fakes import EmailOnlyScanner

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


def concept(domain: str, kind: str, where: str, pref: str, *alts: str) -> CapturedConcept:
    return CapturedConcept(
        domain=domain, kind=kind, jurisdiction=where, prefLabel=pref, altLabels=list(alts)
    )


async def test_resolution_classes_on_each_backend(
    store: GraphStore, graph_schema: GraphSchema, tmp_path: Path
) -> None:
    sfx = uuid.uuid4().hex[:8].upper()  # the Bolt database is shared by the session's tests
    writer = GraphWriteService(store, IngressGuard(graph_schema, EmailOnlyScanner()))
    reviewed = [
        concept("WELFARE", f"MATERNITY_BENEFIT_{sfx}", "IE", "Maternity Benefit",
                "allocation de maternité"),
        concept("PENSIONS", f"AUTO_ENROLMENT_{sfx}", "IE",
                "Automatic enrolment retirement savings", "auto-enrolment"),
        concept("WELFARE", f"JOBSEEKERS_BENEFIT_{sfx}", "IE", "Jobseeker's Benefit"),
        concept("EU_LAW", f"GDPR_{sfx}", "EU", "General Data Protection Regulation", "GDPR"),
        concept("TAX", f"VAT_{sfx}", "IE", "Value-Added Tax (Ireland)", "VAT"),
        concept("TAX", f"VAT_{sfx}", "UK", "Value Added Tax (United Kingdom)", "UK VAT"),
    ]  # fmt: skip
    concepts = ConceptWriter(store, writer)
    for item in reviewed:
        await concepts.write(ConceptWrite(concept=item, status="confirmed"))
    lexicon = ConceptLexicon(
        LexiconEntry(
            key=c.id,
            pref_label=c.prefLabel,
            alt_labels=tuple(c.altLabels),
            domain=c.domain,
            kind=c.kind,
            jurisdiction=c.jurisdiction,
            definition=None,
            source_urls=(),
            scheme="graph",
            notation=None,
        )
        for c in reviewed
    )
    population = SelfPopulation(
        store, writer, EvidenceIndex(store), InMemoryIngestionQueue(), lexicon
    )
    ids = {c.kind.rsplit("_", 1)[0] + ":" + c.jurisdiction: c.id for c in reviewed}
    try:

        async def one(item: CapturedConcept, *where: str) -> ResolvedConcept:
            [resolved] = await population.resolve_all([item], list(where) or ["IE", "UK", "EU"])
            return resolved

        # Surface variants and jurisdiction spellings land on the existing concept.
        lands = [
            (concept("PENSIONS", "AUTOENROLMENT", "IE", "autoenrolment"), "AUTO_ENROLMENT:IE"),
            (concept("WELFARE", "JOBSEEKER_BENEFIT", "IE", "Jobseekers' Benefit"),
             "JOBSEEKERS_BENEFIT:IE"),
            (concept("WELFARE", "MATERNITE", "IE", "ALLOCATION DE MATERNITE"),
             "MATERNITY_BENEFIT:IE"),
            (concept("TAX", "VAT_IRL", "IRL", "VAT"), "VAT:IE"),
            (concept("TAX", "VAT_GB", "United Kingdom", "VAT"), "VAT:UK"),
            (concept("TAX", "V_A_T", "Ireland", "V.A.T."), "VAT:IE"),
            # ADR 0060: an acronym in brackets, an American spelling, a French country name
            (concept("WELFARE", "JB", "IE", "Jobseeker's Benefit (JB)"), "JOBSEEKERS_BENEFIT:IE"),
            (concept("PENSIONS", "AUTO_ENROLLMENT", "IE", "Auto-Enrollment"), "AUTO_ENROLMENT:IE"),
            (concept("TAX", "TVA", "Irlande", "VAT"), "VAT:IE"),
        ]  # fmt: skip
        for item, expected in lands:
            got = await one(item)
            assert (got.id, got.created) == (ids[expected], False), item.prefLabel

        # Near misses are created, provisional, with the existing concept as a candidate.
        near = [
            (concept("WELFARE", f"PATERNITY_BENEFIT_{sfx}", "IE", "Paternity Benefit"),
             "MATERNITY_BENEFIT:IE"),
            (concept("DATA", f"UK_GDPR_{sfx}", "UK", "UK GDPR"), "GDPR:EU"),
            (concept("WELFARE", f"JBSE_{sfx}", "IE", "Jobseeker's Benefit (Self-Employed)"),
             "JOBSEEKERS_BENEFIT:IE"),
            (concept("PENSIONS", f"AE_SCHEME_{sfx}", "IE", "auto-enrolment scheme"),
             "AUTO_ENROLMENT:IE"),
        ]  # fmt: skip
        for item, expected in near:
            got = await one(item)
            assert (got.id, got.created, got.status) == (item.id, True, "provisional")
            [node] = await store.get_nodes([item.id])
            stored = [str(c).split("|")[0] for c in node.properties.get("candidates") or []]
            assert ids[expected] in stored, item.prefLabel

        # An uncovered jurisdiction stays out, whatever its labels.
        out = await one(concept("TAX", f"VAT_DE_{sfx}", "DEU", "VAT"), "IE")
        assert out.skipped == "out_of_coverage"

        # The review queue shows the candidates; one merge resolves the duplicate, audited.
        scheme = f"PENSIONS:IE:AE_SCHEME_{sfx}"
        [queued] = [i for i in await review_queue(store) if i.id == scheme]
        [candidate] = [c for c in queued.candidates if c.id == ids["AUTO_ENROLMENT:IE"]]
        assert candidate.pref_label == "Automatic enrolment retirement savings"
        assert candidate.reason == "parent_child"
        audit = ReviewAudit(tmp_path / "review_audit.jsonl")
        await merge_concepts(store, writer, scheme, candidate.id, audit=audit, by="test")
        assert [(r.action, r.concept, r.into) for r in audit.records()] == [
            ("merge", scheme, candidate.id)
        ]
        again = await one(concept("PENSIONS", f"AE_SCHEME_{sfx}", "IE", "auto-enrolment scheme"))
        assert again.id == ids["AUTO_ENROLMENT:IE"]
    finally:
        await writer.aclose()


async def test_a_new_concept_seen_again_in_other_words_counts_on_the_same_provisional_node(
    store: GraphStore, graph_schema: GraphSchema
) -> None:
    """Must-have 4: another conversation's capture of the same normalised label (a possessive
    and a plural more, another kind) lands on the provisional node and is counted there; it is
    told its own words, never the first capture's."""
    sfx = uuid.uuid4().hex[:8].upper()
    writer = GraphWriteService(store, IngressGuard(graph_schema, EmailOnlyScanner()))
    population = SelfPopulation(
        store, writer, EvidenceIndex(store), InMemoryIngestionQueue(), ConceptLexicon()
    )
    try:
        first_words = concept("TAX", f"HOME_CARER_TAX_CREDIT_{sfx}", "IE", "Home Carer Tax Credit")
        [first] = await population.resolve_all([first_words], ["IE"])
        again_words = concept("TAX", f"HOMECARERS_CREDIT_{sfx}", "IE", "home carer's tax credits")
        [again] = await population.resolve_all([again_words], ["IE"])
        assert first.created and (again.id, again.created) == (first.id, False)
        assert again.pref_label == "home carer's tax credits"  # its own words
        [queued] = [i for i in await review_queue(store) if i.id == first.id]
        assert queued.mentions == 2
    finally:
        await writer.aclose()
