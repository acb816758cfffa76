"""``GET /health``: is each store answering?"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import ContainerDep
from errors import RegintelError

__all__ = [
    "health",
    "router",
]

router = APIRouter(tags=["health"])


@router.get("/health", summary="Graph and conversation-store status")
async def health(container: ContainerDep) -> JSONResponse:
    checks: dict[str, Any] = {}
    for name, store in (("graph", container.graph), ("conversations", container.conversations)):
        try:
            await store.ping()
            checks[name] = {"status": "ok"}
        except RegintelError as exc:
            checks[name] = {"status": "down", "code": exc.code}
    healthy = all(c["status"] == "ok" for c in checks.values())
    body = {
        "status": "ok" if healthy else "degraded",
        "checks": checks,
        "graph": {
            "backend": container.settings.graph_backend,
            "indexedNodes": len(container.evidence),
        },
        "pendingGraphWrites": container.retry.pending,
        "guardRejections": len(container.guard.rejections.entries),
    }
    return JSONResponse(body, status_code=200 if healthy else 503)
