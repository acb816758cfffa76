"""One chat turn, DESIGN.md steps 2–10, as an async stream of :mod:`engine.events`.

Ordering that matters:

- Nothing before the first token waits on the graph: evidence and active-concept descriptions
  come from the in-memory :class:`EvidenceIndex`; the only awaits are the conversation store
  and the egress sanitiser.
- Self-population starts as a task the moment the ``capture_concepts`` tool arrives and is
  awaited after the text, for at most ``graph_write_timeout``. A slower write becomes a
  warning and goes on in the background; a failed one is retried by :class:`GraphWriteRetry`.
- The turn is saved (both messages and the context, together) whatever happens after the
  request was accepted: provider error, egress block, or a client that disconnects. On
  cancellation the save runs as its own task so the cancellation cannot interrupt it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import structlog

from conversations.models import ConversationContext, NewMessage
from conversations.port import ConversationStore
from egress.client import EgressContext
from egress.policy import EgressMode
from egress.sanitiser import SanitisedText
from egress.wire import ChatMessage, Done, Error, LlmRequest, StreamChunk, Text, Tool
from engine.concepts import CAPTURE_TOOL, CAPTURE_TOOL_NAME, parse_capture_payload
from engine.events import (
    ConceptsEvent,
    DoneEvent,
    ErrorEvent,
    MetadataEvent,
    TextEvent,
    TurnEvent,
    TurnWarning,
    WarningEvent,
)
from engine.evidence import EvidenceIndex
from engine.graph_retry import GraphWriteRetry
from engine.lexicon import ConceptLexicon
from engine.prompt import PromptInputs, build_messages, detect_jurisdictions
from engine.router import LlmRouter
from engine.self_population import ResolvedConcept, SelfPopulation
from errors import InvalidInput, RegintelError

log = structlog.get_logger(__name__)
_CITATION = re.compile(r"\[([A-Za-z0-9_:.\-#/]+)\]")


class EgressGateway(Protocol):
    """What the engine needs of :class:`egress.client.EgressClient`."""

    def stream(self, request: LlmRequest, ctx: EgressContext) -> AsyncIterator[StreamChunk]: ...

    async def sanitise_message(self, ctx: EgressContext, text: str) -> SanitisedText: ...

    async def effective_mode(self, ctx: EgressContext) -> EgressMode: ...


@dataclass(frozen=True)
class TurnRequest:
    tenant_id: str
    user_id: str
    message: str
    conversation_id: str | None = None
    egress_mode: str | None = None


@dataclass(frozen=True)
class ChatLimits:
    max_message_chars: int = 8000
    history_messages: int = 8
    evidence_k: int = 6
    max_active_nodes: int = 40
    graph_write_timeout: float = 2.0


@dataclass
class _TurnState:
    answer: list[str] = field(default_factory=list)
    warnings: list[TurnWarning] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    status: str = "complete"
    population: asyncio.Task[list[ResolvedConcept]] | None = None


class ChatEngine:
    def __init__(
        self,
        *,
        store: ConversationStore,
        egress: EgressGateway,
        router: LlmRouter,
        evidence: EvidenceIndex,
        population: SelfPopulation,
        retry: GraphWriteRetry,
        lexicon: ConceptLexicon | None = None,
        limits: ChatLimits | None = None,
    ) -> None:
        self._store = store
        self._egress = egress
        self._router = router
        self._evidence = evidence
        self._population = population
        self._retry = retry
        self._lexicon = lexicon
        self._limits = limits or ChatLimits()
        self._background: set[asyncio.Task[Any]] = set()

    async def aclose(self) -> None:
        """Let background saves and graph writes finish (they must not be lost)."""
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    async def run_turn(self, request: TurnRequest) -> AsyncIterator[TurnEvent]:
        message = request.message.strip()
        if not message:
            raise InvalidInput("message must not be empty")
        if len(message) > self._limits.max_message_chars:
            raise InvalidInput(f"message is longer than {self._limits.max_message_chars} chars")
        store, tenant = self._store, request.tenant_id
        override = EgressMode(request.egress_mode) if request.egress_mode else None
        # The mode first: a refused "off" is a 403 that must not leave an empty conversation.
        mode = await self._egress.effective_mode(
            EgressContext(tenant, request.user_id, request.conversation_id or "", override)
        )
        if request.conversation_id:
            conversation = await store.get_conversation(tenant, request.conversation_id)
        else:
            conversation = await store.create_conversation(tenant, request.user_id)
        history = await store.recent_messages(
            tenant, conversation.id, self._limits.history_messages
        )
        context = await store.load_context(tenant, conversation.id)
        ctx = EgressContext(
            tenant_id=tenant,
            user_id=request.user_id,
            conversation_id=conversation.id,
            override_mode=override,
            # Nothing in the prompt needs a scan at send time: the system prompt is built from
            # the PII-free graph, history was sanitised when stored, the question just now.
            presanitised=frozenset(range(len(history) + 2)),
        )
        question = (await self._egress.sanitise_message(ctx, message)).text
        # Sanitised once, when stored; "off" (only where the tenant allows it) sends originals.
        unsanitised = mode is EgressMode.OFF
        jurisdictions = detect_jurisdictions(message)
        evidence = self._evidence.search(
            question,
            self._limits.evidence_k,
            jurisdictions,
            self._named_concepts(question, jurisdictions),
        )
        prompt = build_messages(
            PromptInputs(
                question=message if unsanitised else question,
                jurisdictions=jurisdictions,
                active=self._evidence.descriptions(context.active_node_ids),
                evidence=evidence,
                history=[
                    ChatMessage(
                        role=m.role, content=m.content if unsanitised else m.content_sanitised
                    )
                    for m in history
                ],
            )
        )
        route = self._router.route("main_chat")
        llm_request = LlmRequest(
            provider=route.provider, model=route.model, messages=prompt, tools=[CAPTURE_TOOL]
        )
        state = _TurnState()
        saved = False
        try:  # from here on, the turn is saved whatever happens (even a client gone now)
            yield MetadataEvent(conversation.id, jurisdictions, [hit.node.id for hit in evidence])
            async for event in self._stream(llm_request, ctx, state):
                yield event
            resolved = await self._await_population(state)
            if resolved:
                yield ConceptsEvent([_concept_data(r) for r in resolved])
            for warning in state.warnings:
                yield WarningEvent(warning)
            answer = "".join(state.answer)
            candidates = list(dict.fromkeys(_CITATION.findall(answer)))
            cited = [i for i in candidates if self._evidence.get(i)]
            if unknown := [i for i in candidates if ":" in i and not self._evidence.get(i)]:
                # A model citing ids the graph does not have: say so, never pass them on.
                warning = TurnWarning("unknown_citation", f"cited ids not in the graph: {unknown}")
                state.warnings.append(warning)
                yield WarningEvent(warning)
            referenced = list(dict.fromkeys([*cited, *(r.id for r in resolved)]))
            saved = True
            save = self._spawn(
                self._save(request, conversation.id, message, question, answer,
                           state.status, referenced, ctx)
            )  # fmt: skip
            try:
                await asyncio.shield(save)  # a client leaving now cannot interrupt the save
            except RegintelError as exc:
                yield ErrorEvent(exc.code, f"the conversation could not be saved: {exc.message}")
                state.status = "error"
            except Exception:
                log.exception("turn_save_failed")
                yield ErrorEvent("internal_error", "the conversation could not be saved")
                state.status = "error"
            yield DoneEvent(conversation.id, referenced, state.usage, state.warnings, state.status)
        finally:
            if not saved:  # cancelled (client gone) or failed mid-stream: keep what we have
                state.status = "partial" if state.status == "complete" else state.status
                self._spawn(
                    self._save(request, conversation.id, message, question,
                               "".join(state.answer), state.status, [], ctx)
                )  # fmt: skip

    def _named_concepts(self, question: str, jurisdictions: Sequence[str]) -> list[str]:
        """Graph concepts the question names (they focus the evidence search)."""
        if self._lexicon is None:
            return []
        primary = jurisdictions[0] if jurisdictions else None
        hits = self._lexicon.match(question, jurisdiction=primary)
        return [hit.entry.key for hit in hits if hit.entry.scheme == "graph"]

    async def _stream(
        self, llm_request: LlmRequest, ctx: EgressContext, state: _TurnState
    ) -> AsyncIterator[TurnEvent]:
        try:
            async for chunk in self._egress.stream(llm_request, ctx):
                if isinstance(chunk, Text):
                    state.answer.append(chunk.delta)
                    yield TextEvent(chunk.delta)
                elif isinstance(chunk, Tool):
                    self._on_tool(chunk, state)
                elif isinstance(chunk, Error):
                    state.status = "error"
                    yield ErrorEvent(chunk.code, chunk.error)
                    return
                elif isinstance(chunk, Done):
                    state.usage = {
                        "inputTokens": chunk.usage.input_tokens,
                        "outputTokens": chunk.usage.output_tokens,
                    }
        except RegintelError as exc:  # e.g. EgressBlocked: nothing was sent
            state.status = "error"
            yield ErrorEvent(exc.code, exc.message)
        except Exception:  # a provider bug must still end the turn cleanly, with what we have
            log.exception("provider_stream_crashed", provider=llm_request.provider)
            state.status = "error"
            yield ErrorEvent("internal_error", "the answer stopped unexpectedly")

    def _on_tool(self, chunk: Tool, state: _TurnState) -> None:
        if chunk.name != CAPTURE_TOOL_NAME:
            state.warnings.append(TurnWarning("unknown_tool", f"ignored tool {chunk.name!r}"))
            return
        try:
            concepts = parse_capture_payload(chunk.args)
        except RegintelError as exc:
            state.warnings.append(TurnWarning(exc.code, exc.message))
            return
        if state.population is None:
            task = asyncio.get_running_loop().create_task(self._population.resolve_all(concepts))
            state.population = task
            self._background.add(task)
            task.add_done_callback(self._background.discard)
            task.add_done_callback(lambda t: self._retry.on_population_done(t, concepts))

    async def _await_population(self, state: _TurnState) -> list[ResolvedConcept]:
        task = state.population
        if task is None:
            return []
        done, _ = await asyncio.wait({task}, timeout=self._limits.graph_write_timeout)
        if not done:
            state.warnings.append(
                TurnWarning("graph_write_pending", "concept capture is still being written")
            )
            return []
        exc = task.exception()
        if exc is None:
            return task.result()
        code = exc.code if isinstance(exc, RegintelError) else "graph_write_failed"
        message = exc.message if isinstance(exc, RegintelError) else "concept capture failed"
        state.warnings.append(TurnWarning(code, message))
        return []

    async def _save(
        self,
        request: TurnRequest,
        conversation_id: str,
        message: str,
        question: str,
        answer: str,
        status: str,
        referenced: Sequence[str],
        ctx: EgressContext,
    ) -> None:
        answer_sanitised = (await self._egress.sanitise_message(ctx, answer)).text if answer else ""
        await self._store.save_turn(
            request.tenant_id,
            conversation_id,
            [
                NewMessage(role="user", content=message, content_sanitised=question),
                NewMessage(
                    role="assistant", content=answer, content_sanitised=answer_sanitised,
                    status=status, referenced_nodes=list(referenced),
                ),
            ],
            ConversationContext(active_node_ids=list(referenced)),
            max_active_nodes=self._limits.max_active_nodes,
        )  # fmt: skip

    def _spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        task.add_done_callback(_log_failure)
        return task


def _concept_data(resolved: ResolvedConcept) -> dict[str, Any]:
    return {
        "id": resolved.id,
        "prefLabel": resolved.pref_label,
        "status": resolved.status,
        "created": resolved.created,
        "matchedBy": resolved.matched_by,
        "alignedWith": list(resolved.aligned_with),
    }


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("background_task_failed", error=repr(task.exception()))
