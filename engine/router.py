"""The LLM router: which provider and model serve a task, and what happens when one fails.

Routing (ADR 0015): a tenant's route for the task, else the tenant's route for every task
(``"*"``), else the task's route, else the default; then the fallbacks, in order. Routes come
from settings; the tenant's egress policy decides whether a route may be used — the router
never bypasses it: every attempt goes through the egress client, which blocks (``enforce``)
and audits a provider or model the tenant does not allow.

:meth:`LlmRouter.stream` runs one call along its routes:

* a route whose stream fails **before its first chunk** with a code in
  :data:`~engine.providers.failures.BEFORE_FIRST_TOKEN_CODES` (connection refused, 5xx, 429
  after the SDK's own back-off, no first token in time) gives way to the next route; once a
  chunk has been passed on, nothing is retried and no second provider is asked, so no text is
  ever sent twice;
* a fallback that the tenant's policy blocks is skipped (its refusal is audited by egress);
* ``first_token`` and ``answer`` timeouts bound each call; a timeout is an ``Error``
  (``provider_timeout``), never an exception;
* the streams are closed with ``aclosing``: a consumer that stops (a client gone) closes the
  upstream HTTP response at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Protocol

import structlog

from egress.client import EgressContext
from egress.wire import Error, LlmRequest, StreamChunk
from engine.providers.failures import BEFORE_FIRST_TOKEN_CODES
from errors import EgressBlocked

__all__ = ["CallTimeouts", "LlmRouter", "Route", "StreamingEgress", "parse_route"]

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class Route:
    provider: str
    model: str


def parse_route(text: str) -> Route:
    """``"provider:model"`` (the model may itself contain colons) → :class:`Route`."""
    provider, sep, model = text.partition(":")
    if not sep or not provider or not model:
        raise ValueError(f'a route is "provider:model", got {text!r}')
    return Route(provider, model)


@dataclass(frozen=True)
class CallTimeouts:
    first_token: float = 30.0
    answer: float = 180.0


class StreamingEgress(Protocol):
    def stream(
        self, request: LlmRequest, ctx: EgressContext
    ) -> AsyncGenerator[StreamChunk, None]: ...


@dataclass
class LlmRouter:
    default: Route
    by_task: Mapping[str, Route] = field(default_factory=dict)
    by_tenant: Mapping[str, Mapping[str, Route]] = field(default_factory=dict)
    fallbacks: Sequence[Route] = ()
    timeouts: CallTimeouts = field(default_factory=CallTimeouts)

    def route(self, task: str, tenant_id: str | None = None) -> Route:
        """The first route for ``task`` (and ``tenant_id``)."""
        tenant = self.by_tenant.get(tenant_id or "", {})
        return tenant.get(task) or tenant.get("*") or self.by_task.get(task, self.default)

    def plan(self, task: str, tenant_id: str | None = None) -> list[Route]:
        """The first route, then the fallbacks that differ from it."""
        first = self.route(task, tenant_id)
        return [first, *(r for r in dict.fromkeys(self.fallbacks) if r != first)]

    async def stream(
        self, egress: StreamingEgress, request: LlmRequest, ctx: EgressContext
    ) -> AsyncGenerator[StreamChunk, None]:
        """Stream ``request`` from its route, falling back before the first chunk only.

        ``request`` carries the first route; raises :class:`errors.EgressBlocked` when egress
        refuses it (nothing was sent).
        """
        first = Route(request.provider, request.model)
        routes = [first, *(r for r in self.plan(request.task, ctx.tenant_id) if r != first)]
        failure: Error | None = None
        for attempt, route in enumerate(routes):
            outbound = request.model_copy(update={"provider": route.provider, "model": route.model})
            if attempt:
                log.warning("llm_fallback", task=request.task, to=route.provider, after=failure)
            try:
                async with aclosing(self._timed(egress.stream(outbound, ctx))) as chunks:
                    started = False
                    async for chunk in chunks:
                        last = attempt + 1 == len(routes)
                        if not started and isinstance(chunk, Error) and not last:
                            if chunk.code in BEFORE_FIRST_TOKEN_CODES:
                                failure = chunk
                                break
                        started = True
                        yield chunk
                    if started:
                        return
            except EgressBlocked:
                if not attempt:
                    raise
                continue  # a fallback the tenant does not allow: audited by egress, skipped
        if failure is not None:
            yield failure

    async def _timed(
        self, chunks: AsyncGenerator[StreamChunk, None]
    ) -> AsyncGenerator[StreamChunk, None]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        answer_deadline = start + self.timeouts.answer
        deadline = min(start + self.timeouts.first_token, answer_deadline)
        first = True
        async with aclosing(chunks):
            while True:
                try:
                    async with asyncio.timeout_at(deadline):
                        chunk = await anext(chunks)
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    what = "no first token" if first else "the answer did not end"
                    limit = self.timeouts.first_token if first else self.timeouts.answer
                    yield Error(f"{what} within {limit:g}s", code="provider_timeout")
                    return
                if first:
                    first, deadline = False, answer_deadline
                yield chunk
