"""Who is calling: a Supabase access token, or (``dev`` only) an API key → :class:`Principal`.

Send ``Authorization: Bearer <token>`` (an API key may also come as ``X-API-Key``). The rest of
the API only sees a :class:`Principal` ``(tenant_id, user_id, role)``.

* **Supabase access tokens** (ADR 0024), verified locally by :class:`api.tokens.SupabaseTokens`
  when a signing key is configured. ``sub`` is the user; ``app_metadata.<tenant claim>``
  (``tenant_id`` by default) the tenant; ``app_metadata.role`` ``admin`` makes an operator,
  anything else (or nothing) a ``member``. ``app_metadata`` only: users can edit their own
  ``user_metadata``, never their ``app_metadata``. A valid token without a tenant is 403
  ``no_tenant``; a bad one 401 ``invalid_token`` or ``token_expired``.
* **API keys**, mapped to ``tenant:user`` or ``tenant:user:admin`` in settings: the ``dev``
  environment only (``make demo``); settings refuse them in ``prod``.

No credentials at all, or a key nobody knows, is 401 ``unauthenticated``.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Depends, Request

from api.deps import get_container
from api.tokens import looks_like_jwt
from errors import Forbidden, InvalidToken, NoTenant, Unauthenticated

__all__ = [
    "Principal",
    "Role",
    "authenticate",
    "principal_for",
    "principal_from_claims",
    "require_admin",
]

Role = Literal["member", "admin"]


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
                return Principal(tenant, user, "admin" if role == "admin" else "member")
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
    role: Role = "admin" if metadata.get("role") == "admin" else "member"
    return Principal(tenant, user, role)


async def authenticate(request: Request) -> Principal:
    """The caller, from ``Authorization: Bearer`` (a token or a dev key) or ``X-API-Key``."""
    container = await get_container(request)
    settings = container.settings
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    bearer = value.strip() if scheme.lower() == "bearer" else None
    key = bearer or request.headers.get("x-api-key")
    if not key:
        raise Unauthenticated("credentials are required (Authorization: Bearer <token>)")
    keys = settings.identities
    tokens = container.tokens
    if tokens is not None and bearer and looks_like_jwt(bearer) and not _is_api_key(bearer, keys):
        claims = await tokens.claims(bearer)
        return principal_from_claims(claims, settings.supabase_tenant_claim)
    if not keys and tokens is not None:  # prod: only tokens are credentials
        raise InvalidToken("the bearer token is malformed")
    return principal_for(key, keys)


def _is_api_key(value: str, keys: dict[str, str]) -> bool:
    return any(hmac.compare_digest(known.encode(), value.encode()) for known in keys)


async def require_admin(principal: Annotated[Principal, Depends(authenticate)]) -> Principal:
    """An operator: 401 without valid credentials, 403 for a member."""
    if principal.role != "admin":
        raise Forbidden("this endpoint is for operators (an admin role)")
    return principal
