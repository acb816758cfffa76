"""API-key authentication: keys mapped to ``(tenant, user)`` in settings.

Send ``Authorization: Bearer <key>`` or ``X-API-Key: <key>``. The development keys exist only
in the ``dev`` environment (:mod:`api.settings`); in ``prod`` the keys are the operator's own.
The rest of the API only sees a :class:`Principal`.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from fastapi import Request

from api.deps import get_container
from errors import Unauthenticated

__all__ = ["Principal", "authenticate", "principal_for"]


@dataclass(frozen=True)
class Principal:
    tenant_id: str
    user_id: str


def principal_for(key: str | None, api_keys: dict[str, str]) -> Principal:
    if key:
        for known, owner in api_keys.items():
            if hmac.compare_digest(known.encode(), key.encode()):
                tenant, _, user = owner.partition(":")
                return Principal(tenant_id=tenant, user_id=user)
    raise Unauthenticated("a valid API key is required (Authorization: Bearer <key>)")


async def authenticate(request: Request) -> Principal:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    key = token.strip() if scheme.lower() == "bearer" else request.headers.get("x-api-key")
    return principal_for(key, get_container(request).settings.identities)
