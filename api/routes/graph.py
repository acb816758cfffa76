"""Graph reads for graph UIs: snapshots, neighbourhoods and changes since a timestamp."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from sse_starlette import EventSourceResponse, ServerSentEvent

from api.auth import Principal, authenticate
from api.deps import ContainerDep
from api.sse import heartbeat
from graph.models import GraphSnapshot

__all__ = [
    "changes",
    "neighbourhood",
    "patches",
    "router",
    "snapshot",
]

router = APIRouter(tags=["graph"])


@router.get("/api/graph/snapshot", summary="Nodes (optionally of some labels) and their edges")
async def snapshot(
    container: ContainerDep,
    _: Annotated[Principal, Depends(authenticate)],
    labels: Annotated[list[str] | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
) -> GraphSnapshot:
    return await container.graph.snapshot(labels=labels, limit=limit)


@router.get("/api/graph/nodes/{node_id}/neighbourhood", summary="A node and its neighbours")
async def neighbourhood(
    node_id: str,
    container: ContainerDep,
    _: Annotated[Principal, Depends(authenticate)],
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> GraphSnapshot:
    return await container.graph.neighbourhood([node_id], limit=limit)


@router.get("/api/graph/changes", summary="Nodes and edges updated after a timestamp")
async def changes(
    container: ContainerDep,
    _: Annotated[Principal, Depends(authenticate)],
    since: Annotated[str, Query(min_length=1, max_length=40, description="ISO-8601 UTC")],
    limit: Annotated[int, Query(ge=1, le=5000)] = 1000,
) -> GraphSnapshot:
    return await container.graph.changes_since(since, limit=limit)


@router.get(
    "/api/graph/patches",
    summary="Live graph change patches (SSE)",
    response_class=EventSourceResponse,
    responses={
        200: {
            "description": "`graph_patch` events `{type, seq, timestamp, nodes: {added, updated, "
            "removed}, edges: {added, updated, removed}, meta}`. With `since`, the first patch "
            "catches up (`meta.catchUp`). A patch with `meta.resync` ends the stream: the "
            "client fell behind and should reload a snapshot.",
            "content": {"text/event-stream": {}},
        }
    },
)
async def patches(
    container: ContainerDep,
    _: Annotated[Principal, Depends(authenticate)],
    since: Annotated[str | None, Query(max_length=40, description="ISO-8601 UTC")] = None,
) -> EventSourceResponse:
    feed = container.patches
    live = feed.subscribe()  # before catching up, so nothing written in between is missed
    first = await feed.catch_up(since) if since else None

    async def frames() -> AsyncIterator[ServerSentEvent]:
        if first is not None:
            yield ServerSentEvent(event="graph_patch", data=first.model_dump_json())
        try:
            async for patch in live:
                yield ServerSentEvent(event="graph_patch", data=patch.model_dump_json())
        finally:
            await live.aclose()  # unsubscribes at once when the client goes away

    return EventSourceResponse(
        frames(), ping=container.settings.heartbeat_seconds, ping_message_factory=heartbeat
    )
