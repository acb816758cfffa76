"""Request-body limits, enforced on the bytes as they arrive: size, JSON depth and read time.

A chunked upload has no ``Content-Length``, so checking the header alone lets any size in.
This pure ASGI middleware refuses a declared length over the limit at once (with our JSON
error body), and otherwise watches the body as the app reads it:

- **size**: past ``max_bytes``, 413 ``payload_too_large``;
- **depth**: a JSON body nested deeper than ``max_json_depth`` (arrays and objects), 400
  ``json_too_deep``, found by :class:`JsonNesting`, a scan of the raw bytes, before the
  parser (which recurses) sees any of it;
- **time**: a body not complete within ``read_timeout`` seconds of the request's start, 408
  ``request_timeout`` (a client trickling a body holds a worker; the request head has its own
  deadline in :mod:`api.server`).

Each raises a :class:`~api.errors.CodedHTTPException` — HTTP exceptions are the one kind
FastAPI passes through unchanged from body reading — which ``api/errors.py`` answers with
``{"error": {"code", "message"}}``. (FastAPI's own ``max_body_size`` answers the declared case
in plain text, which would break the contract.) Once the body is complete, ``receive`` is
passed through untouched: a streaming response listens on it for the client's disconnect.
"""

from __future__ import annotations

import asyncio

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import CodedHTTPException, error_body
from errors import PayloadTooLarge

__all__ = [
    "BodySizeLimit",
    "JsonNesting",
    "first_header",
    "parsed_as_json",
]

_OPEN, _CLOSE, _QUOTE, _BACKSLASH = frozenset(b"[{"), frozenset(b"]}"), ord('"'), ord("\\")


class JsonNesting:
    """The nesting depth of a JSON text fed in pieces, without parsing it.

    Counts ``[``/``{`` and ``]``/``}`` outside strings (a string's escapes are followed, also
    across pieces). Linear in the bytes, constant memory. Not a validator: malformed JSON is
    the parser's to refuse, once the depth is known to be safe.
    """

    def __init__(self) -> None:
        self.depth = 0
        self.deepest = 0
        self._in_string = False
        self._escaped = False

    def feed(self, chunk: bytes) -> int:
        """Scan ``chunk``; the deepest nesting seen so far."""
        depth, deepest = self.depth, self.deepest
        in_string, escaped = self._in_string, self._escaped
        for byte in chunk:
            if in_string:
                if escaped:
                    escaped = False
                elif byte == _BACKSLASH:
                    escaped = True
                elif byte == _QUOTE:
                    in_string = False
            elif byte == _QUOTE:
                in_string = True
            elif byte in _OPEN:
                depth += 1
                deepest = max(deepest, depth)
            elif byte in _CLOSE:
                depth -= 1
        self.depth, self.deepest = depth, deepest
        self._in_string, self._escaped = in_string, escaped
        return deepest


class BodySizeLimit:
    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        *,
        max_json_depth: int = 32,
        read_timeout: float = 30.0,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_json_depth = max_json_depth
        self.read_timeout = read_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = f"request body over {self.max_bytes} bytes"
        declared = first_header(scope, b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            # Outside the app's exception handlers here, so answer directly.
            response = JSONResponse(error_body(PayloadTooLarge.code, too_large), status_code=413)
            await response(scope, receive, send)
            return
        nesting = JsonNesting() if parsed_as_json(scope) else None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.read_timeout
        received = 0
        complete = False

        async def limited() -> Message:
            nonlocal received, complete
            if complete:
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    event = await receive()
            except TimeoutError:
                raise CodedHTTPException(
                    408,
                    "request_timeout",
                    f"request body not received within {self.read_timeout:g} s",
                ) from None
            if event["type"] != "http.request":
                complete = True
                return event
            body = event.get("body", b"")
            received += len(body)
            if received > self.max_bytes:
                raise CodedHTTPException(413, PayloadTooLarge.code, too_large)
            if nesting is not None and nesting.feed(body) > self.max_json_depth:
                raise CodedHTTPException(
                    400, "json_too_deep", f"JSON nested deeper than {self.max_json_depth} levels"
                )
            complete = not event.get("more_body", False)
            return event

        await self.app(scope, limited, send)


def first_header(scope: Scope, name: bytes) -> bytes | None:
    """The first value of header ``name`` (lower case), as Starlette's ``Request.headers``
    reads it — so the guards here see the header the app will act on. (``dict(headers)``
    keeps the last: two ``Content-Type`` headers once slipped JSON past the depth guard.)"""
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value)
    return None


def parsed_as_json(scope: Scope) -> bool:
    """What FastAPI parses as JSON: no content type, ``application/json`` or ``…+json``."""
    content_type = (first_header(scope, b"content-type") or b"").split(b";")[0].strip().lower()
    return (
        not content_type
        or content_type in (b"application/json",)
        or content_type.endswith(b"+json")
    )
