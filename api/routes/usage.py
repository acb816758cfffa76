"""Token usage and cost (issue 27, must-have 3; ADR 0050): the caller's own today and this month
(``GET /api/usage``), and a tenant admin's view of their tenant (``GET /api/admin/usage/tokens``:
totals, by model, top users). Counts and cost only, never a message. Costs come from
``REGINTEL_USAGE_PRICES_PER_MILLION`` at the time of each turn, in millionths of its currency
(``costMicros``). Days are UTC days.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from api.auth import Principal, authenticate, require_admin
from api.deps import ContainerDep
from conversations.models import ModelUsage, UsageTotals
from conversations.port import UsageLedger

__all__ = [
    "ModelUsageOut",
    "OwnUsageOut",
    "TenantTokenUsageOut",
    "UsageTotalsOut",
    "UsageWindowOut",
    "UserTokenUsageOut",
    "own_usage",
    "router",
    "tenant_token_usage",
]

router = APIRouter(tags=["usage"])


class UsageTotalsOut(BaseModel):
    turns: int
    inputTokens: int
    outputTokens: int
    costMicros: int = Field(description="Cost in millionths of the price table's currency.")


class ModelUsageOut(UsageTotalsOut):
    provider: str
    model: str


class UserTokenUsageOut(UsageTotalsOut):
    userId: str = Field(description="`(erased)` for the usage of users erased since.")


class UsageWindowOut(BaseModel):
    since: str = Field(description="The first UTC day counted (ISO date).")
    totals: UsageTotalsOut
    byModel: list[ModelUsageOut]


class OwnUsageOut(BaseModel):
    userId: str
    today: UsageWindowOut
    month: UsageWindowOut = Field(description="Since the first day of this UTC month.")


class TenantTokenUsageOut(BaseModel):
    tenantId: str
    since: str
    totals: UsageTotalsOut
    byModel: list[ModelUsageOut]
    topUsers: list[UserTokenUsageOut] = Field(description="Heaviest first (by cost, then tokens).")


def _totals(rows: list[ModelUsage]) -> UsageTotalsOut:
    return UsageTotalsOut(
        turns=sum(r.turns for r in rows),
        inputTokens=sum(r.input_tokens for r in rows),
        outputTokens=sum(r.output_tokens for r in rows),
        costMicros=sum(r.cost_micros for r in rows),
    )


def _fields(totals: UsageTotals) -> dict[str, int]:
    return {
        "turns": totals.turns,
        "inputTokens": totals.input_tokens,
        "outputTokens": totals.output_tokens,
        "costMicros": totals.cost_micros,
    }


def _window(since: date, rows: list[ModelUsage]) -> UsageWindowOut:
    return UsageWindowOut(
        since=since.isoformat(),
        totals=_totals(rows),
        byModel=[ModelUsageOut(provider=r.provider, model=r.model, **_fields(r)) for r in rows],
    )


@router.get(
    "/api/usage",
    summary="The caller's own token usage and cost, today and this month",
    description="Turns, input and output tokens and cost, in total and per provider and model, "
    "for today and for this month (UTC days). The caller's own only.",
    response_model=OwnUsageOut,
)
async def own_usage(
    container: ContainerDep, principal: Annotated[Principal, Depends(authenticate)]
) -> OwnUsageOut:
    ledger: UsageLedger = container.conversations  # the narrow port
    today = datetime.now(UTC).date()
    first = today.replace(day=1)
    tenant, user = principal.tenant_id, principal.user_id
    month = await ledger.usage_by_model(tenant, first, user_id=user)
    day = await ledger.usage_by_model(tenant, today, user_id=user)
    return OwnUsageOut(userId=user, today=_window(today, day), month=_window(first, month))


@router.get(
    "/api/admin/usage/tokens",
    summary="The tenant's token usage and cost (tenant admins)",
    description="Since `since` (an ISO date; default: the first day of this UTC month): the "
    "tenant's totals, per provider and model, and its top users. The caller's own tenant only.",
    response_model=TenantTokenUsageOut,
)
async def tenant_token_usage(
    container: ContainerDep,
    principal: Annotated[Principal, Depends(require_admin)],
    since: Annotated[date | None, Query(description="First UTC day counted.")] = None,
    top: Annotated[int, Query(ge=1, le=100, description="How many top users.")] = 10,
) -> TenantTokenUsageOut:
    ledger: UsageLedger = container.conversations
    start = since or datetime.now(UTC).date().replace(day=1)
    by_model = await ledger.usage_by_model(principal.tenant_id, start)
    users = await ledger.usage_by_user(principal.tenant_id, start, top)
    return TenantTokenUsageOut(
        tenantId=principal.tenant_id,
        since=start.isoformat(),
        totals=_totals(by_model),
        byModel=[ModelUsageOut(provider=r.provider, model=r.model, **_fields(r)) for r in by_model],
        topUsers=[UserTokenUsageOut(userId=u.user_id, **_fields(u)) for u in users],
    )
