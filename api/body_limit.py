"""A request-body size limit that counts the bytes that arrive, not only ``Content-Length``.

A chunked upload has no ``Content-Length``, so checking the header alone lets any size in.
This pure ASGI middleware refuses a declared length over the limit at once (with our JSON
error body), and otherwise counts the body as the app reads it; past the limit it raises a 413
``HTTPException`` — the one exception FastAPI passes through unchanged from body reading —
which ``api/errors.py`` maps to ``{"error": {"code": "payload_too_large"}}``. (FastAPI's own
``max_body_size`` answers the declared case in plain text, which would break the contract.)
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import error_body
from errors import PayloadTooLarge

__all__ = [
    "BodySizeLimit",
]


class BodySizeLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        message = f"request body over {self.max_bytes} bytes"
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            # Outside the app's exception handlers here, so answer directly.
            response = JSONResponse(error_body(PayloadTooLarge.code, message), status_code=413)
            await response(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            event = await receive()
            if event["type"] == "http.request":
                received += len(event.get("body", b""))
                if received > self.max_bytes:
                    raise HTTPException(413, message)
            return event

        await self.app(scope, counted, send)
