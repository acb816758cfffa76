"""The admin page over HTTP: the egress policies of the caller's own tenant and its users, the
tenant's users and their usage (a tenant ``admin``, or the platform ``operator`` for its own
tenant), and the ingress guard's recent rejections by type (the shared graph's: ``operator``
only; ADR 0041).

Tenant-scoped by construction: the tenant is always the caller's (``principal.tenant_id``),
never a path or body field, so the admin of one tenant can neither read nor change another
tenant's policies, nor see its users or usage (on PostgreSQL row-level security refuses it as
well). The users and usage views are counts and times, never a message or a title.

Guard rejections are the process's (:class:`graph.ingress_guard.RejectionLog`): the rules graph
is shared and knows no tenants, so neither do its rejections. They are shown by type only —
code, property name, PII entity types and time — never the target or the reason, which are
built from the rejected write (ADR 0016).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from api.auth import Principal, require_admin, require_operator
from api.bootstrap import Container
from api.deps import ContainerDep
from conversations.port import TenantAdminQueries
from egress.policy import EgressMode, TenantPolicy, UserPolicy, resolve_mode
from errors import EgressBlocked, InvalidInput

__all__ = [
    "GuardRejectionOut",
    "GuardRejectionsOut",
    "TenantPolicyIn",
    "TenantPolicyOut",
    "TenantUsageOut",
    "TenantUserOut",
    "TenantUsersOut",
    "UserPoliciesOut",
    "UserPolicyIn",
    "UserPolicyOut",
    "UserUsageOut",
    "guard_rejections",
    "router",
    "set_tenant_policy",
    "set_user_policy",
    "tenant_policy",
    "tenant_usage",
    "tenant_users",
    "user_policies",
]

router = APIRouter(tags=["admin"])
_Admin = Annotated[Principal, Depends(require_admin)]
# a provider or model name: short, printable, no separators of the list it sits in
_Name = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[\w.:/\-]+$")]
_UserId = Annotated[str, Path(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f]+$")]


class GuardRejectionOut(BaseModel):
    code: str = Field(description="`graph_pii_rejected` or `graph_schema_violation`")
    property: str | None = Field(description="The schema property refused, if one was")
    entityTypes: list[str] = Field(description="PII entity types found (PII rejections)")
    at: str = Field(description="When the write was refused (UTC)")


class GuardRejectionsOut(BaseModel):
    counts: dict[str, int] = Field(description="Rejections by code since `since`")
    total: int
    since: str = Field(description="When this process started counting (UTC)")
    recent: list[GuardRejectionOut] = Field(description="The latest rejections, newest first")


@router.get(
    "/api/admin/guard-rejections",
    summary="Recent ingress guard rejections, by type (platform operators)",
    description="Counts per code since this process started and the latest rejections' code, "
    "property name, PII entity types and time. Never the rejected value, its target or the "
    "reason (they can be built from the value).",
)
async def guard_rejections(
    container: ContainerDep,
    _: Annotated[Principal, Depends(require_operator)],
    limit: Annotated[int, Query(ge=0, le=500)] = 50,
) -> GuardRejectionsOut:
    summary = container.guard.rejections.summary(recent=limit)
    return GuardRejectionsOut(
        counts=summary.counts,
        total=summary.total,
        since=summary.since,
        recent=[
            GuardRejectionOut(
                code=r.code, property=r.property, entityTypes=list(r.entity_types), at=r.at
            )
            for r in summary.recent
        ],
    )


class TenantPolicyIn(BaseModel):
    """A tenant's egress policy; empty lists allow any provider / model."""

    model_config = ConfigDict(extra="forbid")

    defaultMode: EgressMode | None = Field(
        default=None, description="`enforce`, `report-only`, `off`, or null (the global default)"
    )
    allowOffMode: bool = Field(default=False, description="Users may relax egress below it")
    allowedProviders: list[_Name] = Field(default_factory=list, max_length=50)
    allowedModels: list[_Name] = Field(default_factory=list, max_length=200)


class TenantPolicyOut(TenantPolicyIn):
    tenantId: str
    globalDefault: EgressMode = Field(description="The server's default mode")

    @classmethod
    def of(cls, tenant_id: str, policy: TenantPolicy, default: EgressMode) -> TenantPolicyOut:
        return cls(
            tenantId=tenant_id,
            globalDefault=default,
            defaultMode=policy.default_mode,
            allowOffMode=policy.allow_off_mode,
            allowedProviders=sorted(policy.allowed_providers),
            allowedModels=sorted(policy.allowed_models),
        )


class UserPolicyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: EgressMode | None = Field(description="The user's mode, or null (the tenant's)")


class UserPolicyOut(BaseModel):
    userId: str
    mode: EgressMode | None
    effectiveMode: str = Field(
        description="The mode the user's calls run in (no per-call override), or `refused` "
        "when the user asks for `off` and the tenant does not allow it"
    )


class UserPoliciesOut(BaseModel):
    tenantId: str
    users: list[UserPolicyOut] = Field(description="Users with a policy of their own")


def _global_default(container: Container) -> EgressMode:
    return EgressMode(container.settings.egress_default_mode)


def _user_out(
    user_id: str, policy: UserPolicy, tenant: TenantPolicy, default: EgressMode
) -> UserPolicyOut:
    try:
        effective = resolve_mode(default, tenant, policy).value
    except EgressBlocked:
        effective = "refused"
    return UserPolicyOut(userId=user_id, mode=policy.mode, effectiveMode=effective)


@router.get(
    "/api/admin/egress/tenant",
    summary="The caller's tenant's egress policy (tenant admins)",
)
async def tenant_policy(container: ContainerDep, principal: _Admin) -> TenantPolicyOut:
    policies = container.conversations.egress_adapters().policies
    policy = await policies.tenant_policy(principal.tenant_id)
    return TenantPolicyOut.of(principal.tenant_id, policy, _global_default(container))


@router.put(
    "/api/admin/egress/tenant",
    summary="Replace the caller's tenant's egress policy (tenant admins)",
    description="The whole policy; 422 `invalid_input` for an unknown mode or a malformed list.",
)
async def set_tenant_policy(
    container: ContainerDep, principal: _Admin, body: TenantPolicyIn
) -> TenantPolicyOut:
    policy = TenantPolicy(
        default_mode=body.defaultMode,
        allow_off_mode=body.allowOffMode,
        allowed_providers=frozenset(body.allowedProviders),
        allowed_models=frozenset(body.allowedModels),
    )
    policies = container.conversations.egress_adapters().policies
    await policies.set_tenant_policy(principal.tenant_id, policy)
    return TenantPolicyOut.of(principal.tenant_id, policy, _global_default(container))


@router.get(
    "/api/admin/egress/users",
    summary="The egress policies of the caller's tenant's users (tenant admins)",
    description="Users that have a policy of their own; the others follow the tenant's.",
)
async def user_policies(
    container: ContainerDep,
    principal: _Admin,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
) -> UserPoliciesOut:
    policies = container.conversations.egress_adapters().policies
    tenant = await policies.tenant_policy(principal.tenant_id)
    users = await policies.user_policies(principal.tenant_id, limit=limit)
    default = _global_default(container)
    return UserPoliciesOut(
        tenantId=principal.tenant_id,
        users=[_user_out(user, policy, tenant, default) for user, policy in users.items()],
    )


@router.put(
    "/api/admin/egress/users/{user_id}",
    summary="Set one of the caller's tenant's users' egress mode (tenant admins)",
    description="null clears it (the user follows the tenant's policy). 422 `invalid_input` "
    "for an unknown mode.",
)
async def set_user_policy(
    container: ContainerDep, principal: _Admin, user_id: _UserId, body: UserPolicyIn
) -> UserPolicyOut:
    policies = container.conversations.egress_adapters().policies
    policy = UserPolicy(mode=body.mode)
    await policies.set_user_policy(principal.tenant_id, user_id, policy)
    tenant = await policies.tenant_policy(principal.tenant_id)
    return _user_out(user_id, policy, tenant, _global_default(container))


class TenantUserOut(BaseModel):
    userId: str
    conversations: int = Field(description="Conversations the user owns in the tenant")
    lastActivity: datetime = Field(description="The latest update of any of them (UTC)")
    egressMode: EgressMode | None = Field(
        description="The user's own egress mode, or null (the tenant's policy)"
    )
    effectiveMode: str = Field(
        description="The mode the user's calls run in (no per-call override), or `refused`"
    )


class TenantUsersOut(BaseModel):
    tenantId: str
    users: list[TenantUserOut] = Field(
        description="Users that own conversations in the tenant, in id order"
    )


@router.get(
    "/api/admin/users",
    summary="The caller's tenant's users (tenant admins)",
    description="Users that own conversations in the caller's tenant, in id order: how many, "
    "their last activity and their egress mode. Never another tenant's users; counts and times "
    "only, never a conversation's text.",
)
async def tenant_users(
    container: ContainerDep,
    principal: _Admin,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
) -> TenantUsersOut:
    store: TenantAdminQueries = container.conversations  # the narrow port (ADR 0043)
    policies = container.conversations.egress_adapters().policies
    tenant = await policies.tenant_policy(principal.tenant_id)
    users = await store.tenant_users(principal.tenant_id, limit=limit)
    default = _global_default(container)
    out = []
    for user in users:
        policy = UserPolicy(mode=EgressMode(user.egress_mode) if user.egress_mode else None)
        effective = _user_out(user.user_id, policy, tenant, default).effectiveMode
        out.append(
            TenantUserOut(
                userId=user.user_id,
                conversations=user.conversations,
                lastActivity=user.last_activity,
                egressMode=policy.mode,
                effectiveMode=effective,
            )
        )
    return TenantUsersOut(tenantId=principal.tenant_id, users=out)


class UserUsageOut(BaseModel):
    userId: str
    conversations: int = Field(description="Conversations started in the window")
    userMessages: int = Field(description="Questions asked (user messages) in the window")
    answers: int = Field(description="Answers written (assistant messages, any status)")
    modelCalls: int = Field(description="Model calls the egress audit recorded")
    blockedCalls: int = Field(description="Of those, calls the egress policy blocked")


class TenantUsageOut(BaseModel):
    tenantId: str
    since: datetime | None = Field(description="The window's start (null: all time)")
    users: list[UserUsageOut] = Field(
        description="Users with any activity in the window, in id order. Tokens and cost per "
        "user: `GET /api/admin/usage/tokens`."
    )


@router.get(
    "/api/admin/usage",
    summary="Usage per user of the caller's tenant (tenant admins)",
    description="Per user with activity since `since` (ISO 8601 with a zone; all time when "
    "absent): conversations started, questions, answers, and model calls (blocked ones "
    "among them). Tokens and cost: `GET /api/admin/usage/tokens` (ADR 0050). Never another "
    "tenant's users.",
)
async def tenant_usage(
    container: ContainerDep,
    principal: _Admin,
    since: Annotated[datetime | None, Query(description="The window's start")] = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
) -> TenantUsageOut:
    if since is not None and since.tzinfo is None:
        raise InvalidInput("since needs a time zone (for example 2026-01-01T00:00:00Z)")
    store: TenantAdminQueries = container.conversations  # the narrow port (ADR 0043)
    usage = await store.tenant_usage(principal.tenant_id, since, limit=limit)
    return TenantUsageOut(
        tenantId=principal.tenant_id,
        since=since,
        users=[
            UserUsageOut(
                userId=u.user_id,
                conversations=u.conversations,
                userMessages=u.user_messages,
                answers=u.answers,
                modelCalls=u.model_calls,
                blockedCalls=u.blocked_calls,
            )
            for u in usage
        ],
    )
