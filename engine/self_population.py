"""Self-population: captured concepts become (or meet) canonical concept nodes in the graph.

For each concept of a ``capture_concepts`` payload (DESIGN.md step 7):

1. validate (``engine.concepts``) and normalise its labels;
2. resolve the canonical concept: the exact ``(domain, jurisdiction, kind)`` key first, then
   aliases (``Label`` nodes) within the same jurisdiction;
3. upsert through ``GraphWriteService`` (so through the ingress guard): a missing concept is
   created ``provisional`` with a ``Label`` per label, ``HAS_ALT_LABEL`` edges and
   ``ALIGNS_WITH`` edges to the rule nodes it names; an existing one gains any new labels;
4. the auto-ingestion gate queues a job only when the concept was missing or is clearly sparse
   (no ``ALIGNS_WITH`` edge and no definition).

Resolution of one id is single-flight inside a process, and the store's upsert is atomic, so
ten conversations naming the same new concept at once create it exactly once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from engine.concepts import CapturedConcept, label_id
from engine.evidence import EvidenceIndex
from engine.ingestion import IngestionJob, IngestionQueue
from engine.normalise import normalise_label
from errors import NotFound
from graph.models import EdgeWrite, GraphNode, NodeWrite, PropertyValue, WriteOutcome
from graph.port import GraphReader
from graph.write_service import GraphWriteService

__all__ = [
    "ConceptStatus",
    "ConceptWrite",
    "ConceptWriter",
    "MatchedBy",
    "ResolvedConcept",
    "SelfPopulation",
    "confirm_concept",
]


ConceptStatus = Literal["provisional", "confirmed"]
MatchedBy = Literal["key", "alias", "created"]


@dataclass(frozen=True)
class ResolvedConcept:
    id: str
    pref_label: str
    status: ConceptStatus
    created: bool
    matched_by: MatchedBy
    aligned_with: tuple[str, ...] = ()


@dataclass(frozen=True)
class ConceptWrite:
    """A concept as it is written: the captured fields plus status and alignments."""

    concept: CapturedConcept
    status: ConceptStatus
    aligns_with: Sequence[tuple[str, str]] = field(default_factory=tuple)  # (id, label)
    scheme: str = "captured"


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
        texts = {normalise_label(t): t for t in reversed([concept.prefLabel, *concept.altLabels])}
        labels = [
            NodeWrite(
                id=label_id(norm), label="Label", properties={"text": text, "normalised": norm}
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
                type="HAS_ALT_LABEL", source_id=concept.id, source_label="Concept",
                target_id=label.id, target_label="Label",
            )
            for label in labels
        ] + [
            EdgeWrite(
                type="ALIGNS_WITH", source_id=concept.id, source_label="Concept",
                target_id=target_id, target_label=target_label,
            )
            for target_id, target_label in item.aligns_with
        ]  # fmt: skip
        await self._writer.upsert_edges(edges)
        return WriteOutcome.UNCHANGED if labels_only else results[0].outcome


class SelfPopulation:
    def __init__(
        self,
        reader: GraphReader,
        writer: GraphWriteService,
        evidence: EvidenceIndex,
        ingestion: IngestionQueue,
    ) -> None:
        self._reader = reader
        self._concepts = ConceptWriter(reader, writer)
        self._evidence = evidence
        self._ingestion = ingestion
        self._inflight: dict[str, tuple[asyncio.Lock, int]] = {}

    def screen(self, concepts: Sequence[CapturedConcept]) -> None:
        """Raise :class:`errors.GraphWriteRejected` if the guard would refuse any concept
        (used before a capture is kept for later: nothing unchecked is stored)."""
        for concept in concepts:
            self._concepts.check(ConceptWrite(concept=concept, status="provisional"))

    async def resolve_all(self, concepts: Sequence[CapturedConcept]) -> list[ResolvedConcept]:
        resolved = [await self.resolve(concept) for concept in concepts]
        if created := [r.id for r in resolved if r.created]:
            # The next turn describes them from the index; the full rebuild runs in the
            # background (GraphSync), off this turn's path. Provisional: never evidence anyway.
            self._evidence.remember(await self._reader.get_nodes(created))
        return resolved

    async def resolve(self, concept: CapturedConcept) -> ResolvedConcept:
        # Single flight per concept id: one resolution at a time, the others wait and then find
        # what it wrote. The lock is dropped when its last user (holder or waiter) is done.
        lock, users = self._inflight.get(concept.id, (asyncio.Lock(), 0))
        self._inflight[concept.id] = (lock, users + 1)
        try:
            async with lock:
                return await self._resolve(concept)
        finally:
            lock, users = self._inflight[concept.id]
            if users == 1:
                del self._inflight[concept.id]
            else:
                self._inflight[concept.id] = (lock, users - 1)

    async def _resolve(self, concept: CapturedConcept) -> ResolvedConcept:
        labels = concept.normalised_labels()
        existing, matched_by = await self._find(concept, labels)
        if existing is not None:
            # Enrich with the labels this mention brought; properties of a known concept
            # (status included) are never overwritten by a chat capture.
            around = await self._reader.neighbourhood([existing.id], limit=200)
            mine = [e for e in around.edges if e.source == existing.id]
            await self._concepts.write(
                ConceptWrite(concept=_as_known(concept, existing), status=_status(existing)),
                labels_only=True,
                linked=frozenset(e.target for e in mine if e.type == "HAS_ALT_LABEL"),
            )
            # The auto-ingestion gate: clearly sparse = no definition and no rule alignment.
            if not existing.properties.get("definition") and not any(
                e.type == "ALIGNS_WITH" for e in mine
            ):
                await self._ingestion.enqueue(IngestionJob(existing.id, "sparse"))
            return ResolvedConcept(
                id=existing.id, pref_label=str(existing.properties.get("pref_label", existing.id)),
                status=_status(existing), created=False, matched_by=matched_by,
            )  # fmt: skip
        targets = self._evidence.nodes_named(labels, concept.jurisdiction)
        outcome = await self._concepts.write(
            ConceptWrite(
                concept=concept, status="provisional",
                aligns_with=[(node.id, node.label) for node in targets],
            )
        )  # fmt: skip
        created = outcome is WriteOutcome.CREATED
        if created:
            await self._ingestion.enqueue(IngestionJob(concept.id, "missing"))
        return ResolvedConcept(
            id=concept.id, pref_label=concept.prefLabel, status="provisional", created=created,
            matched_by="created", aligned_with=tuple(node.id for node in targets),
        )  # fmt: skip

    async def _find(
        self, concept: CapturedConcept, labels: Sequence[str]
    ) -> tuple[GraphNode | None, MatchedBy]:
        found = await self._reader.get_nodes([concept.id])
        if found:
            return found[0], "key"
        for label in labels:
            for candidate in await self._reader.find_concepts_by_label(label):
                if candidate.properties.get("jurisdiction") == concept.jurisdiction:
                    return candidate, "alias"
        return None, "created"


def _status(node: GraphNode) -> ConceptStatus:
    return "provisional" if node.properties.get("status") == "provisional" else "confirmed"


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


async def confirm_concept(
    reader: GraphReader, writer: GraphWriteService, concept_id: str
) -> WriteOutcome:
    """Mark a captured concept as reviewed: from then on it is evidence for every tenant.

    Raises :class:`errors.NotFound` when no concept has that id.
    """
    if not [n for n in await reader.get_nodes([concept_id]) if n.label == "Concept"]:
        raise NotFound(f"no concept {concept_id!r}")
    [result] = await writer.upsert_nodes(
        [NodeWrite(id=concept_id, label="Concept", properties={"status": "confirmed"})]
    )
    return result.outcome
