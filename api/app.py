"""The FastAPI app factory. ``uvicorn api.app:create_app --factory`` serves it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI

from api.body_limit import BodySizeLimit
from api.bootstrap import bootstrap
from api.errors import ERROR_RESPONSES, install_error_handlers
from api.logging import configure_logging
from api.rate_limits import enforce_rate_limit
from api.routes import admin, chat, conversations, graph, health, metrics, review
from api.routes.web import mount_web_app
from api.settings import Settings

__all__ = [
    "DESCRIPTION",
    "create_app",
]

DESCRIPTION = """Regintel: a graph-backed regulatory research copilot (tax, social welfare,
pensions, EU law). Research only — never legal or tax advice.

Authenticate with `Authorization: Bearer <api key>`. Errors are
`{"error": {"code", "message"}}` with a stable `code`."""


def create_app(settings: Settings | None = None, **overrides: Any) -> FastAPI:
    settings = settings or Settings()
    configure_logging(settings.log_level, json=settings.log_json)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        container = await bootstrap(settings, **overrides)
        app.state.container = container
        try:
            yield
        finally:
            await container.aclose()

    app = FastAPI(
        title="Regintel",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        responses=ERROR_RESPONSES,
    )
    install_error_handlers(app)

    app.add_middleware(
        BodySizeLimit,
        max_bytes=settings.max_body_bytes,
        max_json_depth=settings.max_json_depth,
        read_timeout=settings.body_read_timeout_seconds,
    )

    limited = [Depends(enforce_rate_limit)]  # per tenant and per user (ADR 0026)
    for module in (chat, conversations, graph):
        app.include_router(module.router, dependencies=limited)
    for module in (health, review, admin, metrics):
        app.include_router(module.router)
    mount_web_app(app)  # the web app at / (ADR 0021)
    return app
