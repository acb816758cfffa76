"""Response headers every API answer carries, whatever route or middleware produced it.

``/api/*`` answers hold a tenant's data (conversations, answers, the graph a user may see):
``Cache-Control: no-store`` keeps them out of browser and proxy caches (issue 30); a route
that sets its own ``Cache-Control`` keeps it. ``X-Content-Type-Options: nosniff`` on all of
them, so a JSON body is never sniffed into something a browser would run.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ApiResponseHeaders"]


class ApiResponseHeaders:
    """Pure ASGI middleware: adds the headers above to responses under ``prefix``."""

    def __init__(self, app: ASGIApp, *, prefix: str = "/api/") -> None:
        self.app = app
        self._prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self._prefix):
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                if b"cache-control" not in names:
                    headers.append((b"cache-control", b"no-store"))
                if b"x-content-type-options" not in names:
                    headers.append((b"x-content-type-options", b"nosniff"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
