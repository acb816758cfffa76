"""Egress modes and their resolution: global default → tenant → user → per-call override.

Strictness is ordered ``enforce`` > ``report-only`` > ``off``. The tenant decides how loose
things may get in its name:

* the floor is the tenant's ``default_mode``, or the global default if it sets none;
* a user setting, then a per-call override, may always make things **stricter**;
* they may make things **looser** than the floor only where the tenant has ``allow_off_mode``
  (the tenant's opt-in to letting its users relax egress at all). Without it, a looser
  ``report-only`` request is clamped to the floor (the audit record shows requested and
  effective mode), and a request for ``off`` is refused with :class:`errors.EgressBlocked` —
  ``off`` sends unsanitised text, so it must fail loudly rather than be silently changed.
  So a user may not go from ``enforce`` to ``report-only`` unless the tenant allows it: in
  ``report-only`` the provider allow-list is not enforced, which would loosen the tenant's
  policy.
* within those bounds the later setting wins: the override over the user's setting;
* a tenant ``default_mode`` of ``off`` without ``allow_off_mode`` counts as ``report-only``;
* the provider and model allow-lists block whenever the tenant's own floor is ``enforce``, even
  if a user or a call relaxed the mode (``allow_off_mode`` lets users skip sanitising, never
  the tenant's choice of providers).

A turn reads the tenant's and the user's policy once, together (:class:`CallerPolicies`,
:meth:`PolicyStore.caller_policies`: one unit of work on a SQL store), and carries them to
every egress call of the turn; the mode is still resolved per call from them and the call's
override (ADR 0029, second pass).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from errors import EgressBlocked

__all__ = [
    "STRICTNESS",
    "CallerPolicies",
    "EgressMode",
    "InMemoryPolicyStore",
    "PolicyStore",
    "TenantPolicy",
    "UserPolicy",
    "resolve_mode",
    "tenant_floor",
]


class EgressMode(StrEnum):
    ENFORCE = "enforce"
    REPORT_ONLY = "report-only"
    OFF = "off"


STRICTNESS = {EgressMode.OFF: 0, EgressMode.REPORT_ONLY: 1, EgressMode.ENFORCE: 2}


class TenantPolicy(BaseModel):
    """A tenant's egress policy. Empty allow-lists mean "any provider" / "any model"."""

    model_config = ConfigDict(frozen=True)

    default_mode: EgressMode | None = None
    allow_off_mode: bool = False
    allowed_providers: frozenset[str] = Field(default_factory=frozenset)
    allowed_models: frozenset[str] = Field(default_factory=frozenset)

    def provider_allowed(self, provider: str) -> bool:
        return not self.allowed_providers or provider in self.allowed_providers

    def model_allowed(self, model: str) -> bool:
        return not self.allowed_models or model in self.allowed_models


class UserPolicy(BaseModel):
    model_config = ConfigDict(frozen=True)

    mode: EgressMode | None = None


@dataclass(frozen=True, slots=True)
class CallerPolicies:
    """The tenant's and the user's policy, read together once for a turn."""

    tenant: TenantPolicy
    user: UserPolicy


class PolicyStore(Protocol):
    """Where policies live (the conversation store implements this)."""

    async def tenant_policy(self, tenant_id: str) -> TenantPolicy: ...

    async def user_policy(self, tenant_id: str, user_id: str) -> UserPolicy: ...

    async def caller_policies(self, tenant_id: str, user_id: str) -> CallerPolicies:
        """Both policies of a call, read together (one unit of work where the store has them)."""
        ...


class InMemoryPolicyStore:
    """A :class:`PolicyStore` over dicts; unknown tenants and users get the empty policy."""

    def __init__(
        self,
        tenants: dict[str, TenantPolicy] | None = None,
        users: dict[tuple[str, str], UserPolicy] | None = None,
    ) -> None:
        self.tenants = dict(tenants or {})
        self.users = dict(users or {})

    async def tenant_policy(self, tenant_id: str) -> TenantPolicy:
        return self.tenants.get(tenant_id, TenantPolicy())

    async def user_policy(self, tenant_id: str, user_id: str) -> UserPolicy:
        return self.users.get((tenant_id, user_id), UserPolicy())

    async def caller_policies(self, tenant_id: str, user_id: str) -> CallerPolicies:
        return CallerPolicies(
            await self.tenant_policy(tenant_id), await self.user_policy(tenant_id, user_id)
        )


def tenant_floor(global_default: EgressMode, tenant: TenantPolicy) -> EgressMode:
    """The mode the tenant itself runs in, before any user or per-call setting."""
    floor = tenant.default_mode or global_default
    if floor is EgressMode.OFF and not tenant.allow_off_mode:
        floor = EgressMode.REPORT_ONLY
    return floor


def resolve_mode(
    global_default: EgressMode,
    tenant: TenantPolicy,
    user: UserPolicy,
    override: EgressMode | None = None,
) -> EgressMode:
    """The effective mode; raises :class:`errors.EgressBlocked` if ``off`` is not allowed."""
    floor = tenant_floor(global_default, tenant)
    mode = floor
    for requested in (user.mode, override):
        if requested is None:
            continue
        if tenant.allow_off_mode or STRICTNESS[requested] >= STRICTNESS[floor]:
            mode = requested
        elif requested is EgressMode.OFF:
            raise EgressBlocked(
                "egress mode 'off' is not allowed by the tenant policy",
                details={"requested_mode": requested.value},
            )
        else:
            mode = floor
    return mode
