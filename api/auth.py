"""Who is calling: a Supabase access token, or (``dev`` only) an API key → :class:`Principal`.

Send ``Authorization: Bearer <token>`` (an API key may also come as ``X-API-Key``). The rest of
the API only sees a :class:`Principal` ``(tenant_id, user_id, role)``.

* **Supabase access tokens** (ADR 0024), verified locally by :class:`api.tokens.SupabaseTokens`
  when a signing key is configured. ``sub`` is the user; ``app_metadata.<tenant claim>``
  (``tenant_id`` by default) the tenant; ``app_metadata.role`` ``operator`` makes a platform
  operator (the shared graph's review), ``admin`` a tenant's administrator (its egress
  policies), anything else (or nothing) a ``member`` (ADR 0041). ``app_metadata`` only:
  users can edit their own ``user_metadata``, never their ``app_metadata``. A valid token
  without a tenant is 403 ``no_tenant``; a bad one 401 ``invalid_token`` or ``token_expired``.
* **API keys**, mapped to ``tenant:user`` or ``tenant:user:<role>`` in settings: the ``dev``
  environment only (``make demo``); settings refuse them in ``prod``. The published
  development keys (``DEV_API_KEYS``) work only from a loopback address.

No credentials at all, or a key nobody knows, is 401 ``unauthenticated``.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Depends, Request
from starlette.datastructures import Headers
from starlette.types import Scope

from api.admission import PRINCIPAL_SCOPE_KEY
from api.deps import container_of
from api.settings import DEV_API_KEYS
from api.tokens import looks_like_jwt
from errors import Forbidden, InvalidToken, NoTenant, Unauthenticated

__all__ = [
    "Principal",
    "Role",
    "authenticate",
    "authenticate_head",
    "principal_for",
    "principal_from_claims",
    "require_admin",
    "require_operator",
]

Role = Literal["member", "admin", "operator"]
"""``member``: chat and read the reviewed graph. ``admin``: a tenant's administrator — the
tenant's own egress policies, nothing of the shared graph's review. ``operator``: the
platform's operator — reviews the shared graph for every tenant (ADR 0041); also the admin of
its own (platform) tenant."""


def _role(value: object) -> Role:
    if value == "operator":
        return "operator"
    return "admin" if value == "admin" else "member"


@dataclass(frozen=True)
class Principal:
    tenant_id: str
    user_id: str
    role: Role = "member"


def principal_for(key: str | None, api_keys: dict[str, str]) -> Principal:
    """The owner of a configured API key (constant-time comparison), else 401."""
    if key:
        for known, owner in api_keys.items():
            if hmac.compare_digest(known.encode(), key.encode()):
                tenant, _, rest = owner.partition(":")
                user, _, role = rest.partition(":")
                return Principal(tenant, user, _role(role))
    raise Unauthenticated("a valid access token is required (Authorization: Bearer <token>)")


def principal_from_claims(claims: Mapping[str, Any], tenant_claim: str = "tenant_id") -> Principal:
    """A verified token's claims as a principal; :class:`errors.NoTenant` without a tenant."""
    user = claims.get("sub")
    if not isinstance(user, str) or not user:
        raise InvalidToken("the access token names no user (sub)")
    metadata = claims.get("app_metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    tenant = metadata.get(tenant_claim)
    if not isinstance(tenant, str) or not tenant.strip():
        raise NoTenant("the user belongs to no tenant (app_metadata has no tenant)")
    return Principal(tenant, user, _role(metadata.get("role")))


async def authenticate(request: Request) -> Principal:
    """The caller, from ``Authorization: Bearer`` (a token or a dev key) or ``X-API-Key``.

    A chat turn was authenticated already by :class:`api.admission.ChatAdmission` (before its
    body was read): that principal is reused, the token is not verified twice."""
    known = request.scope.get(PRINCIPAL_SCOPE_KEY)
    if isinstance(known, Principal):
        return known
    return await authenticate_head(request.scope)


async def authenticate_head(scope: Scope) -> Principal:
    """The caller, from the request head alone (nothing of the body is read)."""
    container = container_of(scope["app"])
    settings = container.settings
    headers = Headers(scope=scope)
    scheme, _, value = headers.get("authorization", "").partition(" ")
    bearer = value.strip() if scheme.lower() == "bearer" else None
    key = bearer or headers.get("x-api-key")
    if not key:
        raise Unauthenticated("credentials are required (Authorization: Bearer <token>)")
    keys = settings.identities
    tokens = container.tokens
    if tokens is not None and bearer and looks_like_jwt(bearer) and not _is_api_key(bearer, keys):
        claims = await tokens.claims(bearer)
        return principal_from_claims(claims, settings.supabase_tenant_claim)
    if not keys and tokens is not None:  # prod: only tokens are credentials
        raise InvalidToken("the bearer token is malformed")
    principal = principal_for(key, keys)
    if key in DEV_API_KEYS and not _from_loopback(scope):
        # The development keys are published (README, this repository): they open a `dev`
        # server to its own machine only, never to a network it listens on (issue 30).
        raise Unauthenticated("the development keys work from this machine (loopback) only")
    return principal


def _from_loopback(scope: Scope) -> bool:
    client = scope.get("client")
    if not client:
        return False
    try:
        return ipaddress.ip_address(client[0]).is_loopback
    except ValueError:
        return False


def _is_api_key(value: str, keys: dict[str, str]) -> bool:
    return any(hmac.compare_digest(known.encode(), value.encode()) for known in keys)


async def require_admin(principal: Annotated[Principal, Depends(authenticate)]) -> Principal:
    """A tenant's administrator (or the platform operator, for its own tenant): 401 without
    valid credentials, 403 for a member. What it manages is always the caller's own tenant."""
    if principal.role not in ("admin", "operator"):
        raise Forbidden("this endpoint is for the tenant's administrators (an admin role)")
    return principal


async def require_operator(principal: Annotated[Principal, Depends(authenticate)]) -> Principal:
    """The platform operator, who reviews the shared graph across tenants: 401 without valid
    credentials, 403 for a member and for a tenant's admin (issue 30)."""
    if principal.role != "operator":
        raise Forbidden("this endpoint is for the platform's operators (an operator role)")
    return principal
