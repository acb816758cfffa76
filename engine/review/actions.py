"""The operators' review queue: what chat captures put in quarantine, merges and rejections.

A capture's concept and labels stay quarantined (``graph.quarantine``, ADR 0020) until an
operator confirms them (:func:`engine.review.confirm_concept`), merges them into another
concept (:func:`merge_concepts`) or rejects them (:func:`reject_concept`), over the API or with
``regintel concept ...``. The queue shows what the graph holds and nothing more: concept ids,
the labels conversations used, their alignments, and how often each phrasing was used (the
counters on ``HAS_ALT_LABEL``, ADR 0036): label texts that passed the ingress guard and
integers; the graph has no tenant or user ids, so neither has the queue.

A merge copies the loser's labels and edges (``HAS_ALT_LABEL``, ``ALIGNS_WITH``, ``BROADER`` /
``RELATED`` both ways) onto the survivor, confirms the moved labels when the survivor is
reviewed, and turns the loser into a hidden redirect (``status: "merged"``, ``merged_into``)
that resolution follows; its own edges stay on it, hidden with it. The phrasing counts move
with the labels: the survivor's edge to a label gains the loser's counts (the sum when both
used that phrasing), added in the store like any count. A rejection deletes a
quarantined concept and the labels no other concept uses. Both are audited
(:mod:`engine.review.audit`, ADR 0034) and reach graph UIs as patches through the write
service's listeners, which never announce what tenants did not see (ADR 0020).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field

import structlog

from engine.matching import Suggestion
from engine.review.audit import ReviewAudit, ReviewRecord
from engine.self_population import PREF_USES, USES
from engine.text_flags import text_flags
from errors import InvalidInput, NotFound, ReviewConflict
from graph.models import (
    EdgeIncrement,
    EdgeWrite,
    GraphEdge,
    GraphNode,
    NodeWrite,
    PropertyValue,
    utc_timestamp,
)
from graph.port import GraphReader
from graph.quarantine import (
    MERGED_STATUS,
    QUARANTINED_STATUS,
    REVIEWED_STATUS,
    is_hidden,
    is_quarantined,
)
from graph.write_service import GraphWriteService

__all__ = [
    "ReviewCandidate",
    "ReviewItem",
    "content_version",
    "merge_concepts",
    "reject_concept",
    "review_item",
    "review_queue",
]


_MOVED_OUT = frozenset({"HAS_ALT_LABEL", "ALIGNS_WITH", "BROADER", "RELATED"})
_MOVED_IN = frozenset({"BROADER", "RELATED"})
_AROUND_LIMIT = 5000


@dataclass(frozen=True)
class ReviewItem:
    """One quarantined concept as an operator reviews it: everything confirming it would make
    shared (its labels, definition and source URLs), what in that text needs a careful look
    (``flags``) and the ``version`` of exactly that content (issue 30, ADR 0044)."""

    id: str
    pref_label: str
    labels: tuple[str, ...]  # every label conversations used for it, pref_label included
    aligned_with: tuple[str, ...]  # rule nodes and provisions it names
    created_at: str
    # label text -> captures that used it for this concept, most used first (ADR 0036)
    phrasings: dict[str, int] = field(default_factory=dict)
    mentions: int = 0  # captures that resolved to or created it (one preferred label each)
    definition: str | None = None
    source_urls: tuple[str, ...] = ()
    # "definition" / "label:<text>" / "source_url:<url>" -> its flags (engine.text_flags)
    flags: dict[str, tuple[str, ...]] = field(default_factory=dict)
    version: str = ""  # content_version() of what is listed; confirm checks it
    # existing concepts it may duplicate (ADR 0049): merge it into one of them, in one action
    candidates: tuple[ReviewCandidate, ...] = ()


@dataclass(frozen=True)
class ReviewCandidate:
    """An existing concept a quarantined one may duplicate, as resolution found it."""

    id: str
    pref_label: str
    reason: str  # edit_distance, parent_child, token_overlap, initials, acronym, char_ngrams, ...
    score: float
    status: str = REVIEWED_STATUS  # or provisional: another capture still in quarantine


def content_version(
    pref_label: str,
    labels: Iterable[str],
    definition: str | None,
    source_urls: Iterable[str],
    aligned_with: Iterable[str],
) -> str:
    """A digest of everything confirming a concept makes shared: an operator's confirmation
    names the version it saw, and a concept changed since (a new label, another definition)
    is not confirmed (issue 30)."""
    content = {
        "pref_label": pref_label,
        "labels": sorted(labels),
        "definition": definition or "",
        "source_urls": sorted(source_urls),
        "aligned_with": sorted(aligned_with),
    }
    digest = hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=False).encode())
    return digest.hexdigest()[:24]


async def review_queue(reader: GraphReader, limit: int = 500) -> list[ReviewItem]:
    """Quarantined concepts, oldest first, at most ``limit``."""
    concepts = (await reader.snapshot(labels=["Concept"], limit=100_000)).nodes
    waiting = sorted(
        (node for node in concepts if is_quarantined(node)),
        key=lambda node: (str(node.properties.get("created_at", "")), node.id),
    )[:limit]
    return [await _review_item(reader, node) for node in waiting]


async def review_item(reader: GraphReader, concept_id: str) -> ReviewItem:
    """One concept as the queue shows it (whatever its status); :class:`errors.NotFound`
    when no concept has that id."""
    return await _review_item(reader, await _concept(reader, concept_id))


async def _review_item(reader: GraphReader, node: GraphNode) -> ReviewItem:
    around = await reader.neighbourhood([node.id], limit=200)
    by_id = {n.id: n for n in around.nodes}
    out = [e for e in around.edges if e.source == node.id and e.target in by_id]
    named = [e for e in out if e.type == "HAS_ALT_LABEL"]
    counts = {str(by_id[e.target].properties.get("text", "")): _count(e, USES) for e in named}
    pref_label = str(node.properties.get("pref_label", ""))
    stored = node.properties.get("definition")
    definition = str(stored) if stored else None
    raw_urls = node.properties.get("source_urls")
    urls = tuple(str(u) for u in raw_urls) if isinstance(raw_urls, list) else ()
    aligned = tuple(sorted(e.target for e in out if e.type == "ALIGNS_WITH"))
    flags: dict[str, tuple[str, ...]] = {}
    shown = [
        *((f"label:{label}", label) for label in sorted({pref_label, *counts})),
        ("definition", definition or ""),
        *((f"source_url:{url}", url) for url in urls),
    ]
    for key, text in shown:
        if found := text_flags(text):
            flags[key] = found
    return ReviewItem(
        candidates=await _candidates(reader, node),
        id=node.id,
        pref_label=pref_label,
        labels=tuple(sorted(counts)),
        aligned_with=aligned,
        created_at=str(node.properties.get("created_at", "")),
        phrasings=dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        mentions=sum(_count(e, PREF_USES) for e in named),
        definition=definition,
        source_urls=urls,
        flags=flags,
        version=content_version(pref_label, counts, definition, urls, aligned),
    )


async def _candidates(reader: GraphReader, node: GraphNode) -> tuple[ReviewCandidate, ...]:
    """The concept's stored duplicate candidates that still exist (a merged candidate is shown
    as the concept it redirects to), reviewed ones and other captures still in quarantine: the
    queue is the operator's, who sees every capture anyway; a quarantined candidate carries its
    status, since a concept merges only into a reviewed one (confirm one, merge the other)."""
    stored = node.properties.get("candidates")
    found = [s for s in (Suggestion.decode(str(t)) for t in stored or []) if s is not None]
    if not isinstance(stored, list) or not found:
        return ()
    nodes = {n.id: n for n in await reader.get_nodes([s.id for s in found])}
    out: dict[str, ReviewCandidate] = {}
    for suggestion in found:
        target = nodes.get(suggestion.id)
        if target is not None and target.properties.get("status") == MERGED_STATUS:
            into = str(target.properties.get("merged_into", ""))
            target = next(iter(await reader.get_nodes([into])), None) if into else None
        if target is None or target.id == node.id or target.id in out:
            continue
        if is_hidden(target) and not is_quarantined(target):  # a redirect that leads nowhere
            continue
        label = str(target.properties.get("pref_label", target.id))
        status = QUARANTINED_STATUS if is_quarantined(target) else REVIEWED_STATUS
        out[target.id] = ReviewCandidate(
            target.id, label, suggestion.reason, suggestion.score, status
        )
    return tuple(out.values())


def _count(edge: GraphEdge, counter: str) -> int:
    """A counter of an edge; 0 where nothing was counted (or before counting began)."""
    value = edge.properties.get(counter)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


async def _concept(reader: GraphReader, concept_id: str) -> GraphNode:
    found = [n for n in await reader.get_nodes([concept_id]) if n.label == "Concept"]
    if not found:
        raise NotFound(f"no concept {concept_id!r}")
    return found[0]


def _status(node: GraphNode) -> str:
    return str(node.properties.get("status", REVIEWED_STATUS))


async def merge_concepts(
    reader: GraphReader,
    writer: GraphWriteService,
    loser: str,
    winner: str,
    *,
    audit: ReviewAudit | None = None,
    by: str = "operator",
) -> ReviewRecord:
    """Merge concept ``loser`` into ``winner`` (see the module docstring) and audit it.

    Raises :class:`errors.NotFound` for an unknown ``loser``, :class:`errors.InvalidInput` for
    an unknown ``winner`` and :class:`errors.ReviewConflict` for a merge into itself, into a
    quarantined or merged concept, or of a concept merged already.
    """
    source = await _concept(reader, loser)
    if loser == winner:
        raise ReviewConflict(f"{loser!r} cannot be merged into itself")
    if _status(source) == MERGED_STATUS:
        into = source.properties.get("merged_into")
        raise ReviewConflict(f"{loser!r} was merged into {into!r} already")
    targets = [n for n in await reader.get_nodes([winner]) if n.label == "Concept"]
    if not targets:
        raise InvalidInput(f"no concept {winner!r} to merge into")
    target = targets[0]
    if is_hidden(target):
        raise ReviewConflict(
            f"{winner!r} is {_status(target)}: merge into a reviewed concept (confirm it first)"
        )
    around = await reader.neighbourhood([loser], limit=_AROUND_LIMIT)
    nodes = {n.id: n for n in around.nodes}
    edges = [_moved(e, loser, winner, nodes) for e in around.edges]
    moves = [e for e in edges if e is not None]
    labels = sorted({e.target_id for e in moves if e.type == "HAS_ALT_LABEL"})
    now = utc_timestamp()
    reviewed: dict[str, PropertyValue] = {"status": REVIEWED_STATUS, "reviewed_at": now}
    # The survivor is reviewed (checked above), so the labels it gains are reviewed too: an
    # operator's decision, not chat phrasing reaching tenants unasked (ADR 0020).
    quarantined = [i for i in labels if is_quarantined(nodes[i])]
    await writer.upsert_nodes(
        [NodeWrite(id=i, label="Label", properties=reviewed) for i in quarantined]
    )
    await writer.upsert_edges(moves)
    # Before the redirect: a merge that fails in between is retried, not refused as done.
    await writer.increment_edges(
        [c for e in around.edges if e.source == loser and (c := _counts_moved(e, winner, nodes))]
    )
    # ``merged_from`` stays on the redirect: a loser that was still in quarantine was never
    # seen by tenants, so no patch may ever report it removed (ADR 0034).
    redirect: dict[str, PropertyValue] = {
        "status": MERGED_STATUS,
        "merged_into": winner,
        "merged_from": _status(source),
        "reviewed_at": now,
    }
    await writer.upsert_nodes([NodeWrite(id=loser, label="Concept", properties=redirect)])
    record = ReviewRecord(
        action="merge",
        concept=loser,
        into=winner,
        at=now,
        by=by,
        previous_status=_status(source),
        labels=tuple(labels),
        edges=len(moves),
    )
    await _audit(record, audit)
    return record


def _moved(
    edge: GraphEdge, loser: str, winner: str, nodes: dict[str, GraphNode]
) -> EdgeWrite | None:
    """``edge`` of the loser re-attached to the winner (None: not moved)."""
    if edge.source == loser and edge.type in _MOVED_OUT and edge.target in nodes:
        source, target = winner, edge.target
    elif edge.target == loser and edge.type in _MOVED_IN and edge.source in nodes:
        source, target = edge.source, winner
    else:
        return None
    if source == target:
        return None  # the loser's link to the winner itself: no self-loop
    props = {k: v for k, v in edge.properties.items() if k in ("weight", "notes")}

    def label_of(node_id: str) -> str:
        return "Concept" if node_id == winner else nodes[node_id].label

    return EdgeWrite(
        type=edge.type,
        source_id=source,
        source_label=label_of(source),
        target_id=target,
        target_label=label_of(target),
        properties=props,
    )


def _counts_moved(
    edge: GraphEdge, winner: str, nodes: dict[str, GraphNode]
) -> EdgeIncrement | None:
    """The phrasing counts of the loser's label ``edge``, added to the winner's (None: none)."""
    if edge.type != "HAS_ALT_LABEL" or edge.target not in nodes:
        return None
    by = {counter: n for counter in (USES, PREF_USES) if (n := _count(edge, counter)) > 0}
    if not by:
        return None
    return EdgeIncrement(
        type="HAS_ALT_LABEL",
        source_id=winner,
        source_label="Concept",
        target_id=edge.target,
        target_label="Label",
        by=by,
    )


async def reject_concept(
    reader: GraphReader,
    writer: GraphWriteService,
    concept_id: str,
    *,
    audit: ReviewAudit | None = None,
    by: str = "operator",
) -> ReviewRecord:
    """Delete a quarantined concept and the labels no other concept uses, and audit it.

    Raises :class:`errors.NotFound` for an unknown id and :class:`errors.ReviewConflict` for a
    concept that is not quarantined (a reviewed one is merged, not rejected).
    """
    node = await _concept(reader, concept_id)
    if not is_quarantined(node):
        raise ReviewConflict(
            f"{concept_id!r} is {_status(node)}: only a quarantined concept can be rejected"
        )
    around = await reader.neighbourhood([concept_id], limit=_AROUND_LIMIT)
    nodes = {n.id: n for n in around.nodes}
    mine = sorted(
        e.target
        for e in around.edges
        if e.source == concept_id and e.type == "HAS_ALT_LABEL" and e.target in nodes
    )
    users = await reader.neighbourhood(mine, limit=_AROUND_LIMIT) if mine else around
    shared = {
        e.target
        for e in users.edges
        if e.type == "HAS_ALT_LABEL" and e.target in mine and e.source != concept_id
    }
    labels = [i for i in mine if i not in shared]
    removed = [concept_id, *labels]
    # What was quarantined was never seen by tenants, so its removal is not announced to them.
    unseen = [i for i in removed if i == concept_id or is_quarantined(nodes[i])]
    await writer.delete_nodes(removed, unseen=unseen)
    record = ReviewRecord(
        action="reject",
        concept=concept_id,
        at=utc_timestamp(),
        by=by,
        previous_status=_status(node),
        labels=tuple(labels),
        removed=tuple(removed),
    )
    await _audit(record, audit)
    return record


async def _audit(record: ReviewRecord, audit: ReviewAudit | None) -> None:
    # A fresh logger per action (they are rare): a cached one would keep the processors of
    # whenever it was first used, and tests that capture the audit line would miss it.
    structlog.get_logger(__name__).info(
        "review_action",
        action=record.action,
        concept=record.concept,
        into=record.into,
        previous_status=record.previous_status,
        labels=len(record.labels),
        edges=record.edges,
        removed=len(record.removed),
        by=record.by,
    )
    if audit is not None:
        await audit.record(record)
