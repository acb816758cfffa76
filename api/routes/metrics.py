"""``GET /metrics``: Prometheus metrics of this process (``infra.metrics``), for a scraper on
the private network. No payloads and no tenant or user ids are in them; off with
``REGINTEL_METRICS_ENABLED=false`` (then 404). The admission gate's live figures (limit,
in flight, refusals, loop lag, chunk delay: ``api.admission.admission_metrics``, ADR 0055)
follow the counters."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from api.admission import admission_metrics
from api.deps import ContainerDep
from errors import NotFound
from infra.metrics import CONTENT_TYPE

__all__ = ["metrics", "router"]

router = APIRouter(tags=["health"])


@router.get("/metrics", summary="Prometheus metrics", include_in_schema=True)
async def metrics(container: ContainerDep) -> Response:
    if not container.settings.metrics_enabled:
        raise NotFound("metrics are disabled")
    body = container.metrics.render()
    if container.admission is not None:
        body += admission_metrics(container.admission)
    return Response(body, media_type=CONTENT_TYPE)
