"""``GET /metrics``: Prometheus metrics of this process (``infra.metrics``), for a scraper on
the private network. No payloads and no tenant or user ids are in them; off with
``REGINTEL_METRICS_ENABLED=false`` (then 404)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from api.deps import ContainerDep
from errors import NotFound
from infra.metrics import CONTENT_TYPE

__all__ = ["metrics", "router"]

router = APIRouter(tags=["health"])


@router.get("/metrics", summary="Prometheus metrics", include_in_schema=True)
async def metrics(container: ContainerDep) -> Response:
    if not container.settings.metrics_enabled:
        raise NotFound("metrics are disabled")
    return Response(container.metrics.render(), media_type=CONTENT_TYPE)
