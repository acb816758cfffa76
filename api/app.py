"""The FastAPI app factory. ``uvicorn api.app:create_app --factory`` serves it."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI

from api.admission import TURN_PATHS, BodyReads, ChatAdmission
from api.auth import authenticate_head
from api.body_limit import BodySizeLimit
from api.bootstrap import bootstrap
from api.deps import container_of
from api.errors import ERROR_RESPONSES, install_error_handlers
from api.headers import ApiResponseHeaders
from api.logging import configure_logging
from api.rate_limits import enforce_rate_limit
from api.routes import (
    admin,
    branches,
    chat,
    conversations,
    graph,
    health,
    metrics,
    privacy,
    review,
    scenarios,
    summaries,
    usage,
)
from api.routes.web import mount_web_app
from api.settings import Settings
from api.stream_quota import StreamQuota

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
        # What bootstrap built (indexes, lexicons, recognisers: ~400,000 objects) lives as long
        # as the app; the cyclic collector would walk all of it on every full collection, a
        # ~270 ms pause of every stream. Collected once now, then left out (ADR 0040).
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            gc.unfreeze()  # this app's objects become collectable again once it is gone
            await container.aclose()

    # /docs and /redoc load their scripts from a CDN, outside the app's CSP: dev only
    # (prod serves the schema itself at /openapi.json; issue 30).
    interactive_docs = settings.environment == "dev"
    app = FastAPI(
        title="Regintel",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        responses=ERROR_RESPONSES,
        docs_url="/docs" if interactive_docs else None,
        redoc_url="/redoc" if interactive_docs else None,
    )
    install_error_handlers(app)
    app.state.graph_stream_quota = StreamQuota(settings.graph_streams_per_user)  # issue 30

    app.add_middleware(
        BodySizeLimit,
        max_bytes=settings.max_body_bytes,
        max_json_depth=settings.max_json_depth,
        read_timeout=settings.body_read_timeout_seconds,
    )
    app.add_middleware(ApiResponseHeaders)  # no-store on /api/* (issue 30)
    # Added last, so outermost: an overloaded worker refuses a chat turn before anything
    # reads the request; a turn's slot is taken only once its caller is authenticated (from
    # the head) and its body read under a budget of its own (ADR 0030, third addendum).
    app.add_middleware(
        ChatAdmission,
        admission=lambda scope: container_of(scope["app"]).admission,
        authenticate=authenticate_head,
        body_reads=BodyReads(
            per_client=settings.chat_body_reads_per_client, total=settings.chat_body_reads_max
        ),
        read_timeout=min(
            settings.chat_body_read_timeout_seconds, settings.body_read_timeout_seconds
        ),
        max_bytes=settings.max_body_bytes,
        max_json_depth=settings.max_json_depth,
        path=TURN_PATHS,  # /api/chat, an edit's and a regeneration's turn (ADR 0062)
    )

    limited = [Depends(enforce_rate_limit)]  # per tenant and per user (ADR 0026)
    # privacy's export before {id}
    for module in (chat, branches, privacy, conversations, summaries, graph, usage, scenarios):
        app.include_router(module.router, dependencies=limited)
    for module in (health, review, admin, metrics):
        app.include_router(module.router)
    mount_web_app(app)  # the web app at / (ADR 0021)
    return app
