"""The one place where errors become HTTP responses: ``{"error": {"code", "message"}}``."""

from __future__ import annotations

from typing import Any

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from errors import Overloaded, QuotaExceeded, RateLimited, RegintelError

log = structlog.get_logger(__name__)

__all__ = [
    "ERROR_RESPONSES",
    "MAX_MESSAGE_CHARS",
    "CodedHTTPException",
    "ErrorBody",
    "ErrorDetail",
    "error_body",
    "install_error_handlers",
]

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthenticated",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable machine-readable code, e.g. not_found.")
    message: str = Field(description="Human-readable explanation.")


class ErrorBody(BaseModel):
    """The body of every 4xx/5xx response."""

    error: ErrorDetail


def _described(text: str) -> dict[str, Any]:
    return {"model": ErrorBody, "description": text}


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _described(
        "`json_too_deep`: the JSON body nests arrays/objects deeper than "
        "REGINTEL_MAX_JSON_DEPTH (found on the raw bytes, before parsing); `bad_request`: the "
        "body cannot be read as its content type (e.g. JSON that is not UTF-8)."
    ),
    401: _described(
        "`unauthenticated`: no credentials, or an unknown API key (development keys: `dev` "
        "only); `invalid_token`: a bearer token that is malformed, signed with another key or "
        "algorithm, for another audience or issuer, or not valid yet; `token_expired`: its "
        "`exp` has passed (refresh the session)."
    ),
    403: _described(
        "`egress_blocked`: the tenant's egress policy refuses the call; `forbidden`: an "
        "operator endpoint called without an admin role; `no_tenant`: a valid token whose user "
        "has no `app_metadata.tenant_id`; `conversation_read_only`: another user's shared "
        "conversation (read it, never post into it or change its sharing)."
    ),
    404: _described(
        "`not_found`: no such resource for the caller: unknown, another tenant's, or another "
        "user's private conversation."
    ),
    408: _described(
        "`request_timeout`: the request body did not arrive within "
        "REGINTEL_BODY_READ_TIMEOUT_SECONDS (a chat turn's: "
        "REGINTEL_CHAT_BODY_READ_TIMEOUT_SECONDS). (A request head that is late closes the "
        "connection without a response.)"
    ),
    413: _described("`payload_too_large`: the request body is over the limit."),
    422: _described("`invalid_input`: the request is malformed or out of bounds."),
    429: _described(
        "`rate_limited`: the tenant's or the user's request budget is spent, or (chat) too "
        "many bodies are being sent from one address; `Retry-After` says how many seconds to "
        "wait. `too_many_connections`: more than REGINTEL_MAX_CONNECTIONS_PER_CLIENT open "
        "connections from one address (the connection is closed). `quota_exceeded` (a chat "
        "turn, an edit, a regeneration): the tenant's monthly token or cost quota "
        "(REGINTEL_USAGE_MONTHLY_QUOTAS) is used up; nothing was sent to the model, but the "
        "question was stored, with the status `quota_exceeded` and no answer, in the "
        "conversation the error's `conversationId` names (the one given, on its active branch, "
        "or a new one; an edit's new branch; a regeneration stores nothing); `resetsAt` (ISO, "
        "UTC) is when the quota resets, `Retry-After` the seconds until then."
    ),
    431: _described("`header_too_large`: the request head is over REGINTEL_MAX_HEAD_BYTES."),
    503: _described(
        "`graph_unavailable` / `conversation_store_unavailable` / `rate_limiter_unavailable`: "
        "a store is down; `identity_provider_unavailable`: the token's signing keys (JWKS) "
        "cannot be fetched; the message "
        "is a fixed sentence (the driver's error is logged, never sent). `overloaded` "
        "(`POST /api/chat`): the worker has its limit of turns in flight (adaptive, at most "
        "REGINTEL_MAX_TURNS_IN_FLIGHT) and none ended within REGINTEL_ADMISSION_QUEUE_SECONDS "
        "(REGINTEL_ADMISSION_BURST_QUEUE_SECONDS while the limit is still growing), its event "
        "loop runs late, or it was too busy to read the request in time; `Retry-After` says "
        "how many seconds to wait (spread at random, ADR 0055). Checked before the request is "
        "authenticated or read; sent before any stream starts."
    ),
}


class CodedHTTPException(StarletteHTTPException):
    """An HTTP error raised outside a route (middleware, body reading) with its stable code;
    FastAPI passes HTTP exceptions from body reading through unchanged."""

    def __init__(self, status_code: int, code: str, detail: str) -> None:
        super().__init__(status_code, detail)
        self.code = code


MAX_MESSAGE_CHARS = 300
"""An error message longer than this is cut (with an ellipsis): a message may quote the
caller's input (an id), and a 10 KB id once came back whole in a 404 (issue 30)."""


def error_body(code: str, message: str) -> dict[str, dict[str, str]]:
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[: MAX_MESSAGE_CHARS - 1] + "…"
    return {"error": {"code": code, "message": message}}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RegintelError)
    async def regintel_error(_: Request, exc: RegintelError) -> JSONResponse:
        if exc.status_code >= 500 and not isinstance(exc, Overloaded):  # counted, not logged
            log.warning("request_failed", code=exc.code, error=exc.message)  # the detail: logs only
        headers = (
            {"Retry-After": str(exc.retry_after)}
            if isinstance(exc, RateLimited | Overloaded)
            else None
        )
        body: dict[str, Any] = error_body(exc.code, exc.public_message)
        if isinstance(exc, QuotaExceeded):  # when it resets, where the refused question is
            body["error"].update(resetsAt=exc.resets_at, conversationId=exc.conversation_id)
        return JSONResponse(body, status_code=exc.status_code, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
        return JSONResponse(
            error_body("invalid_input", f"{where}: {first.get('msg', 'invalid')}"),
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = getattr(exc, "code", None) or _HTTP_CODES.get(
            exc.status_code, f"http_{exc.status_code}"
        )
        return JSONResponse(
            error_body(code, str(exc.detail)), status_code=exc.status_code, headers=exc.headers
        )

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(error_body("internal_error", "internal error"), status_code=500)
