"""Token usage per turn, priced and added to the ledger (issue 27, must-have 3; ADR 0050).

:class:`UsageTurns` wraps a :class:`engine.turn.TurnEngine` like :class:`api.metering.MeteredTurns`
does and changes nothing in what a turn yields: when the turn's ``done`` event passes, the turn's
input and output tokens (the provider SDK's usage; the offline provider counts words) are priced
with :class:`PriceTable` and added to the caller's day in the store's
:class:`conversations.port.UsageLedger` (one upsert), under the provider and model the turn was
routed to, and counted in the Prometheus metrics ``regintel_llm_tokens_total`` and
``regintel_llm_cost_micros_total`` (by provider and model only). A ledger that fails is
logged and the turn goes on: usage is accounting, never a reason to lose an answer.

Hard monthly quotas (``REGINTEL_USAGE_MONTHLY_QUOTAS``, by tenant, ``*`` for the others) are
checked in :meth:`UsageTurns.prepare`, before the turn's engine prepares anything: a tenant whose
tokens or cost this UTC month reached its quota gets :class:`errors.QuotaExceeded` (429
``quota_exceeded``, ``Retry-After`` until the next month; the body's ``resetsAt`` and
``conversationId``), and nothing reaches the model. The question is still stored, alone, with
the status ``quota_exceeded`` (by the engine's ``store_refused``: in the conversation named, on
its active branch, or in a new one) so the conversation shows it. The totals are the store's,
so every API worker sees the same ones. With Redis configured, a :class:`QuotaCounter`
(:class:`infra.quota_counter.RedisQuotaCounter`) keeps a copy of the month's totals of each
tenant with a quota: the check is one Redis read, seeded from the store when the copy is
missing or expired, and each recorded call is added to it; a counter that fails is logged
(``quota_counter_unavailable``), counted, and the store is read instead. A store that cannot
say lets the turn through by default (``REGINTEL_USAGE_QUOTA_WHEN_STORE_DOWN=open``: logged as
``quota_unchecked`` and counted; the turn itself needs the store and will say so), or refuses
it with 503 ``quota_unavailable`` (``closed``), as the rate limiter does when Redis is down.
Past a soft quota (``softTokens``, ``softCostMicros``) the turn goes on and carries a
``warning`` event ``quota_warning`` after its metadata.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from datetime import UTC, date, datetime
from typing import Literal, Protocol

import structlog

from conversations.models import MessageStatus, UsageEntry
from conversations.port import UsageLedger
from engine.events import DoneEvent, TurnEvent, TurnWarning, WarningEvent
from engine.metrics import EngineCounters
from engine.turn import PreparedTurn, TurnEngine, TurnRequest, run_turn
from errors import QuotaExceeded, QuotaUnavailable, RegintelError
from infra.metrics import Metrics

__all__ = ["PriceTable", "QuotaCounter", "QuotaKind", "Quotas", "UsageTurns"]

QuotaKind = Literal["tokens", "costMicros", "softTokens", "softCostMicros"]
_HARD: frozenset[QuotaKind] = frozenset({"tokens", "costMicros"})
_MAX_PENDING_WARNINGS = 10_000
Quotas = Mapping[str, Mapping[QuotaKind, int]]
"""Monthly hard quotas by tenant id (``*``: any other tenant): ``tokens``, ``costMicros``."""

log = structlog.get_logger(__name__)


class PriceTable:
    """Prices per million input and output tokens, by ``provider/model`` or ``model``
    (``REGINTEL_USAGE_PRICES_PER_MILLION``, e.g. ``{"openai/gpt-4o-mini": [0.15, 0.6]}``); a
    model it does not name costs nothing (the offline provider, a local model)."""

    def __init__(self, prices: Mapping[str, tuple[float, float]] | None = None) -> None:
        self._prices = dict(prices or {})

    def price(self, provider: str, model: str) -> tuple[float, float]:
        found = self._prices.get(f"{provider}/{model}") or self._prices.get(model)
        return found if found is not None else (0.0, 0.0)

    def cost_micros(self, provider: str, model: str, input_tokens: int, output_tokens: int) -> int:
        """The cost in millionths of the table's currency (a price per million tokens times
        the tokens is exactly that)."""
        per_input, per_output = self.price(provider, model)
        return round(input_tokens * per_input + output_tokens * per_output)


class QuotaCounter(Protocol):
    """This month's tokens and cost per tenant, shared by the workers
    (:class:`infra.quota_counter.RedisQuotaCounter`); errors are :class:`errors.RegintelError`."""

    async def totals(self, tenant_id: str, month: date) -> tuple[int, int] | None: ...

    async def seed(
        self, tenant_id: str, month: date, tokens: int, cost: int
    ) -> tuple[int, int]: ...

    async def add(self, tenant_id: str, month: date, tokens: int, cost: int) -> bool: ...


class UsageTurns:
    """A turn engine whose turns' token usage is priced and recorded (a ``TurnEngine``)."""

    def __init__(
        self,
        engine: TurnEngine,
        ledger: UsageLedger,
        prices: PriceTable,
        quotas: Quotas | None = None,
        metrics: Metrics | None = None,
        *,
        when_store_down: Literal["open", "closed"] = "open",
        counter: QuotaCounter | None = None,
    ) -> None:
        self._engine = engine
        self._counter = counter
        self.counter_unavailable = 0  # quota checks and records the counter could not answer
        self._ledger = ledger
        self._prices = prices
        self._quotas = dict(quotas or {})
        self._metrics = metrics
        self._when_store_down = when_store_down
        self.unchecked = 0  # quota checks the ledger could not answer
        self._warnings: dict[str, str] = {}  # a prepared turn's soft-quota warning, by answer id

    @property
    def counters(self) -> EngineCounters:
        return self._engine.counters

    async def aclose(self) -> None:
        await self._engine.aclose()

    async def prepare(self, request: TurnRequest) -> PreparedTurn:
        """The quota first (nothing is prepared, stored or sent past it), then the turn."""
        try:
            warning = await self._check_quota(request.tenant_id)
        except QuotaExceeded as refused:  # the question is kept, with its status; no answer
            refused.conversation_id = await self._engine.store_refused(request, "quota_exceeded")
            raise
        prepared = await self._engine.prepare(request)
        if warning is not None:
            if len(self._warnings) >= _MAX_PENDING_WARNINGS:  # turns prepared, never streamed
                self._warnings.clear()
            self._warnings[prepared.answer_id] = warning
        return prepared

    async def store_refused(self, request: TurnRequest, status: MessageStatus) -> str:
        return await self._engine.store_refused(request, status)

    async def _check_quota(self, tenant_id: str) -> str | None:
        """Raise past a hard quota; past a soft one only, the warning's message."""
        quota = self._quotas.get(tenant_id) or self._quotas.get("*")
        if not quota:
            return None
        now = datetime.now(UTC)
        month = now.date().replace(day=1)
        counted = await self._counted(tenant_id, month)
        if counted is None:
            try:
                used = await self._ledger.usage_by_model(tenant_id, month)
            except RegintelError as exc:
                self.unchecked += 1
                log.warning("quota_unchecked", code=exc.code, mode=self._when_store_down)
                if self._when_store_down == "closed":
                    raise QuotaUnavailable(f"usage ledger: {exc}") from exc
                return None
            counted = (
                sum(u.input_tokens + u.output_tokens for u in used),
                sum(u.cost_micros for u in used),
            )
            counted = await self._seeded(tenant_id, month, counted)
        tokens, cost = counted
        spent: dict[QuotaKind, int] = {
            "tokens": tokens,
            "costMicros": cost,
            "softTokens": tokens,
            "softCostMicros": cost,
        }
        reached = [name for name, limit in quota.items() if spent[name] >= limit]
        over = [name for name in reached if name in _HARD]
        if reached and not over:
            return f"the tenant has used {tokens} tokens and {cost} cost micros this month"
        if over:
            if self._metrics is not None:
                self._metrics.quota_refusals.inc()
            reset = _next_month(month)
            wait = int((datetime(reset.year, reset.month, 1, tzinfo=UTC) - now).total_seconds())
            resets_at = f"{reset.isoformat()}T00:00:00Z"
            raise QuotaExceeded(
                f"the tenant's monthly {' and '.join(over)} quota is used up; it resets "
                f"at {resets_at}",
                retry_after=max(wait, 1),
                resets_at=resets_at,
            )
        return None

    async def _counted(self, tenant_id: str, month: date) -> tuple[int, int] | None:
        """The month's totals from the shared counter; ``None``: not counted, or no counter
        (the ledger is read)."""
        if self._counter is None:
            return None
        try:
            return await self._counter.totals(tenant_id, month)
        except RegintelError as exc:
            self._counter_failed(exc)
            return None

    async def _seeded(
        self, tenant_id: str, month: date, ledger: tuple[int, int]
    ) -> tuple[int, int]:
        """The counter seeded with the ledger's totals (or what another worker seeded)."""
        if self._counter is None:
            return ledger
        try:
            return await self._counter.seed(tenant_id, month, *ledger)
        except RegintelError as exc:
            self._counter_failed(exc)
            return ledger

    def _counter_failed(self, exc: RegintelError) -> None:
        self.counter_unavailable += 1
        log.warning("quota_counter_unavailable", code=exc.code)

    def run_turn(self, request: TurnRequest) -> AsyncGenerator[TurnEvent, None]:
        return run_turn(self, request)

    async def stream(self, turn: PreparedTurn) -> AsyncGenerator[TurnEvent, None]:
        warning = self._warnings.pop(turn.answer_id, None)
        async with aclosing(self._engine.stream(turn)) as events:
            async for event in events:
                if isinstance(event, DoneEvent):
                    await self._record(turn, event)
                yield event
                if warning is not None:  # after the first event (the turn's metadata)
                    yield WarningEvent(TurnWarning("quota_warning", warning))
                    warning = None

    async def _record(self, turn: PreparedTurn, done: DoneEvent) -> None:
        await self.record_call(
            turn.request.tenant_id,
            turn.request.user_id,
            turn.llm_request.provider,
            turn.llm_request.model,
            int(done.usage.get("inputTokens", 0)),
            int(done.usage.get("outputTokens", 0)),
        )

    async def record_call(
        self,
        tenant_id: str,
        user_id: str,
        provider: str,
        model: str,
        input_tokens: int,
        output_tokens: int,
    ) -> None:
        """Price one call's tokens and add them to the caller's day: a turn's, or a call made
        for it after it (a conversation's summary by a model, ADR 0065), so quotas count it."""
        input_tokens, output_tokens = max(input_tokens, 0), max(output_tokens, 0)
        entry = UsageEntry(
            day=datetime.now(UTC).date(),
            provider=provider,
            model=model,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cost_micros=self._prices.cost_micros(provider, model, input_tokens, output_tokens),
        )
        if self._metrics is not None:
            tokens = self._metrics.llm_tokens
            tokens.labels(provider=provider, model=model, direction="input").inc(input_tokens)
            tokens.labels(provider=provider, model=model, direction="output").inc(output_tokens)
            self._metrics.llm_cost_micros.labels(provider=provider, model=model).inc(
                entry.cost_micros
            )
        try:
            await self._ledger.record_usage(tenant_id, user_id, entry)
        except RegintelError as exc:
            log.warning("usage_not_recorded", code=exc.code)
            return
        quoted = self._quotas.get(tenant_id) or self._quotas.get("*")
        if self._counter is not None and quoted:  # the counter keeps quoted tenants only
            try:
                await self._counter.add(
                    tenant_id,
                    entry.day.replace(day=1),
                    input_tokens + output_tokens,
                    entry.cost_micros,
                )
            except RegintelError as exc:
                self._counter_failed(exc)


def _next_month(first: date) -> date:
    return date(first.year + first.month // 12, first.month % 12 + 1, 1)
