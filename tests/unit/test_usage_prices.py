"""The price table, the quota's reset and the quota check with its ledger down, of
``api.usage`` (ADR 0050)."""

from datetime import date
from typing import Literal, cast

import pytest

from api.usage import PriceTable, Quotas, UsageTurns, _next_month
from conversations.models import ModelUsage
from conversations.port import UsageLedger
from engine.turn import TurnEngine, TurnRequest
from errors import ConversationStoreUnavailable, QuotaExceeded, QuotaUnavailable

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


def test_a_turn_costs_its_tokens_at_the_most_specific_price() -> None:
    table = PriceTable({"openai/gpt-4o-mini": (0.15, 0.6), "gpt-4o-mini": (1.0, 1.0)})
    # per million tokens, so tokens x price is millionths: 1,000 x 0.15 + 500 x 0.6 = 450
    assert table.cost_micros("openai", "gpt-4o-mini", 1000, 500) == 450
    assert table.cost_micros("azure", "gpt-4o-mini", 1000, 500) == 1500  # by model alone
    assert table.cost_micros("extractive", "extractive-v1", 1000, 500) == 0  # not named: free


def test_a_quota_resets_on_the_first_of_the_next_month() -> None:
    assert _next_month(date(2026, 11, 1)) == date(2026, 12, 1)
    assert _next_month(date(2026, 12, 1)) == date(2027, 1, 1)


class _DownLedger:
    """A usage ledger whose store does not answer."""

    async def usage_by_model(self, tenant_id: str, month: date) -> list[object]:
        raise ConversationStoreUnavailable("connection refused")


class _Engine:
    """The wrapped turn engine: counts the turns it was asked to prepare."""

    def __init__(self) -> None:
        self.prepared = 0

    async def prepare(self, request: TurnRequest) -> object:
        self.prepared += 1
        return object()


def _usage(engine: _Engine, when_store_down: Literal["open", "closed"]) -> UsageTurns:
    return UsageTurns(
        cast(TurnEngine, engine),
        cast(UsageLedger, _DownLedger()),
        PriceTable(),
        {"acme": {"tokens": 1000}},
        when_store_down=when_store_down,
    )


async def test_a_quota_the_ledger_cannot_check_lets_the_turn_through_when_open() -> None:
    engine = _Engine()
    usage = _usage(engine, "open")
    await usage.prepare(TurnRequest(tenant_id="acme", user_id="u1", message="hi"))
    assert (engine.prepared, usage.unchecked) == (1, 1)


async def test_a_quota_the_ledger_cannot_check_refuses_the_turn_when_closed() -> None:
    engine = _Engine()
    usage = _usage(engine, "closed")
    with pytest.raises(QuotaUnavailable) as refused:
        await usage.prepare(TurnRequest(tenant_id="acme", user_id="u1", message="hi"))
    assert (refused.value.status_code, refused.value.code) == (503, "quota_unavailable")
    assert (
        "connection refused" not in refused.value.public_message
    )  # the driver's text stays in logs
    assert (engine.prepared, usage.unchecked) == (0, 1)  # nothing prepared, nothing sent upstream
    # a tenant without a quota is never checked, whatever the ledger's state
    await usage.prepare(TurnRequest(tenant_id="globex", user_id="u2", message="hi"))
    assert (engine.prepared, usage.unchecked) == (1, 1)


class _Ledger:
    """A ledger that holds one model's month: 500 tokens costing 9,000 micros."""

    async def usage_by_model(self, tenant_id: str, month: date) -> list[object]:
        return [ModelUsage(provider="openai", model="gpt-4o", turns=1, input_tokens=400,
                           output_tokens=100, cost_micros=9000)]  # fmt: skip


class _RefusingEngine(_Engine):
    async def store_refused(self, request: TurnRequest, status: str) -> str:
        return "c1"


async def test_a_cost_quota_warns_past_its_soft_limit_and_refuses_at_its_hard_one() -> None:
    """Issue 27, must-have 3 ("tokens or cost per month"): the cost quotas, not only tokens."""
    ask = TurnRequest(tenant_id="acme", user_id="u1", message="hi")
    engine = _RefusingEngine()

    def usage(quota: dict[str, int]) -> UsageTurns:
        quotas = cast(Quotas, {"acme": quota})
        return UsageTurns(
            cast(TurnEngine, engine), cast(UsageLedger, _Ledger()), PriceTable(), quotas
        )

    assert await usage({"costMicros": 9001, "softCostMicros": 9000})._check_quota("acme")
    assert await usage({"costMicros": 9001})._check_quota("acme") is None  # tokens not counted
    with pytest.raises(QuotaExceeded) as refused:
        await usage({"costMicros": 9000, "tokens": 10**6}).prepare(ask)
    assert refused.value.code == "quota_exceeded" and "costMicros" in str(refused.value)
    assert engine.prepared == 0 and refused.value.conversation_id == "c1"
