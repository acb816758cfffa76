"""``EgressClient``: the only way out to an LLM provider.

Per call: resolve the mode (:mod:`egress.policy`), check the tenant's provider and model
allow-lists, sanitise what is new, write one audit record, then stream from the provider and
restore placeholders in the text shown to the same user.

* ``enforce``: sanitised request; an allow-list violation raises :class:`errors.EgressBlocked`
  before anything is sent.
* ``report-only``: sanitised request; violations are recorded in the audit, never blocked.
* ``off``: the request goes unchanged (only where the tenant allows it).

Sanitise once: the engine calls :meth:`EgressClient.sanitise_message` when it stores a message
and later sends the stored (sanitised) text. Provenance travels with the message: a
:class:`~egress.wire.ChatMessage` with ``sanitised=True`` is sent as it is; every other message
is scanned here, whatever its position, so a prompt part added later with user text in it cannot
slip through unscanned.

``Tool`` chunks are passed through with placeholders intact: tool payloads feed the shared
rules graph, which must hold no PII.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from egress.audit import AuditSink, EgressAuditRecord
from egress.policy import EgressMode, PolicyStore, resolve_mode, tenant_floor
from egress.restorer import PlaceholderRestorer
from egress.sanitiser import PLACEHOLDER, SanitisedText, Sanitiser
from egress.wire import ChatMessage, Done, LlmProvider, LlmRequest, StreamChunk, Text
from errors import EgressBlocked, InvalidInput

__all__ = [
    "EgressClient",
    "EgressContext",
]


@dataclass(frozen=True, slots=True)
class EgressContext:
    """Who a call is for, and the per-call mode override the caller asked for."""

    tenant_id: str
    user_id: str
    conversation_id: str
    override_mode: EgressMode | None = None


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
    ) -> None:
        self._providers = dict(providers)
        self._sanitiser = sanitiser
        self._policies = policies
        self._audit = audit
        self._default_mode = default_mode

    async def sanitise_message(self, ctx: EgressContext, text: str) -> SanitisedText:
        """Sanitise one message once, when it is stored (placeholders stable per conversation)."""
        return await self._sanitiser.sanitise(ctx.tenant_id, ctx.conversation_id, text)

    async def effective_mode(self, ctx: EgressContext) -> EgressMode:
        """The mode a call with ``ctx`` runs in; raises ``EgressBlocked`` for a refused ``off``."""
        tenant = await self._policies.tenant_policy(ctx.tenant_id)
        user = await self._policies.user_policy(ctx.tenant_id, ctx.user_id)
        return resolve_mode(self._default_mode, tenant, user, ctx.override_mode)

    async def stream(
        self, request: LlmRequest, ctx: EgressContext
    ) -> AsyncGenerator[StreamChunk, None]:
        """Send ``request`` under the effective mode and stream the reply, placeholders restored.

        Raises :class:`errors.EgressBlocked` before sending when the mode or the request is
        refused.
        """
        record: dict[str, Any] = {
            "tenant_id": ctx.tenant_id,
            "user_id": ctx.user_id,
            "conversation_id": ctx.conversation_id,
            "task": request.task,
            "provider": request.provider,
            "model": request.model,
            "requested_mode": ctx.override_mode.value if ctx.override_mode else None,
        }
        tenant = await self._policies.tenant_policy(ctx.tenant_id)
        try:
            mode = await self.effective_mode(ctx)
        except EgressBlocked as exc:
            await self._audit.record(
                EgressAuditRecord(
                    **record, effective_mode="refused", blocked=True, reason=exc.message
                )
            )
            raise
        violations = []
        if not tenant.provider_allowed(request.provider):
            violations.append(f"provider_not_allowed:{request.provider}")
        if not tenant.model_allowed(request.model):
            violations.append(f"model_not_allowed:{request.model}")
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
            raise InvalidInput(f"unknown LLM provider {request.provider!r}")

        counts: dict[str, int] = {}
        outbound = request
        if mode is not EgressMode.OFF:
            outbound, counts = await self._sanitise_request(request, ctx)
        await self._audit.record(
            EgressAuditRecord(
                **record, effective_mode=mode.value, counts=counts, violations=violations
            )
        )

        restorer = PlaceholderRestorer(
            await self._sanitiser.vault.lookup(ctx.tenant_id, ctx.conversation_id)
            if mode is not EgressMode.OFF
            else {}
        )
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
