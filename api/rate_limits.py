"""The rate-limit dependency: one token per request from the caller's tenant and user buckets.

Attached to the tenant-facing routers (chat, conversations, graph) in ``api.app``; health,
metrics and the operators' review routes are not limited. A refusal is 429 ``rate_limited``
with ``Retry-After``; what happens while Redis is down is the limiter's setting
(``REGINTEL_RATE_LIMIT_WHEN_REDIS_DOWN``, ADR 0026).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from api.auth import Principal, authenticate
from api.deps import ContainerDep
from errors import RateLimited

__all__ = ["enforce_rate_limit"]


async def enforce_rate_limit(
    request: Request,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
) -> None:
    try:
        await container.rate_limiter.check(principal.tenant_id, principal.user_id)
    except RateLimited:
        area = request.url.path.removeprefix("/api/").split("/", 1)[0] or "other"
        container.metrics.rate_limited.labels(area=area).inc()
        raise
