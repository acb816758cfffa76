"""Graph reads for graph UIs: filtered snapshots, neighbourhoods, changes since a timestamp, and
the live patch stream.

Tenants read the reviewed graph only: what a conversation captured stays out until an operator
confirms it (``graph.quarantine``, ADR 0020); the stream applies the same rule. Snapshots and
the stream take the same filters (ADR 0027): ``jurisdictions``, ``labels``, ``nodeIds``,
``keyword``; an invalid value (an unknown label, ``since=yesterday``) is a 422."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import AfterValidator
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask

from api.auth import Principal, authenticate
from api.deps import ContainerDep
from api.sse import heartbeat
from api.stream_quota import StreamQuota
from graph.detector import PatchEvent, Resync, StreamEvent
from graph.models import GraphSnapshot
from graph.patch_filter import (
    MAX_FILTER_VALUES,
    FilteredSnapshot,
    PatchFilter,
    filtered_snapshot,
    parse_since,
)
from graph.patches import GraphPatch, catch_up_patch

__all__ = [
    "FilterDep",
    "Since",
    "changes",
    "neighbourhood",
    "router",
    "snapshot",
    "stream",
    "stream_quota",
    "subscriber_filter",
    "tenant_snapshot",
]

router = APIRouter(tags=["graph"])

Since = Annotated[
    str,
    Query(min_length=1, max_length=40, description="ISO-8601 timestamp (UTC unless it says)"),
    AfterValidator(parse_since),
]
_Values = Query(max_length=MAX_FILTER_VALUES)


def subscriber_filter(
    container: ContainerDep,
    jurisdictions: Annotated[list[str] | None, _Values] = None,
    labels: Annotated[list[str] | None, _Values] = None,
    node_ids: Annotated[
        list[str] | None, Query(alias="nodeIds", max_length=MAX_FILTER_VALUES)
    ] = None,
    keyword: Annotated[str | None, Query(min_length=1, max_length=100)] = None,
) -> PatchFilter:
    """The filters of ``GET /api/graph`` and ``GET /api/graph/stream`` (AND across kinds, OR
    within one)."""
    unknown = sorted(set(labels or ()) - container.schema.labels)
    bad = [j for j in jurisdictions or () if not (1 <= len(j) <= 16 and j.isascii())]
    if unknown or bad:
        what = ("labels", unknown) if unknown else ("jurisdictions", bad)
        raise RequestValidationError(
            [{"loc": ("query", what[0]), "msg": f"unknown values {what[1][:5]}", "type": "value"}]
        )
    return PatchFilter(
        jurisdictions=frozenset(j.upper() for j in jurisdictions or ()),
        labels=frozenset(labels or ()),
        node_ids=frozenset(node_ids or ()),
        keyword=keyword,
    )


FilterDep = Annotated[PatchFilter, Depends(subscriber_filter)]


@router.get("/api/graph", summary="Reviewed nodes matching the filters, and their edges")
async def tenant_snapshot(
    container: ContainerDep,
    _: Annotated[Principal, Depends(authenticate)],
    flt: FilterDep,
    since: Since | None = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
) -> FilteredSnapshot:
    return await filtered_snapshot(container.reviewed, flt, limit, since)


@router.get("/api/graph/snapshot", summary="Nodes (optionally of some labels) and their edges")
async def snapshot(
    container: ContainerDep,
    _: Annotated[Principal, Depends(authenticate)],
    labels: Annotated[list[str] | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
) -> GraphSnapshot:
    return await container.reviewed.snapshot(labels=labels, limit=limit)


@router.get("/api/graph/nodes/{node_id}/neighbourhood", summary="A node and its neighbours")
async def neighbourhood(
    node_id: str,
    container: ContainerDep,
    _: Annotated[Principal, Depends(authenticate)],
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> GraphSnapshot:
    return await container.reviewed.neighbourhood([node_id], limit=limit)


@router.get("/api/graph/changes", summary="Nodes and edges updated after a timestamp")
async def changes(
    container: ContainerDep,
    _: Annotated[Principal, Depends(authenticate)],
    since: Since,
    limit: Annotated[int, Query(ge=1, le=5000)] = 1000,
) -> GraphSnapshot:
    return await container.reviewed.changes_since(since, limit=limit)


_STREAM_DOC = {
    200: {
        "description": "`graph_patch` events `{type, seq, timestamp, nodes: {added, updated, "
        "removed}, edges: {added, updated, removed}, meta}`, each with an SSE `id`: reconnect "
        "with `Last-Event-ID` to replay what was missed. A `resync` event `{type, reason}` "
        "says the log no longer reaches back (or the subscriber fell behind, and the stream "
        "ends): reload a snapshot. With `since`, the first patch catches up (`meta.catchUp`), "
        "with at most REGINTEL_GRAPH_CATCH_UP_MAX_ITEMS nodes (`meta.truncated`: more changed, "
        "load a snapshot). At most REGINTEL_GRAPH_STREAMS_PER_USER streams per user at once: "
        "another is 429 `rate_limited`.",
        "content": {"text/event-stream": {}},
    }
}


def _patch_frame(patch: GraphPatch, event_id: str | None) -> ServerSentEvent:
    return ServerSentEvent(event="graph_patch", id=event_id, data=patch.model_dump_json())


def _frame(event: StreamEvent) -> ServerSentEvent:
    if isinstance(event, PatchEvent):
        return _patch_frame(event.patch, event.id)
    assert isinstance(event, Resync)
    return ServerSentEvent(
        event="resync", data=json.dumps({"type": "resync", "reason": event.reason})
    )


@router.get(
    "/api/graph/stream",
    summary="Live graph change patches (SSE), filtered",
    response_class=EventSourceResponse,
    responses=_STREAM_DOC,  # type: ignore[arg-type]
)
@router.get(
    "/api/graph/patches",
    summary="Live graph change patches (SSE); the old path of /api/graph/stream",
    response_class=EventSourceResponse,
    responses=_STREAM_DOC,  # type: ignore[arg-type]
)
async def stream(
    request: Request,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
    flt: FilterDep,
    since: Since | None = None,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", max_length=80)] = None,
) -> EventSourceResponse:
    # At most REGINTEL_GRAPH_STREAMS_PER_USER open per user in this worker (issue 30).
    slot = stream_quota(request).open(principal.tenant_id, principal.user_id)
    try:
        detector = container.patches
        # Subscribed before catching up, so nothing written in between is missed.
        live = detector.subscribe(flt, last_event_id)
        limit = container.settings.graph_catch_up_max_items
        first = await catch_up_patch(container.graph, since, limit, flt=flt) if since else None
    except BaseException:
        slot.release()
        raise
    if first is not None and len(first.nodes.added) + len(first.nodes.updated) >= limit:
        # more changed than one catch-up carries: the client should load a snapshot
        first.meta["truncated"] = True

    async def frames() -> AsyncIterator[ServerSentEvent]:
        try:
            if first is not None and (
                first.nodes.added or first.nodes.updated or first.edges.added or first.edges.updated
            ):
                yield _patch_frame(first, detector.last_id)
            async for event in live:
                yield _frame(event)
        finally:
            slot.release()
            await live.aclose()  # unsubscribes at once when the client goes away

    return EventSourceResponse(
        frames(),
        ping=container.settings.heartbeat_seconds,
        ping_message_factory=heartbeat,
        background=BackgroundTask(slot.arelease),  # also when the stream never started
    )


def stream_quota(request: Request) -> StreamQuota:
    """The app's graph stream quota (built by :func:`api.app.create_app`)."""
    quota = request.app.state.graph_stream_quota
    assert isinstance(quota, StreamQuota)
    return quota
