"""Confirming a captured concept: the review action that lifts quarantine (ADR 0020).

A concept and the labels a conversation gave it stay invisible to other tenants until an
operator confirms them (``regintel concept confirm``, ``POST /api/review/concepts/{id}/confirm``).
Confirming marks them reviewed and writes the concept's edges again, so live patch subscribers,
who never saw them, receive them now.
"""

from __future__ import annotations

from engine.review.actions import review_item
from errors import NotFound, ReviewConflict
from graph.models import EdgeWrite, NodeWrite, PropertyValue, WriteOutcome, utc_timestamp
from graph.port import GraphReader
from graph.quarantine import is_quarantined
from graph.write_service import GraphWriteService

__all__ = ["confirm_concept"]


async def confirm_concept(
    reader: GraphReader,
    writer: GraphWriteService,
    concept_id: str,
    *,
    version: str | None = None,
) -> WriteOutcome:
    """Mark a captured concept and its labels as reviewed: from then on every tenant sees
    them (snapshots, patches, prompts) and the concept is evidence. Its edges are written
    again so that live patch subscribers, who never saw them, receive them now.

    ``version``: the :attr:`~engine.review.ReviewItem.version` the operator was shown. When
    the concept's labels, definition, source URLs or alignments changed since, it is not
    confirmed (:class:`errors.ReviewConflict`): an operator approves exactly what they read
    (issue 30, ADR 0044).

    Raises :class:`errors.NotFound` when no concept has that id.
    """
    if not [n for n in await reader.get_nodes([concept_id]) if n.label == "Concept"]:
        raise NotFound(f"no concept {concept_id!r}")
    if version is not None and (await review_item(reader, concept_id)).version != version:
        raise ReviewConflict(
            f"concept {concept_id!r} changed since it was listed: list it again and review "
            "what it holds now"
        )
    around = await reader.neighbourhood([concept_id], limit=500)
    kinds = {node.id: node for node in around.nodes}
    labels = [
        e.target
        for e in around.edges
        if e.source == concept_id
        and e.type == "HAS_ALT_LABEL"
        and e.target in kinds
        and is_quarantined(kinds[e.target])
    ]
    now = utc_timestamp()
    reviewed: dict[str, PropertyValue] = {"status": "confirmed", "reviewed_at": now}
    results = await writer.upsert_nodes(
        [NodeWrite(id=label, label="Label", properties=reviewed) for label in labels]
        + [NodeWrite(id=concept_id, label="Concept", properties=reviewed)]
    )
    await writer.upsert_edges(
        [
            EdgeWrite(
                type=e.type,
                source_id=e.source,
                source_label="Concept",
                target_id=e.target,
                target_label=kinds[e.target].label,
            )
            for e in around.edges
            if e.source == concept_id and e.target in kinds
        ]
    )
    return results[-1].outcome
