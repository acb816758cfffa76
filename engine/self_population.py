"""Self-population: captured concepts become (or meet) canonical concept nodes in the graph.

For each concept of a ``capture_concepts`` payload (docs/architecture.md, "One chat turn"):

1. validate (``engine.concepts``) and normalise its labels;
2. ask matching what it names (:meth:`engine.matching.ConceptMatcher.identify`, ADR 0023,
   ADR 0049): an existing concept (the exact ``(domain, jurisdiction, kind)`` key first, then
   the reviewed concepts' labels, then aliases, ``Label`` nodes, within the same
   jurisdiction), or none and why it is skipped, or none and the suggestions for review. This
   module decides nothing about matching; it orchestrates and writes;
3. upsert through ``GraphWriteService`` (so through the ingress guard): a missing concept is
   created ``provisional`` with a ``Label`` per label, ``HAS_ALT_LABEL`` edges and
   ``ALIGNS_WITH`` edges to the rule nodes it names; an existing one gains any new labels;
4. the auto-ingestion gate queues a job only when the concept was missing or is clearly sparse
   (no ``ALIGNS_WITH`` edge and no definition);
5. a mention of a quarantined concept (one this capture created or met) is counted on the
   concept's ``HAS_ALT_LABEL`` edges, once its labels are written (ADR 0036): each label the
   capture used adds one to ``uses``, its preferred label one to ``pref_uses`` too, so the
   review queue shows how often each phrasing was used and how many captures there were. The
   store adds, so captures in several workers at once are all counted; labels the guard
   refused were never written, so a rejected capture counts nothing. A reviewed concept is not
   counted: it gains no chat phrasing, and its count would tell tenants about each other.

Resolution of one id is single-flight inside a process, and the store's upsert is atomic, so
ten conversations naming the same new concept at once create it exactly once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from engine.concepts import CapturedConcept, label_id
from engine.evidence import EvidenceIndex
from engine.ingestion import IngestionJob, IngestionQueue
from engine.lexicon import ConceptLexicon
from engine.matching import ConceptMatcher, MatchedBy, Suggestion
from engine.normalise import normalise_jurisdiction, normalise_label
from errors import GraphWriteRejected
from graph.models import (
    EdgeIncrement,
    EdgeWrite,
    GraphEdge,
    GraphNode,
    NodeWrite,
    PropertyValue,
    WriteOutcome,
)
from graph.port import GraphReader
from graph.quarantine import is_quarantined
from graph.write_service import GraphWriteService

__all__ = [
    "PREF_USES",
    "USES",
    "ConceptStatus",
    "ConceptWrite",
    "ConceptWriter",
    "ResolvedConcept",
    "SelfPopulation",
]


#: Counters of a ``HAS_ALT_LABEL`` edge (``schema/graph.yaml``, ADR 0036): captures that used
#: the label for the concept, and of those the captures whose preferred label it was.
USES: Final = "uses"
PREF_USES: Final = "pref_uses"

ConceptStatus = Literal["provisional", "confirmed"]


@dataclass(frozen=True)
class ResolvedConcept:
    id: str
    pref_label: str
    status: ConceptStatus
    created: bool
    matched_by: MatchedBy
    aligned_with: tuple[str, ...] = ()
    skipped: str | None = None  # why nothing was written: out_of_coverage, ... (not in graph)


@dataclass(frozen=True)
class ConceptWrite:
    """A concept as it is written: the captured fields plus status and alignments."""

    concept: CapturedConcept
    status: ConceptStatus
    aligns_with: Sequence[tuple[str, str]] = field(default_factory=tuple)  # (id, label)
    scheme: str = "captured"
    # existing concepts a new provisional one may duplicate, for review (``id|reason|score``)
    candidates: Sequence[str] = ()
    # SKOS notation: the EU act a seeded concept is (its ELI path, ``eli/reg/2016/679``): a
    # label citing that act names the concept (ADR 0075)
    notation: str | None = None


class ConceptWriter:
    """Writes a concept, its labels and alignments. Shared by self-population and seeding.

    A ``Label`` node is shared by every concept with that normalised label; it is written only
    when missing, so its ``text`` keeps the first spelling instead of flipping between
    "Entrepreneur's Relief" and "entrepreneurs relief" (and ``updated_at`` with it).
    """

    def __init__(self, reader: GraphReader, writer: GraphWriteService) -> None:
        self._reader = reader
        self._writer = writer

    @staticmethod
    def node_writes(item: ConceptWrite) -> tuple[NodeWrite, list[NodeWrite]]:
        """The concept node and its ``Label`` nodes, as they would be written."""
        concept = item.concept
        props: dict[str, PropertyValue] = {
            "domain": concept.domain,
            "kind": concept.kind,
            "jurisdiction": concept.jurisdiction,
            "pref_label": concept.prefLabel,
            "status": item.status,
            "scheme": item.scheme,
        }
        if concept.definition:
            props["definition"] = concept.definition
        if concept.sourceUrls:
            props["source_urls"] = list(concept.sourceUrls)
        if item.candidates:
            props["candidates"] = list(item.candidates)
        if item.notation:
            props["notation"] = item.notation
        texts = {normalise_label(t): t for t in reversed([concept.prefLabel, *concept.altLabels])}
        labels = [
            NodeWrite(
                id=label_id(norm),
                label="Label",
                properties={"text": text, "normalised": norm, "status": item.status},
            )
            for norm, text in texts.items()
            if norm
        ]
        return NodeWrite(id=concept.id, label="Concept", properties=props), labels

    def check(self, item: ConceptWrite) -> None:
        """The ingress guard's verdict on the concept's nodes, without touching the graph."""
        node, labels = self.node_writes(item)
        self._writer.check_nodes([node, *labels])

    async def write(
        self,
        item: ConceptWrite,
        *,
        labels_only: bool = False,
        linked: frozenset[str] = frozenset(),
    ) -> WriteOutcome:
        """Upsert the concept node (unless ``labels_only``), its labels and alignments.

        ``linked``: label ids already attached to the concept; they are not written again.
        """
        concept = item.concept
        node, labels = self.node_writes(item)
        labels = [label for label in labels if label.id not in linked]
        known = {n.id for n in await self._reader.get_nodes([label.id for label in labels])}
        missing = [label for label in labels if label.id not in known]
        if labels_only and not labels:
            return WriteOutcome.UNCHANGED  # nothing new: a known concept, known labels
        results = await self._writer.upsert_nodes(missing if labels_only else [node, *missing])
        edges = [
            EdgeWrite(
                type="HAS_ALT_LABEL",
                source_id=concept.id,
                source_label="Concept",
                target_id=label.id,
                target_label="Label",
            )
            for label in labels
        ] + [
            EdgeWrite(
                type="ALIGNS_WITH",
                source_id=concept.id,
                source_label="Concept",
                target_id=target_id,
                target_label=target_label,
            )
            for target_id, target_label in item.aligns_with
        ]
        await self._writer.upsert_edges(edges)
        return WriteOutcome.UNCHANGED if labels_only else results[0].outcome

    async def count_mention(self, concept_id: str, mention: CapturedConcept) -> None:
        """Count one capture's phrasings on the concept's ``HAS_ALT_LABEL`` edges: ``uses``
        for every label it used, ``pref_uses`` for its preferred label. Call it after the
        labels were written: an edge that is not there counts nothing."""
        labels = mention.normalised_labels()  # preferred label first
        await self._writer.increment_edges(
            [
                EdgeIncrement(
                    type="HAS_ALT_LABEL",
                    source_id=concept_id,
                    source_label="Concept",
                    target_id=label_id(norm),
                    target_label="Label",
                    by={USES: 1, PREF_USES: 1} if i == 0 else {USES: 1},
                )
                for i, norm in enumerate(labels)
            ]
        )


class SelfPopulation:
    def __init__(
        self,
        reader: GraphReader,
        writer: GraphWriteService,
        evidence: EvidenceIndex,
        ingestion: IngestionQueue,
        lexicon: ConceptLexicon | None = None,
    ) -> None:
        self._reader = reader
        self._concepts = ConceptWriter(reader, writer)
        self._matcher = ConceptMatcher(reader, lexicon)
        self._evidence = evidence
        self._ingestion = ingestion
        self._inflight: dict[str, tuple[asyncio.Lock, int]] = {}

    def screen(self, concepts: Sequence[CapturedConcept]) -> None:
        """Raise :class:`errors.GraphWriteRejected` if the guard would refuse any concept
        (used before a capture is kept for later: nothing unchecked is stored)."""
        for concept in concepts:
            self._concepts.check(ConceptWrite(concept=concept, status="provisional"))

    async def resolve_all(
        self,
        concepts: Sequence[CapturedConcept],
        jurisdictions: Sequence[str] | None = None,
    ) -> list[ResolvedConcept]:
        """Resolve each concept; one the guard rejects does not stop the others.

        ``jurisdictions``: those the conversation is known to be about (``None``: not checked).
        A capture that matches no reviewed concept is created only in a jurisdiction the graph
        covers and the conversation named (or at EU level); otherwise it is skipped, with its
        reason, rather than written under a guessed jurisdiction.
        """
        resolved: list[ResolvedConcept] = []
        rejected: list[GraphWriteRejected] = []
        for concept in concepts:
            try:
                resolved.append(await self.resolve(concept, jurisdictions))
            except GraphWriteRejected as exc:
                # Recorded without the value: the message names the field, never its content.
                rejected.append(exc)
                resolved.append(_skipped(concept, "rejected"))
        if rejected and all(r.skipped == "rejected" for r in resolved):
            raise rejected[0]  # nothing was written: the caller's retry/warning path decides
        if created := [r.id for r in resolved if r.created]:
            # The next turn describes them from the index; the full rebuild runs in the
            # background (GraphSync), off this turn's path. Provisional: never evidence anyway.
            self._evidence.remember(await self._reader.get_nodes(created))
        return resolved

    async def resolve(
        self, concept: CapturedConcept, jurisdictions: Sequence[str] | None = None
    ) -> ResolvedConcept:
        # The jurisdiction as the project spells it before the key is built ("IRL", "Ireland"
        # -> IE; "United Kingdom", "GBR" -> UK; an uncovered country stays out of coverage).
        where = normalise_jurisdiction(concept.jurisdiction)
        if where != concept.jurisdiction:
            concept = concept.model_copy(update={"jurisdiction": where})
        # Single flight per concept id: one resolution at a time, the others wait and then find
        # what it wrote. The lock is dropped when its last user (holder or waiter) is done.
        lock, users = self._inflight.get(concept.id, (asyncio.Lock(), 0))
        self._inflight[concept.id] = (lock, users + 1)
        try:
            async with lock:
                return await self._resolve(concept, jurisdictions)
        finally:
            lock, users = self._inflight[concept.id]
            if users == 1:
                del self._inflight[concept.id]
            else:
                self._inflight[concept.id] = (lock, users - 1)

    async def _resolve(
        self, concept: CapturedConcept, jurisdictions: Sequence[str] | None
    ) -> ResolvedConcept:
        match = await self._matcher.identify(concept, jurisdictions)
        if match.skipped is not None:
            return _skipped(concept, match.skipped)
        if match.node is not None:
            return await self._meet(concept, match.node, match.matched_by)
        return await self._create(concept, match.suggestions)

    async def _meet(
        self, concept: CapturedConcept, existing: GraphNode, matched_by: MatchedBy
    ) -> ResolvedConcept:
        """A mention of a concept the graph holds: a quarantined one gains its labels and
        counts it; a sparse one is queued for ingestion."""
        status = _status(existing)
        defined = bool(existing.properties.get("definition"))
        # Its edges are read only when something below needs them: the labels already
        # linked (a provisional concept) or the sparse check (no definition). A reviewed
        # concept with a definition, the usual case, needs no graph read here (ADR 0029).
        mine: list[GraphEdge] = []
        if status == "provisional" or not defined:
            around = await self._reader.neighbourhood([existing.id], limit=200)
            mine = [e for e in around.edges if e.source == existing.id]
        if status == "provisional":
            # Still in quarantine (ADR 0020): the labels this mention brought join it there.
            # A reviewed concept gains none: chat phrasing would reach every tenant.
            # Properties of a known concept (status included) are never overwritten.
            await self._concepts.write(
                ConceptWrite(concept=_as_known(concept, existing), status=status),
                labels_only=True,
                linked=frozenset(e.target for e in mine if e.type == "HAS_ALT_LABEL"),
            )
        # The auto-ingestion gate: clearly sparse = no definition and no rule alignment.
        if not defined and not any(e.type == "ALIGNS_WITH" for e in mine):
            await self._ingestion.enqueue(IngestionJob(existing.id, "sparse"))
        if status == "provisional":
            # Last, so a step that fails before it (and makes the capture retry) has not
            # counted this mention yet.
            await self._concepts.count_mention(existing.id, concept)
        # A quarantined node's own name may be another conversation's phrasing: this
        # conversation is told its own.
        name = existing.properties.get("pref_label", existing.id)
        told = str(name) if status == "confirmed" else concept.prefLabel
        # What this mention names, as a first capture of it would report (issue 26): the
        # turn tells another conversation no more than if it had captured it first.
        named = self._named(concept) if status == "provisional" else []
        return ResolvedConcept(
            id=existing.id,
            pref_label=told,
            status=status,
            created=False,
            matched_by=matched_by,
            aligned_with=tuple(node.id for node in named),
        )

    async def _create(
        self, concept: CapturedConcept, near: Sequence[Suggestion]
    ) -> ResolvedConcept:
        """A mention that names no concept: created provisional (or met, when another
        worker's capture created it a moment earlier), aligned with the rule nodes it names,
        with the reviewed concepts it may duplicate (``near``) for review."""
        targets = self._named(concept)
        outcome = await self._concepts.write(
            ConceptWrite(
                concept=concept,
                status="provisional",
                aligns_with=[(node.id, node.label) for node in targets],
                candidates=[s.encode() for s in near],
            )
        )
        created = outcome is WriteOutcome.CREATED
        if created:
            await self._ingestion.enqueue(IngestionJob(concept.id, "missing"))
        # Created here or, a moment earlier, by another worker's capture: a mention either way.
        await self._concepts.count_mention(concept.id, concept)
        return ResolvedConcept(
            id=concept.id,
            pref_label=concept.prefLabel,
            status="provisional",
            created=created,
            matched_by="created",
            aligned_with=tuple(node.id for node in targets),
        )

    def _named(self, concept: CapturedConcept) -> list[GraphNode]:
        """The rule nodes of the mention's jurisdiction that its labels name."""
        return self._evidence.nodes_named(concept.normalised_labels(), concept.jurisdiction)


def _skipped(concept: CapturedConcept, reason: str) -> ResolvedConcept:
    return ResolvedConcept(
        id=concept.id,
        pref_label=concept.prefLabel,
        status="provisional",
        created=False,
        matched_by="skipped",
        skipped=reason,
    )


def _status(node: GraphNode) -> ConceptStatus:
    return "provisional" if is_quarantined(node) else "confirmed"


def _as_known(concept: CapturedConcept, existing: GraphNode) -> CapturedConcept:
    """The captured mention re-keyed onto the existing node, with the existing properties."""
    props = existing.properties
    domain, jurisdiction, kind = existing.id.split(":", 2)
    return CapturedConcept(
        domain=str(props.get("domain", domain)),
        kind=str(props.get("kind", kind)),
        jurisdiction=str(props.get("jurisdiction", jurisdiction)),
        prefLabel=str(props.get("pref_label", concept.prefLabel)),
        altLabels=[concept.prefLabel, *concept.altLabels],
        definition=props.get("definition"),
        sourceUrls=list(props.get("source_urls", [])),
    )
