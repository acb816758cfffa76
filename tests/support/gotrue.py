"""A stand-in for Supabase Auth's token endpoint (GoTrue), for the web app's sign-in tests.

``POST /auth/v1/token?grant_type=password`` (``{email, password}``) and
``?grant_type=refresh_token`` (``{refresh_token}``) answer as GoTrue does: an HS256 access token
signed with the :class:`~tests.support.tokens.TokenIssuer`'s secret (the one the API server is
configured to verify), its lifetime, and a refresh token that is good for one refresh (GoTrue
rotates them). Every request must carry the project's anon key as ``apikey``. A wrong password is
GoTrue's 400 ``invalid_credentials``; ``POST /auth/v1/logout`` revokes the session's refresh
tokens. CORS is open, as on Supabase: the page calls it from the API's origin.

    with serving_gotrue(GoTrueStandIn(issuer, users=[...])) as auth:
        ... auth.url ... auth.grants ...
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import jwt
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.support.server import running_server
from tests.support.tokens import TokenIssuer

__all__ = ["ANON_KEY", "GoTrueStandIn", "GoTrueUser", "serving_gotrue"]

ANON_KEY = "anon-key-of-the-test-project"


@dataclass(frozen=True)
class GoTrueUser:
    email: str
    password: str
    user_id: str
    tenant: str
    role: str | None = None


@dataclass
class GoTrueStandIn:
    issuer: TokenIssuer
    users: list[GoTrueUser]
    lifetime: int = 3600
    anon_key: str = ANON_KEY
    url: str = ""
    grants: list[str] = field(default_factory=list)
    """Grants answered, in order: ``password``, ``refresh_token`` (failures are not listed)."""
    issued: list[str] = field(default_factory=list)
    """Access tokens issued, in order."""
    logouts: int = 0
    _refresh: dict[str, str] = field(default_factory=dict)  # refresh token -> email

    def app(self) -> Starlette:
        cors = Middleware(
            CORSMiddleware,
            allow_origins=["*"],
            allow_methods=["POST"],
            allow_headers=["apikey", "content-type", "authorization"],
        )
        routes = [
            Route("/auth/v1/token", self._token, methods=["POST"]),
            Route("/auth/v1/logout", self._logout, methods=["POST"]),
        ]
        return Starlette(routes=routes, middleware=[cors])

    async def _token(self, request: Request) -> Response:
        if request.headers.get("apikey") != self.anon_key:
            return JSONResponse({"message": "Invalid API key"}, status_code=401)
        try:
            body = await request.json()
        except ValueError:
            body = {}
        grant = request.query_params.get("grant_type")
        if grant == "password":
            user = next((u for u in self.users if u.email == body.get("email")), None)
            if user is None or user.password != body.get("password"):
                return _error("invalid_credentials", "Invalid login credentials")
        elif grant == "refresh_token":
            email = self._refresh.pop(str(body.get("refresh_token", "")), None)
            user = next((u for u in self.users if u.email == email), None)
            if user is None:
                return _error(
                    "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found"
                )
        else:
            return _error("unsupported_grant_type", "unsupported_grant_type")
        self.grants.append(grant)
        return JSONResponse(self._session(user))

    def _session(self, user: GoTrueUser) -> dict[str, Any]:
        claims = self.issuer.claims(
            user.user_id, user.tenant, user.role, lifetime=self.lifetime, email=user.email
        )
        token = jwt.encode(claims, self.issuer.secret, algorithm="HS256")
        refresh = secrets.token_urlsafe(16)
        self._refresh[refresh] = user.email
        self.issued.append(token)
        return {
            "access_token": token,
            "token_type": "bearer",
            "expires_in": self.lifetime,
            "expires_at": int(time.time()) + self.lifetime,
            "refresh_token": refresh,
            "user": {"id": user.user_id, "email": user.email, "aud": "authenticated"},
        }

    async def _logout(self, request: Request) -> Response:
        if request.headers.get("apikey") != self.anon_key:
            return JSONResponse({"message": "Invalid API key"}, status_code=401)
        _, _, token = request.headers.get("authorization", "").partition(" ")
        try:
            claims = jwt.decode(
                token, self.issuer.secret, algorithms=["HS256"], audience="authenticated"
            )
        except jwt.InvalidTokenError:
            return _error("bad_jwt", "invalid JWT", status=401)
        email = claims.get("email")
        self._refresh = {k: v for k, v in self._refresh.items() if v != email}
        self.logouts += 1
        return Response(status_code=204)


def _error(code: str, message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"code": status, "error_code": code, "msg": message}, status_code=status)


@contextmanager
def serving_gotrue(stand_in: GoTrueStandIn) -> Iterator[GoTrueStandIn]:
    """The stand-in on a real HTTP server on a free loopback port (``stand_in.url``)."""
    with running_server(stand_in.app()) as base:
        stand_in.url = base
        yield stand_in
