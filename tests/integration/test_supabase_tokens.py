"""Supabase access tokens (ADR 0024): HS256 with the project secret, RS256/ES256 from a JWKS
document served over real HTTP; keys generated in the test."""

import asyncio
import base64
import hashlib
import hmac
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from api.auth import principal_from_claims
from api.tokens import JwksKeys, SupabaseTokens
from errors import AdapterClosed, IdentityProviderUnavailable, InvalidToken, NoTenant, TokenExpired
from tests.support.server import running_server
from tests.support.tokens import (
    AUDIENCE,
    ISSUER,
    JwksServer,
    SigningKey,
    TokenIssuer,
    serving_jwks,
)

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture(scope="module")
def issuer() -> TokenIssuer:
    return TokenIssuer(published=[SigningKey.rsa("rsa-1"), SigningKey.ec("ec-1")])


@pytest.fixture
def jwks_server(issuer: TokenIssuer) -> Iterator[JwksServer]:
    with serving_jwks(issuer) as server:
        yield server


@pytest.fixture
async def tokens(issuer: TokenIssuer, jwks_server: JwksServer) -> AsyncIterator[SupabaseTokens]:
    verifier = SupabaseTokens.build(
        audience=AUDIENCE,
        issuer=ISSUER,
        secret=issuer.secret,
        jwks_url=jwks_server.url,
        leeway_seconds=0,
        jwks_min_refresh_seconds=30,
    )
    yield verifier
    await verifier.aclose()


async def test_hs256_with_the_project_secret(tokens: SupabaseTokens, issuer: TokenIssuer) -> None:
    claims = await tokens.claims(issuer.hs256(issuer.claims("alice", "acme")))
    principal = principal_from_claims(claims)
    assert (principal.tenant_id, principal.user_id, principal.role) == ("acme", "alice", "member")


async def test_a_closed_verifier_refuses_tokens(
    issuer: TokenIssuer, jwks_server: JwksServer
) -> None:
    """After ``aclose`` (its JWKS client closed) a token is refused with ``AdapterClosed``, not
    fetched through a closed client; a second ``aclose`` is harmless."""
    verifier = SupabaseTokens.build(
        audience=AUDIENCE, issuer=ISSUER, secret=issuer.secret, jwks_url=jwks_server.url
    )
    token = issuer.hs256(issuer.claims("alice", "acme"))
    assert (await verifier.claims(token))["sub"] == "alice"
    await verifier.aclose()
    with pytest.raises(AdapterClosed, match="token verifier is closed"):
        await verifier.claims(token)
    await verifier.aclose()
    assert jwks_server.requests == []


@pytest.mark.parametrize("kid", ["rsa-1", "ec-1"])
async def test_rs256_and_es256_from_the_jwks_document(
    tokens: SupabaseTokens, issuer: TokenIssuer, jwks_server: JwksServer, kid: str
) -> None:
    [key] = [k for k in issuer.published if k.kid == kid]
    claims = await tokens.claims(issuer.signed(key, issuer.claims("op", "regintel", "admin")))
    principal = principal_from_claims(claims)
    assert (principal.tenant_id, principal.user_id, principal.role) == ("regintel", "op", "admin")
    await tokens.claims(issuer.signed(key))  # the cached document: no second fetch
    assert len(jwks_server.requests) == 1


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        ({"exp": 1_000_000_000}, TokenExpired, "expired"),
        ({"nbf": 4_000_000_000}, InvalidToken, "not valid yet"),
        ({"aud": "anon"}, InvalidToken, "another audience"),
        ({"iss": "https://other-ref.supabase.co/auth/v1"}, InvalidToken, "another issuer"),
        ({"sub": None}, InvalidToken, "'sub'"),
    ],
    ids=["expired", "not-yet-valid", "wrong-audience", "wrong-issuer", "no-subject"],
)
@pytest.mark.parametrize("signing", ["HS256", "RS256", "ES256"])
async def test_claims_that_fail(
    tokens: SupabaseTokens,
    issuer: TokenIssuer,
    overrides: dict[str, Any],
    error: type[Exception],
    message: str,
    signing: str,
) -> None:
    claims = {k: v for k, v in issuer.claims(**overrides).items() if v is not None}
    if signing == "HS256":
        token = issuer.hs256(claims)
    else:
        [key] = [k for k in issuer.published if k.algorithm == signing]
        token = issuer.signed(key, claims)
    with pytest.raises(error, match=message) as caught:
        await tokens.claims(token)
    assert type(caught.value) is error  # expired is its own code, the rest invalid_token


async def test_a_token_signed_with_another_key_is_refused(
    tokens: SupabaseTokens, issuer: TokenIssuer
) -> None:
    with pytest.raises(InvalidToken, match="signature"):
        await tokens.claims(issuer.hs256(secret="another-projects-secret-of-32-chars!"))
    impostor = SigningKey.rsa("rsa-1")  # the published kid, another private key
    with pytest.raises(InvalidToken, match="signature"):
        await tokens.claims(issuer.signed(impostor))
    impostor_ec = SigningKey.ec("ec-1")
    with pytest.raises(InvalidToken, match="signature"):
        await tokens.claims(issuer.signed(impostor_ec))


async def test_an_unknown_kid_refetches_the_jwks_once_and_finds_a_rotated_key(
    issuer: TokenIssuer, jwks_server: JwksServer
) -> None:
    verifier = SupabaseTokens.build(
        audience=AUDIENCE, issuer=ISSUER, jwks_url=jwks_server.url, jwks_min_refresh_seconds=0.5
    )
    try:
        await verifier.claims(issuer.signed(issuer.published[0]))
        assert len(jwks_server.requests) == 1
        rotated = SigningKey.ec("ec-2")  # the project rotates: a new key, published afterwards
        issuer.published.append(rotated)
        try:
            await asyncio.sleep(0.6)  # past the refresh window of the first fetch
            claims = await verifier.claims(issuer.signed(rotated, issuer.claims("bob")))
            assert claims["sub"] == "bob"
            assert len(jwks_server.requests) == 2
            forged = [
                issuer.signed(SigningKey(f"forged-{n}", "ES256", rotated.private))
                for n in range(20)
            ]

            async def burst() -> None:
                results = await asyncio.gather(
                    *[verifier.claims(t) for t in forged], return_exceptions=True
                )
                assert all(isinstance(r, InvalidToken) for r in results), results
                assert all("unknown" in str(r) for r in results)

            await burst()  # within the window of the last fetch: no fetch at all
            assert len(jwks_server.requests) == 2
            await asyncio.sleep(0.6)
            await burst()  # twenty unknown kids at once, a new window: one fetch between them
            assert len(jwks_server.requests) == 3
            await burst()
            assert len(jwks_server.requests) == 3
        finally:
            issuer.published.remove(rotated)
    finally:
        await verifier.aclose()


async def test_a_stale_document_is_fetched_again(
    issuer: TokenIssuer, jwks_server: JwksServer
) -> None:
    now = [0.0]
    async with httpx.AsyncClient() as client:
        keys = JwksKeys(jwks_server.url, client, max_age_seconds=600, clock=lambda: now[0])
        assert await keys.key("rsa-1") is not None
        assert await keys.key("ec-1") is not None
        assert len(jwks_server.requests) == 1
        now[0] = 601.0
        assert await keys.key("rsa-1") is not None
        assert len(jwks_server.requests) == 2


@pytest.mark.parametrize(
    "token",
    ["", "not-a-token", "a.b.c", "eyJhbGciOiJIUzI1NiJ9.e30", "eyJ.eyJ.sig", "\u00e9.\u00e9.\u00e9"],
)
async def test_malformed_tokens_are_invalid(tokens: SupabaseTokens, token: str) -> None:
    with pytest.raises(InvalidToken):
        await tokens.claims(token)


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


async def test_the_algorithm_is_never_the_tokens_choice(
    tokens: SupabaseTokens, issuer: TokenIssuer, jwks_server: JwksServer
) -> None:
    claims = issuer.claims()
    with pytest.raises(InvalidToken, match="'none'"):  # unsigned
        await tokens.claims(f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(claims)}.")
    # HS256 "signed" with the published public key as the secret: algorithm confusion
    public_pem = (
        issuer.published[0]
        .private.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    header = {"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}
    signing_input = f"{_b64(header)}.{_b64(claims)}".encode()
    mac = hmac.new(public_pem, signing_input, hashlib.sha256).digest()
    forged = signing_input.decode() + "." + base64.urlsafe_b64encode(mac).rstrip(b"=").decode()
    with pytest.raises(InvalidToken):
        await tokens.claims(forged)
    # an RS256 header on the EC key's kid
    rsa_key = issuer.published[0]
    mismatched = jwt.encode(claims, rsa_key.private, algorithm="RS256", headers={"kid": "ec-1"})
    with pytest.raises(InvalidToken, match="does not match"):
        await tokens.claims(mismatched)
    # an asymmetric token without a kid
    no_kid = jwt.encode(claims, rsa_key.private, algorithm="RS256")
    with pytest.raises(InvalidToken, match="kid"):
        await tokens.claims(no_kid)


async def test_only_the_configured_kinds_of_token_are_accepted(
    issuer: TokenIssuer, jwks_server: JwksServer
) -> None:
    secret_only = SupabaseTokens.build(audience=AUDIENCE, issuer=ISSUER, secret=issuer.secret)
    with pytest.raises(InvalidToken, match="RS256 tokens are not accepted"):
        await secret_only.claims(issuer.signed(issuer.published[0]))
    jwks_only = SupabaseTokens.build(audience=AUDIENCE, issuer=ISSUER, jwks_url=jwks_server.url)
    try:
        with pytest.raises(InvalidToken, match="HS256 tokens are not accepted"):
            await jwks_only.claims(issuer.hs256())
    finally:
        await jwks_only.aclose()


def test_a_valid_token_without_a_tenant_is_no_tenant() -> None:
    issuer = TokenIssuer()
    with pytest.raises(NoTenant):
        principal_from_claims(issuer.claims(tenant=None))
    with pytest.raises(NoTenant):  # user_metadata is the user's to edit: never a tenant
        principal_from_claims({**issuer.claims(tenant=None), "user_metadata": {"tenant_id": "x"}})
    with pytest.raises(NoTenant):
        principal_from_claims({**issuer.claims(), "app_metadata": {"tenant_id": "  "}})
    assert principal_from_claims(issuer.claims(role="owner")).role == "member"  # admin only


async def test_a_jwks_server_that_is_down_is_a_503_not_a_401(issuer: TokenIssuer) -> None:
    async def broken(_: Request) -> Response:
        return PlainTextResponse("bad gateway", status_code=502)

    with running_server(Starlette(routes=[Route("/jwks", broken)])) as base:
        verifier = SupabaseTokens.build(
            audience=AUDIENCE, issuer=ISSUER, jwks_url=base + "/jwks", jwks_min_refresh_seconds=30
        )
        try:
            for _ in range(2):  # the second within the refresh window: still a 503
                with pytest.raises(IdentityProviderUnavailable):
                    await verifier.claims(issuer.signed(issuer.published[0]))
        finally:
            await verifier.aclose()
