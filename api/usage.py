"""Token usage per turn, priced and added to the ledger (issue 27, must-have 3; ADR 0049).

:class:`UsageTurns` wraps a :class:`engine.turn.TurnEngine` like :class:`api.metering.MeteredTurns`
does and changes nothing in what a turn yields: when the turn's ``done`` event passes, the turn's
input and output tokens (the provider SDK's usage; the offline provider counts words) are priced
with :class:`PriceTable` and added to the caller's day in the store's
:class:`conversations.port.UsageLedger` (one upsert), under the provider and model the turn was
routed to. A ledger that fails is logged and the turn goes on: usage is accounting, never a
reason to lose an answer.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from datetime import UTC, datetime

import structlog

from conversations.models import UsageEntry
from conversations.port import UsageLedger
from engine.events import DoneEvent, TurnEvent
from engine.metrics import EngineCounters
from engine.turn import PreparedTurn, TurnEngine, TurnRequest, run_turn
from errors import RegintelError

__all__ = ["PriceTable", "UsageTurns"]

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


class UsageTurns:
    """A turn engine whose turns' token usage is priced and recorded (a ``TurnEngine``)."""

    def __init__(self, engine: TurnEngine, ledger: UsageLedger, prices: PriceTable) -> None:
        self._engine = engine
        self._ledger = ledger
        self._prices = prices

    @property
    def counters(self) -> EngineCounters:
        return self._engine.counters

    async def aclose(self) -> None:
        await self._engine.aclose()

    async def prepare(self, request: TurnRequest) -> PreparedTurn:
        return await self._engine.prepare(request)

    def run_turn(self, request: TurnRequest) -> AsyncGenerator[TurnEvent, None]:
        return run_turn(self, request)

    async def stream(self, turn: PreparedTurn) -> AsyncGenerator[TurnEvent, None]:
        async with aclosing(self._engine.stream(turn)) as events:
            async for event in events:
                if isinstance(event, DoneEvent):
                    await self._record(turn, event)
                yield event

    async def _record(self, turn: PreparedTurn, done: DoneEvent) -> None:
        provider, model = turn.llm_request.provider, turn.llm_request.model
        input_tokens = max(int(done.usage.get("inputTokens", 0)), 0)
        output_tokens = max(int(done.usage.get("outputTokens", 0)), 0)
        entry = UsageEntry(
            day=datetime.now(UTC).date(),
            provider=provider,
            model=model,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cost_micros=self._prices.cost_micros(provider, model, input_tokens, output_tokens),
        )
        try:
            await self._ledger.record_usage(turn.request.tenant_id, turn.request.user_id, entry)
        except RegintelError as exc:
            log.warning("usage_not_recorded", code=exc.code)
