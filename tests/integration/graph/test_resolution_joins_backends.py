"""The joins ADR 0078 added (second names as data, word order, UK constituent countries, form
codes that are no identifiers, a seeded concept's ``not_labels`` as ``related`` candidates) and
ADR 0083's candidates by letters, through the capture path (``SelfPopulation``: resolution, the
ingress guard, the store) on both graph backends (Ladybug and the Bolt server, issue 24). They
read the store's quarantined concepts and labels, which each backend answers in its own query
language: what lands on Ladybug must land on Bolt."""

from __future__ import annotations

import uuid

import pytest

from engine.concepts import CapturedConcept
from engine.evidence import EvidenceIndex
from engine.ingestion import InMemoryIngestionQueue
from engine.lexicon import ConceptLexicon
from engine.lexicon_entry import LexiconEntry
from engine.review import review_queue
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


def entry(c: CapturedConcept) -> LexiconEntry:
    return LexiconEntry(
        key=c.id, pref_label=c.prefLabel, alt_labels=tuple(c.altLabels), domain=c.domain,
        kind=c.kind, jurisdiction=c.jurisdiction, definition=None, source_urls=(),
        scheme="graph", notation=None,
    )  # fmt: skip


async def stored_candidates(store: GraphStore, concept_id: str) -> dict[str, str]:
    [node] = await store.get_nodes([concept_id])
    pairs = (str(c).split("|") for c in node.properties.get("candidates") or [])
    return {p[0]: p[1] for p in pairs}


async def test_second_names_join_another_captures_concept_on_each_backend(
    store: GraphStore, graph_schema: GraphSchema
) -> None:
    """A capture named by one name of a group in seeds/second_names.yaml joins another
    conversation's quarantined capture named by another (the words come from the data), in
    its own jurisdiction only; it keeps its own words."""
    sfx = uuid.uuid4().hex[:8].upper()  # the Bolt database is shared by the session's tests
    writer = GraphWriteService(store, IngressGuard(graph_schema, EmailOnlyScanner()))
    population = SelfPopulation(
        store, writer, EvidenceIndex(store), InMemoryIngestionQueue(), ConceptLexicon()
    )
    try:
        first_words = concept("WELFARE", f"FAMILY_INCOME_SUPPLEMENT_{sfx}", "IE",
                              "Family Income Supplement")  # fmt: skip
        [first] = await population.resolve_all([first_words], ["IE"])
        assert first.created and first.status == "provisional"
        again_words = concept("WELFARE", f"WORKING_FAMILY_PAYMENT_{sfx}", "IE",
                              "Working Family Payment")  # fmt: skip
        [again] = await population.resolve_all([again_words], ["IE"])
        assert (again.id, again.created) == (first.id, False)
        assert again.pref_label == "Working Family Payment"  # its own words, not the first's
        [queued] = [i for i in await review_queue(store) if i.id == first.id]
        assert queued.mentions == 2
        # the same names in another jurisdiction are another concept
        elsewhere = concept("WELFARE", f"WORKING_FAMILY_PAYMENT_{sfx}", "UK",
                            "Working Family Payment")  # fmt: skip
        [other] = await population.resolve_all([elsewhere], ["UK"])
        assert other.created and other.id != first.id
    finally:
        await writer.aclose()


async def test_word_order_places_form_codes_and_related_terms_on_each_backend(
    store: GraphStore, graph_schema: GraphSchema
) -> None:
    sfx = uuid.uuid4().hex[:8].upper()
    writer = GraphWriteService(store, IngressGuard(graph_schema, EmailOnlyScanner()))
    reviewed = [
        concept("PENSIONS", f"STATE_PENSION_CONTRIBUTORY_{sfx}", "IE",
                "State Pension (Contributory)", "contributory pension"),
        concept("TAX", f"VAT_{sfx}", "UK", "Value Added Tax (United Kingdom)", "UK VAT"),
        concept("TAX", f"SA100_{sfx}", "UK", "SA100 tax return (United Kingdom)", "SA100"),
        # its id is the seeds' own: its not_labels (seeds/rules) name it as related
        concept("TAX", "SELF_ASSESSMENT", "IE", "Self-assessment (Ireland)", "pay and file"),
    ]  # fmt: skip
    concepts = ConceptWriter(store, writer)
    for item in reviewed:
        await concepts.write(ConceptWrite(concept=item, status="confirmed"))
    population = SelfPopulation(
        store, writer, EvidenceIndex(store), InMemoryIngestionQueue(),
        ConceptLexicon(entry(c) for c in reviewed),
    )  # fmt: skip
    try:

        async def one(item: CapturedConcept, *where: str) -> ResolvedConcept:
            [resolved] = await population.resolve_all([item], list(where))
            return resolved

        # word order (two content words or more) and a constituent country of the UK
        lands = [
            (concept("PENSIONS", "CONTRIBUTORY_STATE_PENSION", "IE",
                     "Contributory State Pension"), "IE", reviewed[0].id),
            (concept("TAX", "VAT_WALES", "Wales", "VAT"), "UK", reviewed[1].id),
            (concept("TAX", "VAT_GB_SCT", "GB-SCT", "VAT"), "UK", reviewed[1].id),
            (concept("TAX", "SA100_FORM", "UK", "SA100"), "UK", reviewed[2].id),
        ]  # fmt: skip
        for item, where, expected in lands:
            got = await one(item, where)
            assert (got.id, got.created) == (expected, False), item.prefLabel

        # another form code is another concept, never the SA100 (ADR 0078)
        sa800 = await one(concept("TAX", f"SA800_{sfx}", "UK", "SA800"), "UK")
        assert sa800.created and sa800.id != reviewed[2].id

        # a seeded not_label: created, with the concept it relates to as a candidate
        term = concept("TAX", f"CHARGEABLE_PERSON_{sfx}", "IE", "chargeable person")
        related = await one(term, "IE")
        assert (related.id, related.created, related.status) == (term.id, True, "provisional")
        assert (await stored_candidates(store, term.id)).get("TAX:IE:SELF_ASSESSMENT") == (
            "related"
        )

        # letters alone (ADR 0083): a spelling no rule names is a candidate, never a join
        typo = concept("PENSIONS", f"CONTRIBUTRY_STAT_PENSHUN_{sfx}", "IE",
                       "contributry stat penshun")  # fmt: skip
        near = await one(typo, "IE")
        assert (near.id, near.created) == (typo.id, True)
        assert reviewed[0].id in await stored_candidates(store, typo.id)
    finally:
        await writer.aclose()
