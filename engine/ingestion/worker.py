"""The ingestion worker: enriches a captured concept from the law the graph already holds.

The auto-ingestion gate (``engine.self_population``) queues a job when a capture creates a
concept or meets a sparse one. For each job the worker (:class:`IngestionWorker`) asks the
:class:`ConceptEnricher` to:

1. drop the job when the concept is gone, reviewed or merged meanwhile (an operator decided);
2. search the evidence index (the ingested acts and the rule nodes) with each of the concept's
   labels, in its jurisdiction and EU law, and keep the provisions and rule nodes whose text
   uses the label itself (at most :data:`MAX_LINKS`): those are linked ``ALIGNS_WITH``;
3. take a definition only from a provision headed "Definitions", word for word (``‘term’
   means …``), with that provision's deep link as its source (and link it); never write text
   of its own;
4. record ``ingestion_status`` on the concept: ``linked``, ``defined`` (linked and defined) or
   ``no_source`` (the graph holds nothing that names it).

Everything is written through :class:`graph.write_service.GraphWriteService`, so through the
ingress guard; the concept stays quarantined (ADR 0020) until an operator reviews it.
Jobs come from an :class:`engine.ingestion.IngestionWorkQueue`: claimed, acked when done, failed
(retried with back-off, dead-lettered after the last attempt) when the enrichment raises.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Final, Literal

import structlog

from engine.evidence import EvidenceIndex, jurisdiction_of
from engine.ingestion.queue import IngestionWorkQueue, JobDelivery
from engine.normalise import normalise_label
from errors import StoreUnavailable
from graph.models import EdgeWrite, GraphNode, NodeWrite, PropertyValue
from graph.port import GraphReader
from graph.quarantine import QUARANTINED_STATUS
from graph.write_service import GraphWriteService

__all__ = [
    "MAX_LINKS",
    "ConceptEnricher",
    "Enrichment",
    "IngestionStatus",
    "IngestionWorker",
    "defined_in",
    "running_worker",
]

MAX_LINKS: Final = 3
_SEARCH_K: Final = 8
_MIN_LABEL_CHARS: Final = 4  # "CT", "JB": too short to find in a provision's text by themselves
log = structlog.get_logger(__name__)

IngestionStatus = Literal["linked", "defined", "no_source", "dropped"]


@dataclass(frozen=True)
class Enrichment:
    concept_id: str
    status: IngestionStatus
    linked: tuple[str, ...] = ()
    definition_source: str | None = None


class ConceptEnricher:
    def __init__(
        self, reader: GraphReader, writer: GraphWriteService, evidence: EvidenceIndex
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._evidence = evidence

    async def enrich(self, concept_id: str) -> Enrichment:
        found = [n for n in await self._reader.get_nodes([concept_id]) if n.label == "Concept"]
        if not found or found[0].properties.get("status") != QUARANTINED_STATUS:
            return Enrichment(concept_id, "dropped")  # gone, reviewed or merged meanwhile
        concept = found[0]
        labels = await self._labels(concept)
        jurisdiction = str(concept.properties.get("jurisdiction") or "")
        where = [] if jurisdiction in ("", "EU") else [jurisdiction]
        linked: dict[str, GraphNode] = {}
        definition: tuple[str, GraphNode] | None = None
        for label in labels:
            wanted = normalise_label(label)
            if len(wanted) < _MIN_LABEL_CHARS:
                continue
            if definition is None:  # the definitions articles, read directly
                for node in self._evidence.definitions():
                    if where and jurisdiction_of(node) not in (*where, "EU"):
                        continue
                    if words := defined_in(str(node.properties["text"]), label):
                        definition = (words, node)
                        linked.setdefault(node.id, node)
                        break
            for hit in self._evidence.search(label, _SEARCH_K, where).hits:
                node = hit.node
                text = str(node.properties.get("text") or node.properties.get("description") or "")
                if wanted not in normalise_label(text) and wanted not in normalise_label(
                    str(node.properties.get("title") or node.properties.get("name") or "")
                ):
                    continue  # a provision that does not name the concept does not govern it
                if definition is None and (words := defined_in(text, label)):
                    definition = (words, node)
                if len(linked) < MAX_LINKS:
                    linked.setdefault(node.id, node)
        if not await self._still_quarantined(concept_id):
            return Enrichment(concept_id, "dropped")  # reviewed while the search ran
        props: dict[str, PropertyValue] = {}
        status: IngestionStatus = "no_source"
        if linked:
            status = "linked"
            await self._writer.upsert_edges(
                [
                    EdgeWrite(
                        type="ALIGNS_WITH",
                        source_id=concept_id,
                        source_label="Concept",
                        target_id=node.id,
                        target_label=node.label,
                    )
                    for node in linked.values()
                ]
            )
        source: str | None = None
        if definition is not None and not concept.properties.get("definition"):
            words, node = definition
            status = "defined"
            source = node.id
            props["definition"] = words
            urls = [str(u) for u in node.properties.get("source_urls") or []][:1]
            if urls:
                props["source_urls"] = urls
        props["ingestion_status"] = status
        await self._writer.upsert_nodes(
            [NodeWrite(id=concept_id, label="Concept", properties=props)]
        )
        return Enrichment(concept_id, status, tuple(linked), source)

    async def _still_quarantined(self, concept_id: str) -> bool:
        found = [n for n in await self._reader.get_nodes([concept_id]) if n.label == "Concept"]
        return bool(found) and found[0].properties.get("status") == QUARANTINED_STATUS

    async def _labels(self, concept: GraphNode) -> list[str]:
        around = await self._reader.neighbourhood([concept.id], limit=200)
        texts = {
            n.id: str(n.properties.get("text", "")) for n in around.nodes if n.label == "Label"
        }
        labels = [str(concept.properties.get("pref_label") or "")]
        mine = [e for e in around.edges if e.source == concept.id and e.type == "HAS_ALT_LABEL"]
        labels += [texts[e.target] for e in mine if e.target in texts]
        return [label for label in dict.fromkeys(labels) if label]


def defined_in(text: str, term: str) -> str | None:
    """The definition of ``term`` in a definitions provision, word for word: the clause from
    ``‘term’ means`` to the end of its point (EU acts) — or ``None``."""
    quoted = r"[‘'\"“]" + re.escape(term).replace(r"\ ", r"\s+") + r"[’'\"”]"
    match = re.search(
        quoted + r"\s+means\s+(.+?)(?:;\s*(?:\(\d+\)|and\b)|\.\s*$|$)",
        text,
        re.IGNORECASE | re.DOTALL,
    )
    if match is None:
        return None
    clause = " ".join(text[match.start() : match.end(1)].split()).rstrip(";. ")
    return clause[:2000]


class IngestionWorker:
    """Claims jobs and enriches their concepts until stopped (see the module docstring)."""

    def __init__(
        self,
        queue: IngestionWorkQueue,
        enricher: ConceptEnricher,
        *,
        consumer: str = "worker-1",
        batch: int = 4,
        idle_s: float = 1.0,
    ) -> None:
        self._queue = queue
        self._enricher = enricher
        self._consumer = consumer
        self._batch = batch
        self._idle_s = idle_s

    async def run_once(self) -> list[Enrichment]:
        """Claim and process one batch; what each job came to."""
        done: list[Enrichment] = []
        for delivery in await self._queue.claim(self._consumer, self._batch):
            result = await self._process(delivery)
            if result is not None:
                done.append(result)
        return done

    async def run(self, stop: asyncio.Event) -> None:
        """Until ``stop``; a queue that does not answer (Redis down) is asked again after
        ``idle_s``, never the end of the loop (a job it handed out is claimed again later)."""
        while not stop.is_set():
            try:
                busy = bool(await self.run_once())
            except StoreUnavailable as exc:
                log.warning("ingestion_queue_unavailable", error=exc.code)
                busy = False
            if not busy:
                try:
                    await asyncio.wait_for(stop.wait(), self._idle_s)
                except TimeoutError:
                    pass

    async def _process(self, delivery: JobDelivery) -> Enrichment | None:
        try:
            result = await self._enricher.enrich(delivery.job.concept_id)
        except Exception as exc:  # retried with back-off, dead-lettered after the last try
            log.warning("ingestion_job_failed", attempt=delivery.attempt, error=type(exc).__name__)
            await self._queue.fail(delivery, type(exc).__name__)
            return None
        await self._queue.ack(delivery)
        log.info("ingestion_job_done", status=result.status, links=len(result.linked))
        return result


@contextlib.asynccontextmanager
async def running_worker(worker: IngestionWorker) -> AsyncIterator[IngestionWorker]:
    """``worker`` running in the background for the duration of the block (the API process's
    own worker); stopped, and its current job finished, on exit."""
    stop = asyncio.Event()
    task = asyncio.get_running_loop().create_task(worker.run(stop))
    try:
        yield worker
    finally:
        stop.set()
        try:
            await asyncio.wait_for(task, 10)
        except TimeoutError:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
