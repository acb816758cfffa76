"""Typed access to the running app's :class:`~api.bootstrap.Container` for routes.

``app.state`` is untyped; this is the one place that reads it, so routes declare
``container: ContainerDep`` and get a typed container (no ``type: ignore`` in routes).
"""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import Depends, Request
from starlette.applications import Starlette

from api.bootstrap import Container

__all__ = ["ContainerDep", "container_of", "get_container"]


def container_of(app: Starlette) -> Container:
    """The container the lifespan built for ``app`` (for middleware, which has no request)."""
    return cast(Container, app.state.container)


async def get_container(request: Request) -> Container:
    """The container the lifespan built (``app.state.container``). ``async``, though it awaits
    nothing: FastAPI runs a plain ``def`` dependency in its thread pool, a thread hop per
    request for an attribute read."""
    return container_of(request.app)


ContainerDep = Annotated[Container, Depends(get_container)]
