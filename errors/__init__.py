"""The one exception hierarchy of Regintel.

Adapters turn library errors into these with ``raise ... from exc``; the API maps them to HTTP
status codes in exactly one place (``api/errors.py``). Every class has a stable ``code`` that is
part of the public error contract ``{"error": {"code", "message"}}``.

    RegintelError                      500 internal_error
    ├── InvalidInput                   422 invalid_input
    │   ├── PayloadTooLarge            413 payload_too_large
    │   └── MalformedToolPayload       422 malformed_tool_payload (an SSE warning, never a 4xx)
    ├── Unauthenticated                401 unauthenticated        (no credentials, unknown key)
    │   └── InvalidToken               401 invalid_token          (malformed, bad signature,
    │       │                                                      wrong audience/issuer, nbf)
    │       └── TokenExpired           401 token_expired
    ├── Forbidden                      403 forbidden              (a member on an admin route)
    │   ├── NoTenant                   403 no_tenant              (a valid token, no tenant)
    │   └── ConversationReadOnly       403 conversation_read_only (shared by another user)
    ├── AdapterClosed                  500 adapter_closed         (an adapter used after
    │                                                              ``aclose()``: a defect)
    ├── NotFound                       404 not_found
    ├── ReviewConflict                 409 review_conflict        (a review action the concept's
    │                                                              state does not allow)
    ├── GraphWriteRejected             422 graph_write_rejected   (ingress guard)
    │   ├── SchemaViolation            422 graph_schema_violation
    │   └── PiiInGraphWrite            422 graph_pii_rejected
    ├── EgressBlocked                  403 egress_blocked          (egress policy, enforce mode)
    ├── RateLimited                    429 rate_limited            (with Retry-After)
    ├── Overloaded                     503 overloaded              (admission control; Retry-After)
    ├── StoreUnavailable               503 store_unavailable
    │   ├── GraphUnavailable           503 graph_unavailable
    │   ├── ConversationStoreUnavailable 503 conversation_store_unavailable
    │   ├── IdentityProviderUnavailable 503 identity_provider_unavailable (no JWKS to check with)
    │   ├── RateLimiterUnavailable     503 rate_limiter_unavailable (Redis down, fail closed)
    │   ├── QuotaUnavailable           503 quota_unavailable (usage ledger down, fail closed)
    │   └── EmbedderUnavailable        503 embedder_unavailable   (no model folder, a bad
    │                                                              checksum, /v1/embeddings down)
    ├── EmbeddingMismatch              500 embedding_mismatch     (stored vectors of another
    │                                                              model: re-embed)

LLM provider failures are not exceptions: providers yield an ``Error`` chunk (``egress.wire``)
whose ``code`` (``provider_*``) reaches the client as an SSE ``error`` event.

Lives below every other package (docs/architecture.md, "Layers") because each of them raises
these (ADR 0002).
"""

from __future__ import annotations

__all__ = [
    "AdapterClosed",
    "ConversationReadOnly",
    "ConversationStoreUnavailable",
    "EgressBlocked",
    "EmbedderUnavailable",
    "EmbeddingMismatch",
    "Forbidden",
    "GraphUnavailable",
    "GraphWriteRejected",
    "IdentityProviderUnavailable",
    "InvalidInput",
    "InvalidToken",
    "MalformedToolPayload",
    "NoTenant",
    "NotFound",
    "Overloaded",
    "PayloadTooLarge",
    "PiiInGraphWrite",
    "QuotaExceeded",
    "QuotaUnavailable",
    "RateLimited",
    "RateLimiterUnavailable",
    "RegintelError",
    "ReviewConflict",
    "SchemaViolation",
    "StoreUnavailable",
    "TokenExpired",
    "Unauthenticated",
]


class RegintelError(Exception):
    """Base of every error Regintel raises on purpose."""

    code: str = "internal_error"
    status_code: int = 500

    def __init__(self, message: str, *, details: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}

    @property
    def public_message(self) -> str:
        """What a client may read (an HTTP body, an SSE ``error`` event)."""
        return self.message


class InvalidInput(RegintelError):
    code = "invalid_input"
    status_code = 422


class PayloadTooLarge(InvalidInput):
    code = "payload_too_large"
    status_code = 413


class MalformedToolPayload(InvalidInput):
    code = "malformed_tool_payload"


class Unauthenticated(RegintelError):
    code = "unauthenticated"
    status_code = 401


class InvalidToken(Unauthenticated):
    """A bearer token that is not a valid access token: malformed, signed with another key or
    algorithm, for another audience or issuer, not valid yet, or missing a required claim."""

    code = "invalid_token"


class TokenExpired(InvalidToken):
    code = "token_expired"


class Forbidden(RegintelError):
    """Authenticated, but the role does not allow it (an operator endpoint called by a member)."""

    code = "forbidden"
    status_code = 403


class NoTenant(Forbidden):
    """A valid token whose user belongs to no tenant (no ``app_metadata.tenant_id``)."""

    code = "no_tenant"


class ConversationReadOnly(Forbidden):
    """Another user's conversation shared with the tenant: readable, but only its owner writes."""

    code = "conversation_read_only"


class AdapterClosed(RegintelError, RuntimeError):
    """An adapter was used after its ``aclose()``: adapters never reopen silently (like httpx's
    "Cannot send a request, as the client has been closed"). A defect of the caller, so 500."""

    code = "adapter_closed"


class NotFound(RegintelError):
    """Also raised for another tenant's ids: existence is never revealed across tenants."""

    code = "not_found"
    status_code = 404


class ReviewConflict(RegintelError):
    """A review action the concepts' state does not allow: merging a concept into itself or
    into one that is quarantined or merged itself, rejecting a reviewed concept."""

    code = "review_conflict"
    status_code = 409


class GraphWriteRejected(RegintelError):
    code = "graph_write_rejected"
    status_code = 422


class SchemaViolation(GraphWriteRejected):
    code = "graph_schema_violation"


class PiiInGraphWrite(GraphWriteRejected):
    code = "graph_pii_rejected"


class EgressBlocked(RegintelError):
    code = "egress_blocked"
    status_code = 403


class RateLimited(RegintelError):
    """Too many requests from this tenant or user; ``retry_after`` seconds (``Retry-After``)."""

    code = "rate_limited"
    status_code = 429

    def __init__(self, message: str = "too many requests", *, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class QuotaExceeded(RateLimited):
    """The tenant's monthly token or cost quota is used up (ADR 0050): refused before the model
    is called; ``Retry-After`` is the time until the quota resets (the next UTC month)."""

    code = "quota_exceeded"

    def __init__(
        self,
        message: str,
        *,
        retry_after: int = 1,
        resets_at: str = "",
        conversation_id: str | None = None,
    ) -> None:
        super().__init__(message, retry_after=retry_after)
        self.resets_at = resets_at  # ISO timestamp (UTC) of the quota's reset
        # the conversation the refused question was stored in (ADR 0050, addendum)
        self.conversation_id = conversation_id


class Overloaded(RegintelError):
    """The worker has as many turns in flight as it may, and none ended within the queue time.

    Answered before any stream starts, with ``Retry-After: retry_after`` (seconds)."""

    code = "overloaded"
    status_code = 503

    def __init__(self, message: str, *, retry_after: int = 1) -> None:
        super().__init__(message, details={"retry_after": retry_after})
        self.retry_after = retry_after


class StoreUnavailable(RegintelError):
    """The message may carry a driver's text (libpq's, SQLite's) for the logs; clients get
    :attr:`public_message`, a fixed sentence per code."""

    code = "store_unavailable"
    status_code = 503
    unavailable: str = "a store"

    @property
    def public_message(self) -> str:
        return f"{self.unavailable} is unavailable; try again shortly"


class GraphUnavailable(StoreUnavailable):
    code = "graph_unavailable"
    unavailable = "the rules graph"


class ConversationStoreUnavailable(StoreUnavailable):
    code = "conversation_store_unavailable"
    unavailable = "the conversation store"


class IdentityProviderUnavailable(StoreUnavailable):
    """The signing keys (JWKS) cannot be fetched and none is cached that fits the token."""

    code = "identity_provider_unavailable"
    unavailable = "the identity provider"


class RateLimiterUnavailable(StoreUnavailable):
    """Redis, which holds the shared rate limits, does not answer (``when_down=closed``)."""

    code = "rate_limiter_unavailable"
    unavailable = "the rate limiter"


class QuotaUnavailable(StoreUnavailable):
    """The usage ledger cannot say what a tenant with a quota has spent this month
    (``REGINTEL_USAGE_QUOTA_WHEN_STORE_DOWN=closed``)."""

    code = "quota_unavailable"
    unavailable = "the usage quota check"


class EmbedderUnavailable(StoreUnavailable):
    """The sentence-embedding model cannot be used: its folder or a file is missing, its weights'
    sha256 is not the expected one, or a remote ``/v1/embeddings`` does not answer."""

    code = "embedder_unavailable"
    unavailable = "the embedding model"


class EmbeddingMismatch(RegintelError):
    """Stored vectors were made by another model or dimension than the configured embedder; the
    message names the command that re-embeds (``regintel embed --rebuild``)."""

    code = "embedding_mismatch"
