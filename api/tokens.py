"""Supabase access tokens, verified locally with PyJWT (ADR 0024).

A token is checked here, with no call to Supabase per request: its signature, then ``exp``,
``nbf`` (with ``leeway``), ``aud`` and ``iss``, and that it names its user (``sub``).

* ``HS256``: the project's JWT secret (Supabase's legacy, shared-secret signing).
* ``RS256`` / ``ES256``: the public key whose ``kid`` the token names, from the project's JWKS
  document (``/auth/v1/.well-known/jwks.json``), fetched with httpx by :class:`JwksKeys` and
  cached. An unknown ``kid`` (the project rotated its keys) fetches the document again, at most
  once per ``min_refresh_seconds`` however many tokens ask, so a stream of forged ``kid``\\s
  cannot turn into a stream of requests to Supabase.

The algorithm is never the token's choice alone: HS256 is tried only with the secret, and an
asymmetric token only with a JWKS key of that same algorithm, so a token signed "HS256" with a
public key as its secret (algorithm confusion) fails. Errors are the project's:
:class:`errors.InvalidToken` (401 ``invalid_token``), :class:`errors.TokenExpired` (401
``token_expired``) and :class:`errors.IdentityProviderUnavailable` (503) when the JWKS cannot be
fetched and no cached key fits. What the claims mean (tenant, user, role) is
:mod:`api.auth`'s business.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
import jwt
import structlog

from errors import IdentityProviderUnavailable, InvalidToken, TokenExpired
from infra.lifetime import Lifetime

__all__ = ["ASYMMETRIC_ALGORITHMS", "JwksKeys", "SupabaseTokens", "looks_like_jwt"]

log = structlog.get_logger(__name__)

ASYMMETRIC_ALGORITHMS = frozenset({"RS256", "ES256"})
_REQUIRED_CLAIMS = ["exp", "sub", "aud", "iss"]


def looks_like_jwt(token: str) -> bool:
    """Three base64url segments: a JWS in compact form (an API key never has two dots)."""
    return token.count(".") == 2


class JwksKeys:
    """The signing keys of one JWKS document, by ``kid``, fetched on demand and cached.

    The document is fetched when first needed, again once it is older than ``max_age_seconds``,
    and again when a token names a ``kid`` it does not hold — but never twice within
    ``min_refresh_seconds`` (concurrent callers share one fetch). A failed fetch keeps the keys
    already known; with none known it is :class:`errors.IdentityProviderUnavailable`.
    """

    def __init__(
        self,
        url: str,
        client: httpx.AsyncClient,
        *,
        max_age_seconds: float = 600.0,
        min_refresh_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._url = url
        self._client = client
        self._max_age = max_age_seconds
        self._min_refresh = min_refresh_seconds
        self._clock = clock
        self._keys: dict[str, jwt.PyJWK] = {}
        self._fetched_at: float | None = None  # last successful fetch
        self._tried_at: float | None = None  # last attempt, successful or not
        self._lock = asyncio.Lock()
        self.fetches = 0
        """Documents fetched (or attempted) so far: what the rate limit bounds."""

    async def key(self, kid: str) -> jwt.PyJWK | None:
        """The key ``kid`` names, refetching the document if it is stale or lacks it."""
        if self._stale() or kid not in self._keys:
            await self._refresh(kid)
        return self._keys.get(kid)

    def _stale(self) -> bool:
        return self._fetched_at is None or self._clock() - self._fetched_at >= self._max_age

    async def _refresh(self, kid: str) -> None:
        async with self._lock:
            # another caller may have refreshed while this one waited for the lock
            if not self._stale() and kid in self._keys:
                return
            now = self._clock()
            if self._tried_at is not None and now - self._tried_at < self._min_refresh:
                if self._fetched_at is None:  # nothing known yet: the last fetch failed
                    raise IdentityProviderUnavailable(f"JWKS {self._url}: not fetched yet")
                return  # rate-limited: an unknown kid stays unknown until the next window
            self._tried_at = now
            self.fetches += 1
            try:
                keys = await self._fetch()
            except IdentityProviderUnavailable:
                if not self._keys:
                    raise
                log.warning("jwks_refresh_failed_keeping_cached_keys", url=self._url)
                return
            self._keys, self._fetched_at = keys, self._clock()

    async def _fetch(self) -> dict[str, jwt.PyJWK]:
        try:
            response = await self._client.get(self._url, headers={"Accept": "application/json"})
            response.raise_for_status()
            document = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise IdentityProviderUnavailable(f"JWKS {self._url}: {exc}") from exc
        if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
            raise IdentityProviderUnavailable(f"JWKS {self._url}: no 'keys' list")
        keys: dict[str, jwt.PyJWK] = {}
        for entry in document["keys"]:
            # signing keys with a kid only; a key this library cannot load is skipped, not fatal
            if not isinstance(entry, dict) or not isinstance(entry.get("kid"), str):
                continue
            if entry.get("use", "sig") != "sig":
                continue
            try:
                key = jwt.PyJWK.from_dict(entry)
            except jwt.PyJWKError:
                log.warning("jwks_key_skipped", kid=entry["kid"], kty=entry.get("kty"))
                continue
            if key.algorithm_name in ASYMMETRIC_ALGORITHMS:
                keys[entry["kid"]] = key
        log.info("jwks_fetched", url=self._url, keys=len(keys))
        return keys


class SupabaseTokens:
    """Verifies Supabase access tokens: HS256 with ``secret``, RS256/ES256 from ``jwks``.

    :meth:`claims` returns the verified claims or raises; :meth:`aclose` closes the HTTP client
    it was given (the composition root enters it into its exit stack).
    """

    def __init__(
        self,
        *,
        audience: str,
        issuer: str,
        secret: str | None = None,
        jwks: JwksKeys | None = None,
        http: httpx.AsyncClient | None = None,
        leeway_seconds: float = 5.0,
    ) -> None:
        if not secret and jwks is None:
            raise ValueError("a JWT secret or a JWKS document is required")
        self._audience = audience
        self._issuer = issuer
        self._secret = secret or None
        self._jwks = jwks
        self._http = http
        self._leeway = leeway_seconds
        self._lifetime = Lifetime("the Supabase token verifier")

    @classmethod
    def build(
        cls,
        *,
        audience: str,
        issuer: str,
        secret: str | None = None,
        jwks_url: str = "",
        leeway_seconds: float = 5.0,
        jwks_max_age_seconds: float = 600.0,
        jwks_min_refresh_seconds: float = 30.0,
        timeout_seconds: float = 5.0,
    ) -> SupabaseTokens:
        """From settings: an HTTP client of its own for the JWKS (none without a JWKS URL)."""
        http = httpx.AsyncClient(timeout=timeout_seconds) if jwks_url else None
        jwks = (
            JwksKeys(
                jwks_url,
                http,
                max_age_seconds=jwks_max_age_seconds,
                min_refresh_seconds=jwks_min_refresh_seconds,
            )
            if http is not None
            else None
        )
        return cls(
            audience=audience,
            issuer=issuer,
            secret=secret,
            jwks=jwks,
            http=http,
            leeway_seconds=leeway_seconds,
        )

    async def claims(self, token: str) -> dict[str, Any]:
        """The token's claims once every check passed; :class:`errors.InvalidToken` (or
        :class:`errors.TokenExpired`) otherwise; :class:`errors.AdapterClosed` after
        :meth:`aclose` (its JWKS client is gone)."""
        self._lifetime.check()
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError as exc:
            raise InvalidToken("the bearer token is malformed") from exc
        algorithm = header.get("alg")
        if not isinstance(algorithm, str):  # a list or an object once gave a 500 (issue 30)
            raise InvalidToken("the bearer token names no signing algorithm")
        key: Any
        if algorithm == "HS256":
            if self._secret is None:
                raise InvalidToken("HS256 tokens are not accepted here")
            key = self._secret
        elif algorithm in ASYMMETRIC_ALGORITHMS:
            key = await self._public_key(header.get("kid"), algorithm)
        else:
            raise InvalidToken(f"tokens signed with {algorithm!r} are not accepted")
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                audience=self._audience,
                issuer=self._issuer,
                leeway=self._leeway,
                options={"require": _REQUIRED_CLAIMS},
            )
        except jwt.ExpiredSignatureError as exc:
            raise TokenExpired("the access token has expired") from exc
        except jwt.ImmatureSignatureError as exc:
            raise InvalidToken("the access token is not valid yet") from exc
        except jwt.InvalidAudienceError as exc:
            raise InvalidToken("the access token is for another audience") from exc
        except jwt.InvalidIssuerError as exc:
            raise InvalidToken("the access token comes from another issuer") from exc
        except jwt.InvalidSignatureError as exc:
            raise InvalidToken("the access token's signature does not verify") from exc
        except jwt.MissingRequiredClaimError as exc:
            raise InvalidToken(f"the access token has no {exc.claim!r} claim") from exc
        except jwt.InvalidTokenError as exc:
            raise InvalidToken("the bearer token is malformed") from exc
        return claims

    async def _public_key(self, kid: object, algorithm: str) -> Any:
        if self._jwks is None:
            raise InvalidToken(f"{algorithm} tokens are not accepted here")
        if not isinstance(kid, str) or not kid:
            raise InvalidToken("the access token names no signing key (kid)")
        found = await self._jwks.key(kid)
        if found is None:
            raise InvalidToken("the access token's signing key is unknown")
        if found.algorithm_name != algorithm:
            raise InvalidToken("the access token's algorithm does not match its key")
        return found.key

    async def aclose(self) -> None:
        if self._lifetime.close() and self._http is not None:
            await self._http.aclose()
