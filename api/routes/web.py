"""The web app: ``GET /`` (its page), ``/app/*`` (its modules, styles and vendored libraries),
``GET /app/config.json`` (what the page needs before sign-in) and ``GET /api/session`` (who the
key or token in the browser belongs to).

The app is plain ES modules in ``web/`` with its libraries vendored there (ADR 0021): nothing
is built and nothing is fetched from another origin, which the page's Content-Security-Policy
enforces (``default-src 'self'``). The one exception is the operator's Supabase Auth origin,
when one is configured: the page signs in there with email and password, so ``connect-src``
names it. The public config says which sign-ins work: the development keys (``dev`` only) and
Supabase's URL and anon key (public by design; the JWT secret never leaves the server).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, FastAPI, Response
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from api.auth import Principal, authenticate
from api.deps import ContainerDep
from api.settings import DEV_API_KEYS, Settings

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "WEB_DIR",
    "SessionOut",
    "SupabaseConfig",
    "WebConfig",
    "config",
    "content_security_policy",
    "index",
    "mount_web_app",
    "router",
    "session",
    "web_config",
]

WEB_DIR = Path(__file__).resolve().parents[2] / "web"

CONTENT_SECURITY_POLICY = (
    # 'unsafe-inline' styles: Cytoscape.js sets style attributes on its canvas elements
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
_PAGE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

router = APIRouter()


def content_security_policy(settings: Settings) -> str:
    """The page's policy: :data:`CONTENT_SECURITY_POLICY`, with the Supabase Auth origin added
    to ``connect-src`` when the page signs in there."""
    if not settings.supabase_sign_in:
        return CONTENT_SECURITY_POLICY
    parts = urlsplit(settings.supabase_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    return CONTENT_SECURITY_POLICY.replace("connect-src 'self'", f"connect-src 'self' {origin}")


class SupabaseConfig(BaseModel):
    url: str = Field(description="The project's URL; sign-in is at `/auth/v1/token`")
    anonKey: str = Field(description="The project's anon key (public), sent as `apikey`")


class WebConfig(BaseModel):
    environment: str = Field(description="`dev` or `prod`")
    apiKeys: bool = Field(description="API keys are accepted (the development keys in `dev`)")
    devKeys: bool = Field(description="The development keys work here (offered on the page)")
    supabase: SupabaseConfig | None = Field(
        default=None, description="Email + password sign-in with Supabase Auth, when set up"
    )


def web_config(settings: Settings) -> WebConfig:
    """What the page may know before anyone signs in (nothing secret)."""
    keys = settings.identities
    supabase = (
        SupabaseConfig(url=settings.supabase_url, anonKey=settings.supabase_anon_key)
        if settings.supabase_sign_in
        else None
    )
    dev_keys = settings.environment == "dev" and any(key in keys for key in DEV_API_KEYS)
    return WebConfig(
        environment=settings.environment, apiKeys=bool(keys), devKeys=dev_keys, supabase=supabase
    )


class SessionOut(BaseModel):
    tenantId: str
    userId: str
    role: str = Field(
        description="`member`; `admin`: the tenant's administrator (its egress policies); "
        "`operator`: the platform's, who reviews the shared graph (ADR 0041)"
    )
    environment: str = Field(description="`dev` or `prod`")


@router.get("/", include_in_schema=False)
async def index(container: ContainerDep) -> HTMLResponse:
    page = (WEB_DIR / "index.html").read_text(encoding="utf-8")
    headers = {
        **_PAGE_HEADERS,
        "Content-Security-Policy": content_security_policy(container.settings),
    }
    return HTMLResponse(page, headers=headers)


@router.get(
    "/app/config.json",
    tags=["session"],
    summary="The web app's public configuration (no credentials needed)",
    description="Which sign-ins the page offers: the development keys (the `dev` environment "
    "only) and Supabase Auth's URL and anon key (public by design) for email + password "
    "sign-in. Never a secret.",
)
async def config(container: ContainerDep, response: Response) -> WebConfig:
    response.headers["Cache-Control"] = "no-cache"
    return web_config(container.settings)


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
