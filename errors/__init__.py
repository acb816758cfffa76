"""The one exception hierarchy of Regintel.

Adapters turn library errors into these with ``raise ... from exc``; the API maps them to HTTP
status codes in exactly one place (``api/errors.py``). Every class has a stable ``code`` that is
part of the public error contract ``{"error": {"code", "message"}}``.

    RegintelError                      500 internal_error
    ├── InvalidInput                   422 invalid_input
    │   ├── PayloadTooLarge            413 payload_too_large
    │   └── MalformedToolPayload       422 malformed_tool_payload (an SSE warning, never a 4xx)
    ├── Unauthenticated                401 unauthenticated
    ├── NotFound                       404 not_found
    ├── GraphWriteRejected             422 graph_write_rejected   (ingress guard)
    │   ├── SchemaViolation            422 graph_schema_violation
    │   └── PiiInGraphWrite            422 graph_pii_rejected
    ├── EgressBlocked                  403 egress_blocked          (egress policy, enforce mode)
    ├── StoreUnavailable               503 store_unavailable
    │   ├── GraphUnavailable           503 graph_unavailable
    │   └── ConversationStoreUnavailable 503 conversation_store_unavailable

LLM provider failures are not exceptions: providers yield an ``Error`` chunk (``egress.wire``)
whose ``code`` (``provider_*``) reaches the client as an SSE ``error`` event.

Lives outside the packages of DESIGN.md because every one of them raises these (ADR 0002).
"""

from __future__ import annotations

__all__ = [
    "ConversationStoreUnavailable",
    "EgressBlocked",
    "GraphUnavailable",
    "GraphWriteRejected",
    "InvalidInput",
    "MalformedToolPayload",
    "NotFound",
    "PayloadTooLarge",
    "PiiInGraphWrite",
    "RegintelError",
    "SchemaViolation",
    "StoreUnavailable",
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


class NotFound(RegintelError):
    """Also raised for another tenant's ids: existence is never revealed across tenants."""

    code = "not_found"
    status_code = 404


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


class StoreUnavailable(RegintelError):
    code = "store_unavailable"
    status_code = 503


class GraphUnavailable(StoreUnavailable):
    code = "graph_unavailable"


class ConversationStoreUnavailable(StoreUnavailable):
    code = "conversation_store_unavailable"
