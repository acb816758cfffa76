"""Supabase-like access tokens for tests: keys generated here, a JWKS document on real HTTP.

:class:`TokenIssuer` plays the project's Auth server: it holds an HS256 secret and RSA/EC key
pairs generated with ``cryptography`` (nothing is read from disk), mints tokens with the claims
Supabase puts in its access tokens, and serves its public keys as a JWKS document from a real
uvicorn server on a free loopback port (:func:`serving_jwks`). The document can be changed
while it is served (a key rotation), and every request to it is counted.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.support.server import running_server

__all__ = [
    "AUDIENCE",
    "ISSUER",
    "JWKS_PATH",
    "JwksServer",
    "SigningKey",
    "TokenIssuer",
    "serving_jwks",
]

ISSUER = "https://project-ref.supabase.co/auth/v1"
AUDIENCE = "authenticated"
JWKS_PATH = "/auth/v1/.well-known/jwks.json"


@dataclass(frozen=True)
class SigningKey:
    """An asymmetric key pair with its ``kid`` and algorithm (RS256 or ES256)."""

    kid: str
    algorithm: str
    private: Any

    @classmethod
    def rsa(cls, kid: str) -> SigningKey:
        return cls(kid, "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))

    @classmethod
    def ec(cls, kid: str) -> SigningKey:
        return cls(kid, "ES256", ec.generate_private_key(ec.SECP256R1()))

    def public_jwk(self) -> dict[str, Any]:
        to_jwk = RSAAlgorithm.to_jwk if self.algorithm == "RS256" else ECAlgorithm.to_jwk
        jwk = to_jwk(self.private.public_key(), as_dict=True)
        assert isinstance(jwk, dict)
        return {**jwk, "kid": self.kid, "alg": self.algorithm, "use": "sig"}


@dataclass
class TokenIssuer:
    """Mints Supabase-shaped access tokens; publishes ``published`` keys as JWKS."""

    secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    published: list[SigningKey] = field(default_factory=list)

    def claims(
        self,
        user: str = "alice",
        tenant: str | None = "acme",
        role: str | None = None,
        *,
        lifetime: float = 3600,
        **overrides: Any,
    ) -> dict[str, Any]:
        now = int(time.time())
        app_metadata: dict[str, Any] = {"provider": "email", "providers": ["email"]}
        if tenant is not None:
            app_metadata["tenant_id"] = tenant
        if role is not None:
            app_metadata["role"] = role
        claims = {
            "iss": ISSUER,
            "aud": AUDIENCE,
            "sub": user,
            "exp": now + int(lifetime),
            "iat": now,
            "role": "authenticated",
            "email": f"{user}@example.com",
            "app_metadata": app_metadata,
            "user_metadata": {"tenant_id": "user-editable-never-trusted"},
            "session_id": secrets.token_hex(8),
        }
        return {**claims, **overrides}

    def hs256(self, claims: dict[str, Any] | None = None, *, secret: str | None = None) -> str:
        return jwt.encode(claims or self.claims(), secret or self.secret, algorithm="HS256")

    def signed(self, key: SigningKey, claims: dict[str, Any] | None = None) -> str:
        return jwt.encode(
            claims or self.claims(), key.private, algorithm=key.algorithm, headers={"kid": key.kid}
        )

    def jwks(self) -> dict[str, Any]:
        return {"keys": [key.public_jwk() for key in self.published]}


@dataclass
class JwksServer:
    url: str
    requests: list[float] = field(default_factory=list)


@contextmanager
def serving_jwks(issuer: TokenIssuer) -> Iterator[JwksServer]:
    """The issuer's JWKS on a real HTTP server; ``requests`` counts the fetches."""
    served: list[JwksServer] = []

    async def jwks(_: Request) -> Response:
        served[0].requests.append(time.monotonic())
        return JSONResponse(issuer.jwks(), headers={"Cache-Control": "max-age=600"})

    app = Starlette(routes=[Route(JWKS_PATH, jwks)])
    with running_server(app) as base:
        served.append(JwksServer(url=base + JWKS_PATH))
        yield served[0]
