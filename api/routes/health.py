"""``GET /health``: is each store answering? 503 when the graph or the conversation store is
down; Redis (when configured) is reported, and its absence alone is ``degraded`` with 200."""

from __future__ import annotations

from typing import Any, Protocol

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import ContainerDep
from errors import RegintelError

__all__ = [
    "Pingable",
    "health",
    "router",
]

router = APIRouter(tags=["health"])


class Pingable(Protocol):
    async def ping(self) -> None: ...


@router.get("/health", summary="Graph, conversation-store and (when configured) Redis status")
async def health(container: ContainerDep) -> JSONResponse:
    checks: dict[str, Any] = {}
    stores: list[tuple[str, Pingable]] = [
        ("graph", container.graph),
        ("conversations", container.conversations),
    ]
    if container.settings.redis_url:
        stores.append(("redis", container.bus))
    for name, store in stores:
        try:
            await store.ping()
            checks[name] = {"status": "ok"}
        except RegintelError as exc:
            checks[name] = {"status": "down", "code": exc.code}
    # Without Redis a worker still answers (bus messages are caught up, rate limits fail open
    # or closed as configured): it is reported, and the worker stays in the load balancer.
    healthy = all(c["status"] == "ok" for n, c in checks.items() if n != "redis")
    complete = healthy and all(c["status"] == "ok" for c in checks.values())
    body = {
        "status": "ok" if complete else "degraded",
        "checks": checks,
        "graph": {
            "backend": container.settings.graph_backend,
            "indexedNodes": len(container.evidence),
            # the semantic channel: model, provisions with a vector, and those without one
            # (found lexically until `regintel embed` or the next ingest embeds them)
            "semantic": container.evidence.semantic_status(),
        },
        # captures not in the graph yet; "exhausted" ones ran out of attempts and wait for the
        # next scheduled round (REGINTEL_GRAPH_RETRY_INTERVAL_SECONDS)
        "pendingGraphWrites": container.retry.pending,
        "exhaustedGraphWrites": container.retry.exhausted,
        "guardRejections": len(container.guard.rejections.entries),
    }
    return JSONResponse(body, status_code=200 if healthy else 503)
