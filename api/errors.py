"""The one place where errors become HTTP responses: ``{"error": {"code", "message"}}``."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from errors import RegintelError

__all__ = [
    "ERROR_RESPONSES",
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
    401: _described("`unauthenticated`: missing or unknown API key."),
    403: _described("`egress_blocked`: the tenant's egress policy refuses the call."),
    404: _described("`not_found`: no such resource in the caller's tenant."),
    413: _described("`payload_too_large`: the request body is over the limit."),
    422: _described("`invalid_input`: the request is malformed or out of bounds."),
    503: _described("`graph_unavailable` / `conversation_store_unavailable`: a store is down."),
}


def error_body(code: str, message: str) -> dict[str, dict[str, str]]:
    return {"error": {"code": code, "message": message}}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RegintelError)
    async def regintel_error(_: Request, exc: RegintelError) -> JSONResponse:
        return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status_code)

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
        code = _HTTP_CODES.get(exc.status_code, f"http_{exc.status_code}")
        return JSONResponse(
            error_body(code, str(exc.detail)), status_code=exc.status_code, headers=exc.headers
        )

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(error_body("internal_error", "internal error"), status_code=500)
