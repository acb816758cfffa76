"""The web app: ``GET /`` (its page), ``/app/*`` (its modules, styles and vendored libraries)
and ``GET /api/session`` (who the key in the browser belongs to).

The app is plain ES modules in ``web/`` with its libraries vendored there (ADR 0021): nothing
is built and nothing is fetched from another origin, which the page's Content-Security-Policy
enforces (``default-src 'self'``). The page knows the environment (a ``<meta>`` tag) so that it
offers the development keys only where they work.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from api.auth import Principal, authenticate
from api.deps import ContainerDep

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "WEB_DIR",
    "SessionOut",
    "index",
    "mount_web_app",
    "router",
    "session",
]

WEB_DIR = Path(__file__).resolve().parents[2] / "web"

CONTENT_SECURITY_POLICY = (
    # 'unsafe-inline' styles: Cytoscape.js sets style attributes on its canvas elements
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
_PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

router = APIRouter()


class SessionOut(BaseModel):
    tenantId: str
    userId: str
    role: str = Field(description="`member` or `admin` (an operator)")
    environment: str = Field(description="`dev` or `prod`")


@router.get("/", include_in_schema=False)
async def index(container: ContainerDep) -> HTMLResponse:
    page = (WEB_DIR / "index.html").read_text(encoding="utf-8")
    # the one value the page needs before sign-in; "dev" or "prod", never user input
    page = page.replace("{{environment}}", container.settings.environment)
    return HTMLResponse(page, headers=_PAGE_HEADERS)


@router.get(
    "/api/session",
    tags=["session"],
    summary="Whom the presented key or token belongs to (the web app's sign-in check)",
)
async def session(
    container: ContainerDep, principal: Annotated[Principal, Depends(authenticate)]
) -> SessionOut:
    return SessionOut(
        tenantId=principal.tenant_id,
        userId=principal.user_id,
        role=principal.role,
        environment=container.settings.environment,
    )


def mount_web_app(app: FastAPI) -> None:
    """Serve the page at ``/`` and its files under ``/app``."""
    app.include_router(router)
    app.mount("/app", StaticFiles(directory=WEB_DIR), name="web")
