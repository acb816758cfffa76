"""``EgressClient``: the only way out to an LLM provider.

Per call: resolve the mode (:mod:`egress.policy`), check the tenant's provider and model
allow-lists, sanitise what is new, write one audit record, then stream from the provider and
restore placeholders in the text shown to the same user.

* ``enforce``: sanitised request; an allow-list violation raises :class:`errors.EgressBlocked`
  before anything is sent.
* ``report-only``: sanitised request; violations are recorded in the audit, never blocked.
  The original (unsanitised) request is kept for debugging only when an
  :class:`~egress.originals.OriginalRequestSink` was configured (a setting, off by default).
* ``off``: the request goes unchanged (only where the tenant allows it).

The tenant's and the user's policies are read once per turn: :meth:`EgressClient.bind_policy`
reads them (one unit of work), checks the mode as :meth:`EgressClient.effective_mode` does and
returns the context carrying them (:attr:`EgressContext.policies`); every call made with that
context resolves its mode from them and its own override, without reading them again (ADR
0029, second pass). A context without them reads them at the call, as before.

Every refusal writes an audit record with ``blocked=True`` before it raises: a refused
``off`` (also when the engine asks :meth:`EgressClient.effective_mode` before a turn), an
allow-list violation, an unknown provider.

Sanitise once: the engine calls :meth:`EgressClient.sanitise_message` when it stores a message
and later sends the stored (sanitised) text. Provenance travels with the message: a
:class:`~egress.wire.ChatMessage` with ``sanitised=True`` is sent as it is; every other message
is scanned here, whatever its position, so a prompt part added later with user text in it cannot
slip through unscanned.

``Tool`` chunks are passed through with placeholders intact: tool payloads feed the shared
rules graph, which must hold no PII.

Everything before the provider is called (policy, sanitising, audit, placeholder table) is one
``turn.egress`` span (ADR 0028; a no-op outside a traced turn): the mode, the number of
policy violations and of placeholders sent, an error status with the code when it refuses;
never a value.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import Any

from opentelemetry.trace import Span

from egress.audit import AuditSink, EgressAuditRecord
from egress.originals import OriginalRequestSink
from egress.policy import CallerPolicies, EgressMode, PolicyStore, resolve_mode, tenant_floor
from egress.restorer import PlaceholderRestorer
from egress.sanitiser import PLACEHOLDER, SanitisedText, Sanitiser
from egress.wire import ChatMessage, Done, LlmProvider, LlmRequest, StreamChunk, Text
from errors import EgressBlocked, InvalidInput
from infra.spans import stage

__all__ = [
    "EgressClient",
    "EgressContext",
]


@dataclass(frozen=True, slots=True)
class EgressContext:
    """Who a call is for, and the per-call mode override the caller asked for.

    ``policies``: the tenant's and the user's policy as :meth:`EgressClient.bind_policy` read
    them for this turn; ``None`` means "read them at the call"."""

    tenant_id: str
    user_id: str
    conversation_id: str
    override_mode: EgressMode | None = None
    policies: CallerPolicies | None = field(default=None, compare=False, repr=False)


class EgressClient:
    """Wraps the provider registry; every outbound LLM call goes through :meth:`stream`."""

    def __init__(
        self,
        providers: Mapping[str, LlmProvider],
        sanitiser: Sanitiser,
        policies: PolicyStore,
        audit: AuditSink,
        *,
        default_mode: EgressMode = EgressMode.ENFORCE,
        originals: OriginalRequestSink | None = None,
    ) -> None:
        self._providers = dict(providers)
        self._sanitiser = sanitiser
        self._policies = policies
        self._audit = audit
        self._default_mode = default_mode
        self._originals = originals

    async def sanitise_message(self, ctx: EgressContext, text: str) -> SanitisedText:
        """Sanitise one message once, when it is stored (placeholders stable per conversation)."""
        return await self._sanitiser.sanitise(ctx.tenant_id, ctx.conversation_id, text)

    async def effective_mode(
        self, ctx: EgressContext, *, task: str = "main_chat", provider: str = "", model: str = ""
    ) -> EgressMode:
        """The mode a call with ``ctx`` runs in; raises ``EgressBlocked`` for a refused ``off``.

        A refusal is audited (``effective_mode="refused"``) with the call it refused.
        """
        policies = await self._caller_policies(ctx)
        return await self._checked_mode(ctx, policies, task, provider, model)

    async def bind_policy(
        self, ctx: EgressContext, *, task: str = "main_chat", provider: str = "", model: str = ""
    ) -> EgressContext:
        """``ctx`` carrying its caller's policies, read once, for every call of the turn.

        Checks the mode like :meth:`effective_mode`: a refused ``off`` is audited and raises
        ``EgressBlocked``."""
        policies = await self._caller_policies(ctx)
        await self._checked_mode(ctx, policies, task, provider, model)
        return replace(ctx, policies=policies)

    async def _caller_policies(self, ctx: EgressContext) -> CallerPolicies:
        if ctx.policies is not None:
            return ctx.policies
        return await self._policies.caller_policies(ctx.tenant_id, ctx.user_id)

    async def _checked_mode(
        self, ctx: EgressContext, policies: CallerPolicies, task: str, provider: str, model: str
    ) -> EgressMode:
        try:
            return resolve_mode(
                self._default_mode, policies.tenant, policies.user, ctx.override_mode
            )
        except EgressBlocked as exc:
            await self._audit.record(
                EgressAuditRecord(
                    **_who(ctx, task, provider, model),
                    effective_mode="refused",
                    blocked=True,
                    reason=exc.message,
                )
            )
            raise

    async def stream(
        self, request: LlmRequest, ctx: EgressContext
    ) -> AsyncGenerator[StreamChunk, None]:
        """Send ``request`` under the effective mode and stream the reply, placeholders restored.

        Raises :class:`errors.EgressBlocked` before sending when the mode or the request is
        refused.
        """
        with stage("turn.egress", {"regintel.llm.task": request.task}) as span:
            provider, outbound, restorer = await self._prepare_call(request, ctx, span)
        # aclosing: a consumer that stops early (a client gone) closes the upstream stream now.
        async with aclosing(provider.stream(outbound)) as chunks:
            async for chunk in chunks:
                if isinstance(chunk, Text):
                    shown = restorer.feed(chunk.delta)
                    if shown:
                        yield Text(shown)
                    continue
                if isinstance(chunk, Done):
                    rest = restorer.flush()
                    if rest:
                        yield Text(rest)
                yield chunk
        rest = restorer.flush()
        if rest:
            yield Text(rest)

    async def _prepare_call(
        self, request: LlmRequest, ctx: EgressContext, span: Span
    ) -> tuple[LlmProvider, LlmRequest, PlaceholderRestorer]:
        """Everything before the call: mode, allow-lists, sanitising, audit, placeholders."""
        record = _who(ctx, request.task, request.provider, request.model)
        policies = await self._caller_policies(ctx)  # read once per turn when bound
        tenant = policies.tenant
        mode = await self._checked_mode(
            ctx, policies, request.task, request.provider, request.model
        )
        violations = []
        if not tenant.provider_allowed(request.provider):
            violations.append(f"provider_not_allowed:{request.provider}")
        if not tenant.model_allowed(request.model):
            violations.append(f"model_not_allowed:{request.model}")
        span.set_attributes(
            {"regintel.egress.mode": mode.value, "regintel.egress.violations": len(violations)}
        )
        floor = tenant_floor(self._default_mode, tenant)
        if violations and EgressMode.ENFORCE in (mode, floor):
            reason = "; ".join(violations)
            await self._audit.record(
                EgressAuditRecord(
                    **record,
                    effective_mode=mode.value,
                    violations=violations,
                    blocked=True,
                    reason=reason,
                )
            )
            raise EgressBlocked(
                f"egress blocked by tenant policy: {reason}", details={"violations": violations}
            )
        provider = self._providers.get(request.provider)
        if provider is None:
            reason = f"unknown LLM provider {request.provider!r}"
            await self._audit.record(
                EgressAuditRecord(
                    **record,
                    effective_mode=mode.value,
                    violations=violations,
                    blocked=True,
                    reason=reason,
                )
            )
            raise InvalidInput(reason)
        if mode is EgressMode.REPORT_ONLY and self._originals is not None:
            await self._originals.keep(request, ctx)  # opt-in only (D-041)

        counts: dict[str, int] = {}
        outbound = request
        if mode is not EgressMode.OFF:
            outbound, counts = await self._sanitise_request(request, ctx)
        audit = self._audit.record(
            EgressAuditRecord(
                **record, effective_mode=mode.value, counts=counts, violations=violations
            )
        )
        # The audit record and the placeholder table side by side: one wait before the call
        # instead of two (ADR 0029). Both are written/read before anything is sent.
        if mode is EgressMode.OFF:
            await audit
            mapping: dict[str, str] = {}
        else:
            _, mapping = await asyncio.gather(
                audit, self._sanitiser.vault.lookup(ctx.tenant_id, ctx.conversation_id)
            )
        span.set_attribute("regintel.egress.placeholders", sum(counts.values()))
        return provider, outbound, PlaceholderRestorer(mapping)

    async def _sanitise_request(
        self, request: LlmRequest, ctx: EgressContext
    ) -> tuple[LlmRequest, dict[str, int]]:
        counts: dict[str, int] = {}
        messages: list[ChatMessage] = []
        for message in request.messages:
            if message.sanitised:
                # Scanned when it was stored; its placeholders still count in the audit.
                for entity_type, _ in PLACEHOLDER.findall(message.content):
                    counts[entity_type] = counts.get(entity_type, 0) + 1
                messages.append(message)
                continue
            clean = await self._sanitiser.sanitise(
                ctx.tenant_id, ctx.conversation_id, message.content
            )
            for entity_type, n in clean.counts.items():
                counts[entity_type] = counts.get(entity_type, 0) + n
            messages.append(clean.as_message(message.role))
        return request.model_copy(update={"messages": messages}), counts


def _who(ctx: EgressContext, task: str, provider: str, model: str) -> dict[str, Any]:
    return {
        "tenant_id": ctx.tenant_id,
        "user_id": ctx.user_id,
        "conversation_id": ctx.conversation_id,
        "task": task,
        "provider": provider,
        "model": model,
        "requested_mode": ctx.override_mode.value if ctx.override_mode else None,
    }
