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
  upstream HTTP response at once;
* ``on_fallback`` (optional) is told each fallback route as it is tried, with the code of the
  failure that moved the call on, so the turn can say which route answered (issue 26).

Each attempt is a ``turn.provider`` span (ADR 0028; a no-op outside a traced turn): provider,
model, task, attempt number, a ``first_token`` event and ``regintel.llm.first_token_ms``, and
the outcome (``ok``, ``error`` with the chunk's code as an error status, ``blocked``,
``failed``, or ``stopped`` when the consumer left first). Egress runs inside the attempt, so
its ``turn.egress`` span is the attempt's first child; the upstream time is the rest.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Protocol

import structlog
from opentelemetry.trace import Span, use_span
from opentelemetry.util.types import AttributeValue

from egress.client import EgressContext
from egress.wire import Error, LlmRequest, StreamChunk, Text
from engine.providers.failures import BEFORE_FIRST_TOKEN_CODES
from errors import EgressBlocked
from infra.spans import error_code, mark_failed, turn_tracer

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
        self,
        egress: StreamingEgress,
        request: LlmRequest,
        ctx: EgressContext,
        on_fallback: Callable[[Route, str], None] | None = None,
    ) -> AsyncGenerator[StreamChunk, None]:
        """Stream ``request`` from its route, falling back before the first chunk only.

        ``request`` carries the first route; raises :class:`errors.EgressBlocked` when egress
        refuses it (nothing was sent). ``on_fallback(route, after)``: a fallback route is tried
        after a failure whose code is ``after``.
        """
        first = Route(request.provider, request.model)
        routes = [first, *(r for r in self.plan(request.task, ctx.tenant_id) if r != first)]
        failure: Error | None = None
        why = ""  # the code that moved the call on to the next route
        loop = asyncio.get_running_loop()
        for attempt, route in enumerate(routes):
            outbound = request.model_copy(update={"provider": route.provider, "model": route.model})
            if attempt:
                log.warning("llm_fallback", task=request.task, to=route.provider, after=failure)
                if on_fallback is not None:
                    on_fallback(route, why)
            span = turn_tracer().start_span("turn.provider", attributes=_call(outbound, attempt))
            outcome, began, texted = "stopped", loop.time(), False  # stopped: the consumer left
            try:
                async with aclosing(self._timed(egress.stream(outbound, ctx), span)) as chunks:
                    started = False
                    async for chunk in chunks:
                        last = attempt + 1 == len(routes)
                        if isinstance(chunk, Error):
                            outcome = "error"
                            mark_failed(span, chunk.code)
                            if not started and not last and chunk.code in BEFORE_FIRST_TOKEN_CODES:
                                failure, why = chunk, chunk.code
                                break
                        elif isinstance(chunk, Text) and not texted:
                            texted = True
                            span.add_event("first_token")
                            elapsed = round((loop.time() - began) * 1000, 1)
                            span.set_attribute("regintel.llm.first_token_ms", elapsed)
                        started = True
                        yield chunk
                    if outcome == "stopped":
                        outcome = "ok"
                    if started:
                        return
            except EgressBlocked as exc:
                outcome = "blocked"
                mark_failed(span, exc.code)
                if not attempt:
                    raise
                why = exc.code
                continue  # a fallback the tenant does not allow: audited by egress, skipped
            except Exception as exc:
                outcome = "failed"
                mark_failed(span, error_code(exc))
                raise
            finally:
                span.set_attribute("regintel.llm.outcome", outcome)
                span.end()
        if failure is not None:
            yield failure

    async def _timed(
        self, chunks: AsyncGenerator[StreamChunk, None], span: Span
    ) -> AsyncGenerator[StreamChunk, None]:
        """``chunks`` within the timeouts; ``span`` (the attempt's) is current while the first
        chunk is awaited, when egress runs, and never across a ``yield``."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        answer_deadline = start + self.timeouts.answer
        deadline = min(start + self.timeouts.first_token, answer_deadline)
        first = True
        async with aclosing(chunks):
            while True:
                try:
                    async with asyncio.timeout_at(deadline):
                        if first:
                            with use_span(
                                span, record_exception=False, set_status_on_exception=False
                            ):
                                chunk = await anext(chunks)
                        else:
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


def _call(request: LlmRequest, attempt: int) -> dict[str, AttributeValue]:
    """A call's span attributes: where it went, never what it said or for whom."""
    return {
        "regintel.llm.provider": request.provider,
        "regintel.llm.model": request.model,
        "regintel.llm.task": request.task,
        "regintel.llm.attempt": attempt,
    }
