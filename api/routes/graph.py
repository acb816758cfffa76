"""Graph reads for graph UIs: snapshots, neighbourhoods and changes since a timestamp."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request

from api.auth import Principal, authenticate
from graph.models import GraphSnapshot

router = APIRouter(tags=["graph"])


@router.get("/api/graph/snapshot", summary="Nodes (optionally of some labels) and their edges")
async def snapshot(
    request: Request,
    _: Annotated[Principal, Depends(authenticate)],
    labels: Annotated[list[str] | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
) -> GraphSnapshot:
    graph = request.app.state.container.graph
    return await graph.snapshot(labels=labels, limit=limit)  # type: ignore[no-any-return]


@router.get("/api/graph/nodes/{node_id}/neighbourhood", summary="A node and its neighbours")
async def neighbourhood(
    node_id: str,
    request: Request,
    _: Annotated[Principal, Depends(authenticate)],
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> GraphSnapshot:
    graph = request.app.state.container.graph
    return await graph.neighbourhood([node_id], limit=limit)  # type: ignore[no-any-return]


@router.get("/api/graph/changes", summary="Nodes and edges updated after a timestamp")
async def changes(
    request: Request,
    _: Annotated[Principal, Depends(authenticate)],
    since: Annotated[str, Query(min_length=1, max_length=40, description="ISO-8601 UTC")],
    limit: Annotated[int, Query(ge=1, le=5000)] = 1000,
) -> GraphSnapshot:
    graph = request.app.state.container.graph
    return await graph.changes_since(since, limit=limit)  # type: ignore[no-any-return]
