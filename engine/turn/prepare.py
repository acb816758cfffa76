"""Preparing a turn: everything that may refuse the request, the prompt, and the question stored.

:meth:`TurnPreparer.prepare` runs its steps in this order, and the order carries meaning:

1. :meth:`~TurnPreparer.checked_message` — the cheapest refusal first (empty, too long):
   nothing is read for a request that cannot be answered.
2. :meth:`~TurnPreparer.bind_egress` — the main-chat route and the egress policies, read once
   and carried by the turn's context to every egress call of the turn (ADR 0029, second
   pass). It comes before the conversation: a refused ``off`` is a 403 that must not leave an
   empty conversation behind (egress audits the refusal).
3. :meth:`~TurnPreparer.load_conversation` — the conversation, its history and its context in
   one unit of work (ADR 0029); another user's private conversation is a 404, one they shared
   is read-only (a 403). A new conversation is created here, and only here. The history and
   the context are those of the turn's branch: the active one, or the branch an edit or a
   regeneration starts from (ADR 0062).
4. :meth:`~TurnPreparer.sanitise` — the question, and every ``interrupted`` answer of the
   history, through egress, now that the context names the conversation (ADR 0038).
5. :meth:`~TurnPreparer.find_evidence` — in a thread, off the event loop (ADR 0080): the turn's
   jurisdictions, the date the question is about, the evidence in force then (kept per tenant
   until the index changes) and the relevance gate's refusal; then the dates the timeline engine
   computes (ADR 0033) and the material changes since the conversation's last turn (ADR 0035).
   All from the in-memory :class:`EvidenceIndex`.
6. :meth:`~TurnPreparer.know_active_concepts` — the only graph read before the first token: by
   id, and only when the conversation's active concepts are unknown to this worker's index
   (written by another worker since its last rebuild), so that the prompt can describe them.
   A conversation whose concepts this worker knows reads nothing (ADR 0042).
   6b. :class:`engine.turn.what_if.WhatIfStep` — a message that states facts or asks a
   what-if (a cheap regex check first): the scenario engine runs now, before the call, and
   its parameter nodes join the evidence (ADR 0063).
7. :func:`engine.prompt.build_messages` — the prompt from the aspects, its history within the
   conversation's token budget: the older messages of the branch replaced by an extractive
   summary (:meth:`~TurnPreparer.compact_history`, ADR 0065), stored with the question.
8. :meth:`~TurnPreparer.store_question` — last, so a refused turn stores nothing: the question
   and an empty answer marked ``streaming``, in one transaction, before the model is called
   (a crash keeps the question; the answer is written as it streams, ADR 0018), after the
   branch's last message (a regeneration stores the answer alone).

Every step before 8 raises :class:`errors.RegintelError` for a refusal; nothing has been sent or
saved when it does, so the API answers a plain 4xx.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date
from typing import Protocol

from opentelemetry.context import Context
from opentelemetry.trace import Tracer

from conversations.models import (
    ConversationContext,
    MessageStatus,
    NewMessage,
    NewSummary,
    StoredMessage,
    StoredSummary,
)
from conversations.port import TurnStore
from egress.client import EgressContext
from egress.policy import EgressMode
from egress.sanitiser import SanitisedText
from egress.wire import ChatMessage, LlmRequest, StreamChunk
from engine.abbreviations import spelled_out
from engine.answer_kind import kind_first, party_first
from engine.answer_penalties import fines_first
from engine.as_at import AsAt, resolve_as_at, same_year_as, split_year_jurisdiction
from engine.compaction import Compacted, compact, estimate_tokens, reusable_summary
from engine.concepts import CAPTURE_TOOL
from engine.coverage import Uncovered, evidence_texts, named_designators, uncovered
from engine.evidence import (
    Evidence,
    EvidenceHit,
    EvidenceIndex,
    describe,
    evidence_text,
    jurisdiction_of,
    node_title,
)
from engine.evidence_cache import EvidenceCache
from engine.facts_periods import with_year_periods
from engine.followups import follow_up_query, with_earlier_evidence
from engine.grounding import refusal_sentence
from engine.lexicon import ConceptLexicon
from engine.model_summary import SummaryJob, summary_job
from engine.prompt import Aspect, PromptInputs, build_messages, detect_jurisdictions
from engine.quotes import with_answering_passages
from engine.retrieval.tokenise import tokenise
from engine.router import LlmRouter, Route
from engine.timeline import (
    Asked,
    TimelineRule,
    asks_tax_year_bounds,
    concerns_timeline,
    when_all,
)
from engine.turn.what_if import WhatIfOutcome, WhatIfStep
from errors import ConversationReadOnly, InvalidInput
from graph.models import utc_timestamp
from infra.spans import stage

__all__ = [
    "ChatLimits",
    "EgressGateway",
    "FoundEvidence",
    "LoadedConversation",
    "PreparedTurn",
    "TurnPreparer",
    "TurnRequest",
    "conversation_jurisdictions",
]


_NOT_HISTORY: frozenset[str] = frozenset({"streaming", "quota_exceeded"})


class EgressGateway(Protocol):
    """What the turn needs of :class:`egress.client.EgressClient`."""

    def stream(
        self, request: LlmRequest, ctx: EgressContext
    ) -> AsyncGenerator[StreamChunk, None]: ...

    async def sanitise_message(self, ctx: EgressContext, text: str) -> SanitisedText: ...

    async def effective_mode(
        self, ctx: EgressContext, *, task: str = ..., provider: str = ..., model: str = ...
    ) -> EgressMode: ...

    async def bind_policy(
        self, ctx: EgressContext, *, task: str = ..., provider: str = ..., model: str = ...
    ) -> EgressContext: ...


@dataclass(frozen=True)
class TurnRequest:
    tenant_id: str
    user_id: str
    message: str
    conversation_id: str | None = None
    egress_mode: EgressMode | None = None  # the per-call override the client asked for
    as_at: date | None = None  # the request's ``asAt``; a date in the question wins (ADR 0032)
    # A branch (ADR 0062): ``message`` replaces this question of the conversation, or this
    # answer is asked again (``message`` unused); the earlier branch is kept.
    edit_of: str | None = None
    regenerate_of: str | None = None
    # link the conversation to this stored scenario of the user's (issue 28, ADR 0063)
    scenario_id: str | None = None


@dataclass(frozen=True)
class ChatLimits:
    max_message_chars: int = 8000
    history_messages: int = 8
    evidence_k: int = 6
    max_active_nodes: int = 40
    # Compaction (ADR 0065): the estimated tokens a prompt may hold (0: off, the last
    # ``history_messages`` only), and how many messages of the branch a turn reads for it.
    conversation_token_budget: int = 0
    compaction_path_messages: int = 2000
    graph_write_timeout: float = 2.0
    answer_write_interval: float = 0.25  # at most one checkpoint of a streaming answer per …
    answer_write_min_chars: int = 64  # … and only once this much new text arrived, or
    answer_keepalive: float = 10.0  # … this often regardless (a third of the store's lease)


@dataclass(frozen=True)
class PreparedTurn:
    """A turn that was accepted: everything the stream needs, nothing sent yet."""

    request: TurnRequest
    conversation_id: str
    message: str  # as the user typed it (stored as ``content``)
    question: str  # sanitised (stored as ``content_sanitised``)
    ctx: EgressContext
    jurisdictions: list[str]
    evidence: Evidence
    llm_request: LlmRequest
    answer_id: str  # the assistant message, saved ``streaming`` before the model is called
    as_at: AsAt | None = None  # the window the evidence was in force in
    # Material changes of the conversation's active nodes since its last turn (ADR 0035).
    changed: list[dict[str, str]] = field(default_factory=list)
    # The conversation's active node ids as the turn found them: the concepts it captured
    # itself (a provisional one met again is its own; ADR 0020).
    active: tuple[str, ...] = ()
    # The turn's trace (its ``turn`` span), carried from prepare to stream; None untraced.
    trace: Context | None = field(default=None, compare=False, repr=False)
    # The what-if the scenario engine computed before the call (issue 28), for ``done``.
    scenario: dict[str, object] | None = None
    # The summary this turn stored (compaction), for a model's summary after the turn
    # (engine.model_summary); None: nothing summarised, or stored already.
    summary_job: SummaryJob | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class LoadedConversation:
    """Step 3's output: the conversation as the turn reads it."""

    conversation_id: str
    history: list[StoredMessage]  # oldest first; another turn's answer still streaming left out
    active: list[str]  # the context's active node ids
    parent_id: str | None = None  # where the turn's messages attach (ADR 0062)
    question: str | None = None  # a regeneration's: the stored question, asked again
    summaries: tuple[StoredSummary, ...] = ()  # its summaries (compaction, ADR 0065)
    # the stored summary ``history`` follows (ADR 0065 addendum), and the branch's first message
    base: StoredSummary | None = None
    first: StoredMessage | None = None
    pinned: tuple[StoredMessage, ...] = ()  # the owner's pins on the branch (ADR 0065)


@dataclass(frozen=True)
class FoundEvidence:
    """Step 5's output: what the prompt may cite, and why it may not."""

    jurisdictions: list[str]
    as_at: AsAt
    evidence: Evidence  # empty when the gate refused
    refusal: str | None  # the gate's sentence for the model; None: answerable
    computed: list[tuple[str, str]]  # (timeline rule id, date computed at the turn's date)
    changed: list[dict[str, str]]  # material changes of the active nodes since the last turn


class TurnPreparer:
    """The steps of :meth:`prepare`, each with its inputs and outputs in its signature."""

    def __init__(
        self,
        *,
        store: TurnStore,
        egress: EgressGateway,
        router: LlmRouter,
        evidence: EvidenceIndex,
        lexicon: ConceptLexicon | None,
        limits: ChatLimits,
        aspects: Sequence[Aspect],
        today: Callable[[], date],
        tracer: Tracer,
        evidence_cache_entries: int = 256,
        what_if: WhatIfStep | None = None,
        evidence_threads: int = 2,
    ) -> None:
        self._what_if = what_if
        # Step 5 runs in a thread (the query's embedding and the scoring are CPU work: on the
        # event loop they would hold every stream's next chunk); at most this many at once.
        self._evidence_threads = asyncio.Semaphore(max(1, evidence_threads))
        self._store = store
        self._egress = egress
        self._router = router
        self._evidence = evidence
        self._lexicon = lexicon
        self._limits = limits
        self._aspects = tuple(aspects)
        self._today = today
        self._tracer = tracer
        self._evidence_cache = EvidenceCache(evidence_cache_entries)

    async def prepare(self, request: TurnRequest) -> PreparedTurn:
        """Steps 1–8 of the module docstring, in that order.

        Raises :class:`errors.InvalidInput`, :class:`errors.EgressBlocked` (a refused ``off``),
        :class:`errors.NotFound` (unknown or another tenant's conversation) or a store error;
        nothing has been sent or saved when it does.
        """
        regenerating = request.regenerate_of is not None  # its question is the stored one
        message = "" if regenerating else self.checked_message(request.message)
        route = self._router.route("main_chat", request.tenant_id)
        ctx, mode = await self.bind_egress(request, route)
        if request.scenario_id is not None and self._what_if is not None:  # 404 before a write
            await self._what_if.check_link(request.tenant_id, request.user_id, request.scenario_id)
        loaded = await self.load_conversation(request)
        message = message if loaded.question is None else loaded.question
        ctx = replace(ctx, conversation_id=loaded.conversation_id)
        question, history = await self.sanitise(ctx, message, loaded.history)
        found = await self.find_evidence_off_loop(
            request, message, question.text, history, loaded.active
        )
        await self.know_active_concepts(loaded.active)
        scenario = None  # step 6b: a what-if, computed before the call (engine.turn.what_if)
        if self._what_if is not None:
            scenario = await self._what_if.run(
                request.tenant_id,
                request.user_id,
                loaded.conversation_id,
                message,
                history,
                link=request.scenario_id,
            )
        if scenario is not None:
            evidence, refusal = scenario.evidence(found.evidence, found.refusal, self._evidence)
            found = replace(found, evidence=evidence, refusal=refusal)
        unsanitised = mode is EgressMode.OFF  # "off" (where the tenant allows it) sends originals
        what_if = await self.what_if_section(ctx, scenario, unsanitised)
        inputs = PromptInputs(
            question=ChatMessage(role="user", content=message)
            if unsanitised
            else question.as_message("user"),
            jurisdictions=found.jurisdictions,
            active=self._evidence.descriptions(loaded.active),
            evidence=found.evidence.hits,
            refusal=found.refusal,
            as_at=found.as_at.label(),
            as_at_named=found.as_at.origin != "today",
            computed=found.computed,
            changed=[(c["nodeId"], c["description"]) for c in found.changed],
            what_if=what_if,
            what_if_sanitised=not unsanitised,
        )
        compacted = self.compact_history(inputs, history, loaded)
        prompt = build_messages(
            replace(
                inputs,
                history=[_history_message(m, unsanitised) for m in compacted.window],
                earlier=compacted.prompt_lines(),
                earlier_count=compacted.summarised,
                earlier_sanitised=not unsanitised,
            ),
            self._aspects,
        )
        answer_id = await self.store_question(
            request, loaded, message, question, summary=compacted.record
        )
        return PreparedTurn(
            request=request,
            conversation_id=loaded.conversation_id,
            message=message,
            question=question.text,
            ctx=ctx,
            jurisdictions=found.jurisdictions,
            evidence=found.evidence,
            llm_request=LlmRequest(
                provider=route.provider, model=route.model, messages=prompt, tools=[CAPTURE_TOOL]
            ),
            answer_id=answer_id,
            as_at=found.as_at,
            changed=found.changed,
            active=tuple(loaded.active),
            scenario=scenario.data() if scenario is not None else None,
            summary_job=None
            if compacted.record is None
            else summary_job(
                loaded.conversation_id,
                compacted.record.last_message_id,
                compacted.base,
                compacted.added,
                uncovered_tokens=compacted.uncovered_tokens,
            ),
        )

    async def what_if_section(
        self, ctx: EgressContext, scenario: WhatIfOutcome | None, unsanitised: bool
    ) -> str | None:
        """Step 6b's prompt section: egress scans the lines that can hold the user's own text,
        each alone, as it scans the question, so the system message stays sanitised and is not
        scanned whole (its graph text passed ingress; the engine's rows are its own numbers and
        words: ADR 0063 addenda); in egress ``off`` the original."""
        lines = scenario.section_lines() if scenario is not None else None
        if lines is None:
            return None
        if unsanitised:
            return "\n".join(line for line, _ in lines)
        sent = [
            (await self._egress.sanitise_message(ctx, line)).text if scan else line
            for line, scan in lines
        ]
        return "\n".join(sent)

    async def store_refused(self, request: TurnRequest, status: MessageStatus) -> str:
        """A turn refused before it was prepared (a tenant past its hard quota, ADR 0050): the
        question alone, with ``status`` and no answer, where :meth:`prepare` would have stored
        it (its conversation, created if none was named; the active branch, or an edit's new
        one), after steps 1–4 only: nothing is searched and no prompt is built, so nothing can
        be sent. The conversation's id. A regeneration stores nothing (its question is
        stored already). Bad input and unknown conversations raise as in :meth:`prepare`."""
        if request.regenerate_of is not None:
            if not request.conversation_id:
                raise InvalidInput("an edit or a regeneration names its conversation")
            return request.conversation_id
        message = self.checked_message(request.message)
        route = self._router.route("main_chat", request.tenant_id)
        ctx, _ = await self.bind_egress(request, route)
        loaded = await self.load_conversation(request)
        ctx = replace(ctx, conversation_id=loaded.conversation_id)
        question = await self._egress.sanitise_message(ctx, message)
        await self._store.save_turn(
            request.tenant_id,
            loaded.conversation_id,
            [
                NewMessage(
                    role="user", content=message, content_sanitised=question.text, status=status
                )
            ],
            ConversationContext(),
            user_id=request.user_id,
            max_active_nodes=self._limits.max_active_nodes,
            parent_id=loaded.parent_id,
        )
        return loaded.conversation_id

    def compact_history(
        self, inputs: PromptInputs, history: list[StoredMessage], loaded: LoadedConversation
    ) -> Compacted:
        """Step 7's history (ADR 0065): within the conversation's token budget, what the prompt
        without history leaves; the older messages of the branch summarised (continuing the
        stored summary ``loaded.base`` when the history follows it). No budget: the last
        ``history_messages``, as ever."""
        budget, window = self._limits.conversation_token_budget, self._limits.history_messages
        if budget <= 0:
            return Compacted(window=history[-window:] if window else [])
        used = sum(estimate_tokens(m.content) for m in build_messages(inputs, self._aspects))
        return compact(
            history,
            budget - used,
            window,
            loaded.summaries,
            base=loaded.base,
            first=loaded.first,
            keep_tokens=budget,
            pinned_messages=loaded.pinned,
        )

    def checked_message(self, text: str) -> str:
        """Step 1: the message, stripped; :class:`errors.InvalidInput` if empty or too long."""
        message = text.strip()
        if not message:
            raise InvalidInput("message must not be empty")
        if len(message) > self._limits.max_message_chars:
            raise InvalidInput(f"message is longer than {self._limits.max_message_chars} chars")
        return message

    async def bind_egress(
        self, request: TurnRequest, route: Route
    ) -> tuple[EgressContext, EgressMode]:
        """Step 2: the turn's egress context with its policies bound, and the effective mode."""
        bound = await self._egress.bind_policy(
            EgressContext(
                request.tenant_id,
                request.user_id,
                request.conversation_id or "",
                request.egress_mode,
            ),
            task="main_chat",
            provider=route.provider,
            model=route.model,
        )
        return bound, await self._egress.effective_mode(bound)  # from the bound policies

    async def load_conversation(self, request: TurnRequest) -> LoadedConversation:
        """Step 3: the request's conversation (read-only unless the user owns it), or a new one.

        The history and the context are those of the branch the turn continues: the active
        one, or for an edit or a regeneration the branch up to the message it branches at
        (ADR 0062); a message of no branch of this conversation is :class:`errors.NotFound`."""
        tenant, user = request.tenant_id, request.user_id
        branch_at = request.edit_of or request.regenerate_of
        if not request.conversation_id:  # a conversation created now: no history, no context
            if branch_at is not None:
                raise InvalidInput("an edit or a regeneration names its conversation")
            created = await self._store.create_conversation(tenant, user)
            return LoadedConversation(created.id, [], [])
        regenerating = request.regenerate_of is not None  # the question is on the branch too
        limits = self._limits  # with a token budget, the whole path (compaction, ADR 0065) …
        compacting = limits.conversation_token_budget > 0
        limit = (limits.compaction_path_messages if compacting else 0) or (
            limits.history_messages + (1 if regenerating else 0)
        )
        # … or, continuing the turn's branch, what follows its stored summary (ADR 0065 addendum)
        since_summary = compacting and branch_at is None
        state = await self._store.load_turn(
            tenant,
            request.conversation_id,
            limit,
            user_id=user,
            branch_at=branch_at,
            since_summary=since_summary,
            pinned=compacting,
        )
        base = reusable_summary(state.summaries, state.summarised_through)
        first = state.first
        if state.summarised_through is not None and (
            base is None or first is None or first.status in _NOT_HISTORY
        ):  # a rollback since, or no first question to pin: the whole branch, as before
            base, first = None, None
            state = await self._store.load_turn(
                tenant,
                request.conversation_id,
                limit,
                user_id=user,
                branch_at=branch_at,
                pinned=compacting,
            )
        if state.conversation.user_id != user:
            raise ConversationReadOnly("only its owner may post into a shared conversation")
        # an answer still streaming is not history yet; a question refused for the quota
        # (ADR 0050) was never answered and never is: neither joins the prompt
        history = [m for m in state.history if m.status not in _NOT_HISTORY]
        question = None
        if state.branched is not None:
            if state.branched.role != ("assistant" if regenerating else "user"):
                kind = "an answer" if regenerating else "a question"
                raise InvalidInput(f"message {state.branched.id} is not {kind}")
            if regenerating:  # the answer's question, asked again: the branch's last message
                asked = history.pop() if history else None
                if asked is None or asked.id != state.parent_id or asked.role != "user":
                    raise InvalidInput(f"answer {state.branched.id} follows no question")
                question = asked.content
        return LoadedConversation(
            state.conversation.id,
            history,
            list(state.context.active_node_ids),
            parent_id=state.parent_id,
            question=question,
            summaries=state.summaries,
            base=base,
            first=first,
            pinned=state.pinned,
        )

    async def sanitise(
        self, ctx: EgressContext, message: str, history: list[StoredMessage]
    ) -> tuple[SanitisedText, list[StoredMessage]]:
        """Step 4: the sanitised question, and the history with each ``interrupted`` answer
        sanitised now. Its process died before the final save, and checkpoints store no
        sanitised form (ADR 0038); every other message was sanitised once, when stored."""
        question = await self._egress.sanitise_message(ctx, message)
        for n, stored in enumerate(history):
            if stored.status == "interrupted" and stored.content:
                text = (await self._egress.sanitise_message(ctx, stored.content)).text
                history[n] = stored.model_copy(update={"content_sanitised": text})
        return question, history

    async def find_evidence_off_loop(
        self,
        request: TurnRequest,
        message: str,
        question: str,
        history: Sequence[StoredMessage],
        active: Sequence[str],
    ) -> FoundEvidence:
        """Step 5 (:meth:`find_evidence`) in a worker thread, at most ``evidence_threads`` at
        once (ADR 0080): the question's embedding (numpy, which releases the GIL in its matrix
        products, or a remote embedder's HTTP call) and the retrieval scoring took ~45% of a
        turn's CPU on the event loop, where every admitted stream's next chunk waited behind
        them. The index's tables are replaced at a rebuild (built in a thread, as before) or by
        :meth:`EvidenceIndex.remember`, never changed in place, and the evidence cache and the
        query-vector cache take a lock; the span context goes with the call."""
        async with self._evidence_threads:
            return await asyncio.to_thread(
                self.find_evidence, request, message, question, history, active
            )

    def find_evidence(
        self,
        request: TurnRequest,
        message: str,
        question: str,
        history: Sequence[StoredMessage],
        active: Sequence[str],
    ) -> FoundEvidence:
        """Step 5: jurisdictions, the date asked about, the evidence, the gate's refusal, the
        computed dates and the material changes; nothing here waits on the graph."""
        jurisdictions = conversation_jurisdictions(message, history)
        # "PA", "POA", "the 20% band": the official terms the rules say (seeds/abbreviations.yaml).
        message, question = (
            spelled_out(message, jurisdictions),
            spelled_out(question, jurisdictions),
        )
        index, tenant = self._evidence, request.tenant_id
        with stage("turn.retrieval", tracer=self._tracer) as span:
            # The date the question is about (or the request's asAt, or today): evidence is
            # what was in force then; the words that named it are not searched for (ADR 0032).
            as_at = resolve_as_at(
                question, request.as_at, self._today(), jurisdictions, index.act_start
            )
            query = as_at.without_date(question)
            focus = self._named_concepts(query, jurisdictions)
            # A follow-up ("And what about children?") is searched with the previous question.
            names_act = index.act_start(query) is not None
            followed = follow_up_query(query, history, bool(focus) or names_act, names_act)
            # A follow-up's own words, those the previous question did not say (the aspect).
            own: frozenset[str] = frozenset()
            if followed != query:
                said = set(tokenise(followed[: -len(query)] if followed.endswith(query) else ""))
                own = frozenset(tokenise(query)) - said
            earlier = ""  # the previous question a follow-up is searched with, undated
            if followed != query:  # the date asked before
                said_before = followed[: -len(query)] if followed.endswith(query) else followed
                before = resolve_as_at(
                    said_before, request.as_at, self._today(), jurisdictions, index.act_start
                )
                # The earlier question's date is never searched for either ("same for
                # 2024/25?" after "… 2025/26?": "2025/26" read as an act's number).
                earlier = before.without_date(said_before, " ; ")
                followed = before.without_date(said_before) + " " + query
                if as_at.origin != "question":
                    # "What if the disposal had been on 14 November instead?", "and the Mar/Apr
                    # one?": the new day or months, in the year asked before, not the earlier
                    # question's date repeated.
                    moved = same_year_as(question, before)
                    as_at = moved or (before if before.origin == "question" else as_at)
            query = as_at.without_date(followed)
            # What the coverage check reads: a date's words mark a boundary there.
            gated = " ".join(f"{earlier} {as_at.without_date(question, ' ; ')}".split())
            focus = focus or self._named_concepts(query, jurisdictions)
            window = as_at.window()
            k = self._limits.evidence_k
            # The same question against the same index finds the same evidence: kept per
            # tenant until the index changes (engine.evidence_cache, ADR 0029 third pass).
            evidence = self._evidence_cache.search(
                index.generation,
                tenant,
                query,
                k,
                jurisdictions,
                focus,
                window,
                lambda: index.search(query, k, jurisdictions, focus, as_at=window),
            )
            # Concepts say what a thing is, not what it is worth: as many more hits as the
            # search gave concepts, so that k rules and provisions can still be quoted (the
            # narrower seeded concepts, ADR 0060 addendum, took half of a follow-up's hits).
            if wanted := sum(hit.node.label == "Concept" for hit in evidence.hits):
                wider = self._evidence_cache.search(
                    index.generation,
                    tenant,
                    query,
                    k + wanted,
                    jurisdictions,
                    focus,
                    window,
                    lambda: index.search(query, k + wanted, jurisdictions, focus, as_at=window),
                )
                if evidence.answerable:
                    evidence = Evidence(hits=wider.hits, verdict=evidence.verdict)
            span.set_attributes(
                {
                    "regintel.evidence.hits": len(evidence.hits),
                    "regintel.evidence.answerable": evidence.answerable,
                    "regintel.evidence.jurisdictions": len(jurisdictions),
                    "regintel.as_at.origin": as_at.origin,
                }
            )
        refusal = None if evidence.answerable else refusal_sentence(evidence.verdict)
        if refusal is None and (gap := self._uncovered(gated, jurisdictions, evidence, focus)):
            refusal, evidence = gap.sentence, Evidence(hits=[], verdict=gap.verdict)
        if refusal is not None:  # the gate decided: nothing is evidence, the model is told so
            evidence = Evidence(hits=[], verdict=evidence.verdict)
        else:  # each provision quoted by the parts that answer the question (issue 23)
            # The kind of value asked (a rate, a threshold) and the band its amounts name first.
            evidence = kind_first(
                _aspect_first(evidence, own),
                as_at.without_date(question),
                query,
                wider=lambda: self._evidence_cache.search(
                    index.generation,
                    tenant,
                    query,
                    3 * k,
                    jurisdictions,
                    focus,
                    window,
                    lambda: index.search(query, 3 * k, jurisdictions, focus, as_at=window),
                ),
            )
            # The party a contribution is asked of (employee, employer): its rules first.
            evidence = party_first(evidence, as_at.without_date(question))
            evidence = self._designated_first(evidence, query, jurisdictions)
            # A fine's amount asked of an act: the articles that set its fines first.
            evidence = fines_first(
                evidence,
                query,
                index.named_acts(query),
                index.articles_of,
                lambda node: EvidenceHit(
                    node=node,
                    text=evidence_text(node, act=index.get(str(node.properties["instrument"]))),
                    score=0.0,
                ),
            )
            evidence = _rules_before_concepts(evidence)
            if as_at.origin != "question":  # the year's other periods of a value found today
                evidence = with_year_periods(evidence, index.get)
            evidence = with_answering_passages(evidence, query, own)
            evidence = with_earlier_evidence(evidence, active, index.get)
        return FoundEvidence(
            jurisdictions=jurisdictions,
            as_at=as_at,
            evidence=evidence,
            refusal=refusal,
            computed=self._computed_dates(f"{message} {query}", evidence, as_at, jurisdictions),
            changed=self._changed_since_last_turn(active, history),
        )

    async def know_active_concepts(self, active: Sequence[str]) -> None:
        """Step 6: the active concepts this worker's index does not know yet (written by another
        worker since its last rebuild) read by id, so the prompt describes them; a read only
        when some are missing."""
        await self._evidence.ensure_known(active)

    async def store_question(
        self,
        request: TurnRequest,
        loaded: LoadedConversation,
        message: str,
        question: SanitisedText,
        *,
        summary: NewSummary | None = None,
    ) -> str:
        """Step 8: the question and an empty ``streaming`` answer, both or neither, after the
        message the turn's branch ends at (a regeneration stores the answer alone, after its
        question); they become the active branch. The answer's id."""
        messages = [
            NewMessage(role="assistant", content="", content_sanitised="", status="streaming")
        ]
        if loaded.question is None:
            messages.insert(
                0, NewMessage(role="user", content=message, content_sanitised=question.text)
            )
        saved = await self._store.save_turn(
            request.tenant_id,
            loaded.conversation_id,
            messages,
            ConversationContext(),
            user_id=request.user_id,
            max_active_nodes=self._limits.max_active_nodes,
            parent_id=loaded.parent_id,
            summary=summary,
        )
        return saved[-1].id

    def _designated_first(
        self, evidence: Evidence, query: str, jurisdictions: Sequence[str]
    ) -> Evidence:
        """The rules whose title says the group or class the question names ("CAT Group B
        threshold" for "the Group B threshold") first: found by the search, in its order, then
        up to three it ranked below the cut (the other groups share every other word)."""
        designators = named_designators(query)
        if not designators or not evidence.hits:
            return evidence
        titled = {
            node.id: node
            for designator in designators
            for node in self._evidence.rules_titled(designator, jurisdictions)
        }
        if not titled:
            return evidence
        found = [hit for hit in evidence.hits if hit.node.id in titled]
        known = {hit.node.id for hit in found}
        added = [
            EvidenceHit(node=node, text=describe(node), score=found[0].score if found else 0.0)
            for node_id, node in titled.items()
            if node_id not in known
        ][:3]
        rest = [hit for hit in evidence.hits if hit.node.id not in titled]
        return Evidence(hits=[*found, *added, *rest], verdict=evidence.verdict)

    def _uncovered(
        self, query: str, jurisdictions: list[str], evidence: Evidence, focus: list[str]
    ) -> Uncovered | None:
        """What the graph holds no rule for, though the gate let it through (issue 23)."""
        index = self._evidence

        def rules_saying(words: str, where: Sequence[str]) -> list[str]:
            # What a search finds, and every rule that says the words however it ranks.
            found = evidence_texts(index.search(words, 10, list(where)))
            return found + index.texts_saying(words, where)

        named_act = index.act_start(query) is not None
        return uncovered(
            query,
            jurisdictions,
            evidence,
            names_act=named_act,
            names_concept=bool(focus),
            rules_saying=rules_saying,
            rules_titled=index.rules_titled,
        )

    def _named_concepts(self, question: str, jurisdictions: Sequence[str]) -> list[str]:
        """Graph concepts the question names (they focus the evidence search)."""
        if self._lexicon is None:
            return []
        primary = jurisdictions[0] if jurisdictions else None
        hits = self._lexicon.match(question, jurisdiction=primary)
        return [hit.entry.key for hit in hits if hit.entry.scheme == "graph"]

    def _changed_since_last_turn(
        self, active: Sequence[str], history: Sequence[StoredMessage]
    ) -> list[dict[str, str]]:
        """Material changes (ADR 0035) of the nodes the conversation relied on, recorded after
        its last stored message; from the in-memory index (nothing here waits on the graph)."""
        if not active or not history:
            return []
        last = max(m.created_at for m in history)
        since = utc_timestamp(last if last.tzinfo else last.replace(tzinfo=UTC))
        return [
            {
                "nodeId": str(event.properties.get("change_of") or ""),
                "changeId": event.id,
                "description": str(event.properties.get("description") or ""),
                "at": str(event.properties.get("created_at") or ""),
            }
            for event in self._evidence.changes_since(active, since)
        ]

    def _computed_dates(
        self, question: str, evidence: Evidence, as_at: AsAt, jurisdictions: Sequence[str] = ()
    ) -> list[tuple[str, str]]:
        """Dates the timeline engine computes from the evidence's ``Timeline`` rules (and the
        rules its nodes ``HAS_TIMELINE``), at the turn's date, for a question about a timeline
        (ADR 0033). The rules join the evidence, so the answer may cite them."""
        if not evidence.hits or not concerns_timeline(question):
            return []
        known = set(evidence.ids())
        acts = self._evidence.named_acts(question)
        if not _NATIONAL & set(jurisdictions):
            # A form of one country named without the country ("CT1 … year end", "Form 12
            # deadline?") decides it: no UK Self Assessment dates for an Irish return.
            forms = _NATIONAL & set(self._evidence.form_jurisdictions(question))
            if len(forms) == 1:
                jurisdictions = [*jurisdictions, *forms]
                other = _NATIONAL - forms
                evidence.hits[:] = [
                    hit
                    for hit in evidence.hits
                    if not (hit.node.label == "Timeline" and jurisdiction_of(hit.node) in other)
                ]
        # The obligations the question names lend their dates however the search ranked them,
        # first: they are what was asked about.
        named = self._evidence.obligations_named(question, jurisdictions)
        ids = [*named, *(i for i in evidence.ids() if i not in named)]
        nodes = {node.id: node for node in self._evidence.timelines_of(ids, acts)}
        rules = [r for n in nodes.values() if (r := TimelineRule.from_node(n.id, n.properties))]
        rules = _of_the_jurisdictions(rules, jurisdictions)
        # The question's own jurisdictions' rules first (an Irish VAT3 before the EU's OSS),
        # and among them those whose words say most of the question's, rarer words among these
        # rules counting more and a word of the name twice ("the second payment on account"
        # before the first, "the balancing payment" the 31 January return date before both):
        # the answer quotes three at most.
        rules.sort(key=lambda r: (r.jurisdiction not in jurisdictions, -_said(question, r, rules)))
        asked = Asked.of(as_at.start, as_at.end, as_at.origin, as_at.described, as_at.ends_period)
        # What the question fixes (a tax year, an event, a period), ADR 0047; a rule that does
        # not apply to it (December disposals, asked about March) is no evidence for it.
        # A question that names no country ("Jan/Feb 2026 VAT3 due?") takes the periods of the
        # jurisdictions its rules are of: the VAT3's two-month periods are Irish.
        where = list(jurisdictions) or sorted({r.jurisdiction for r in rules if r.jurisdiction})
        periods = [
            rule
            for node in self._evidence.period_timelines(where)
            if (rule := TimelineRule.from_node(node.id, node.properties))
        ]
        dates, excluded = when_all(
            rules,
            asked,
            self._today(),
            periods=periods,
            about_tax_year=asks_tax_year_bounds(question),
        )
        evidence.hits[:] = [hit for hit in evidence.hits if hit.node.id not in excluded]
        for computed in dates:
            if computed.rule_id not in known:
                node = nodes[computed.rule_id]
                evidence.hits.append(EvidenceHit(node=node, text=describe(node), score=0.0))
                known.add(node.id)
        return [(computed.rule_id, computed.text) for computed in dates]


#: The national tax jurisdictions whose dates never answer a question about the other.
_NATIONAL = frozenset({"IE", "UK"})


def _of_the_jurisdictions(
    rules: Sequence[TimelineRule], jurisdictions: Sequence[str]
) -> list[TimelineRule]:
    """A question about Ireland gets no UK date, nor a UK one an Irish date (the UK's 60-day
    CGT report listed for an Irish disposal): the question's national jurisdiction selects the
    rules; EU rules stay (OSS applies to Irish traders), and a question naming neither or both
    keeps all."""
    named = _NATIONAL & set(jurisdictions)
    other = _NATIONAL - named if named else set()
    return [rule for rule in rules if rule.jurisdiction not in other]


def _said(question: str, rule: TimelineRule, rules: Sequence[TimelineRule]) -> float:
    """How much of ``question`` the rule's words say: each question word the rule's name or
    description says counts 1 / (how many of ``rules`` say it), once more in the name."""
    asked = set(tokenise(question))
    if not asked:
        return 0.0
    words = {r.id: set(tokenise(f"{r.name} {r.description}")) for r in rules}
    name = set(tokenise(rule.name))
    score = 0.0
    for word in asked & words.get(rule.id, set()):
        weight = 1.0 / sum(word in said for said in words.values())
        score += weight * (2 if word in name else 1)
    return score


def _aspect_first(evidence: Evidence, words: frozenset[str]) -> Evidence:
    """A follow-up's evidence with the hits whose titles say most of its own ``words`` (the
    retriever's tokens the previous question did not say) first ("And the additional rate
    threshold?" after the personal allowance: the search ran on both questions, and the
    previous one's subject outranked the aspect asked now); the search's order otherwise.
    ``words`` empty (not a follow-up, or nothing new): as found."""
    if not words or not evidence.hits:
        return evidence
    said = [len(words & set(tokenise(node_title(hit.node)))) for hit in evidence.hits]
    if max(said) == 0:
        return evidence
    order = sorted(range(len(evidence.hits)), key=lambda i: -said[i])
    return Evidence(hits=[evidence.hits[i] for i in order], verdict=evidence.verdict)


def _rules_before_concepts(evidence: Evidence) -> Evidence:
    """The rule nodes and provisions first, in the search's order, then the concepts: a
    concept says what a thing is, a rule what it is worth. Since the seeds hold narrower
    concepts of their own ("Basic rate of income tax (United Kingdom)", ADR 0060 addendum),
    their definitions ranked above the rule nodes with the values and took the answer's
    quotes ("And the additional rate?" answered with two definitions and the basic rate)."""
    rules = [hit for hit in evidence.hits if hit.node.label != "Concept"]
    if len(rules) == len(evidence.hits):
        return evidence
    concepts = [hit for hit in evidence.hits if hit.node.label == "Concept"]
    return Evidence(hits=[*rules, *concepts], verdict=evidence.verdict)


def conversation_jurisdictions(message: str, history: Sequence[StoredMessage]) -> list[str]:
    """The jurisdictions this turn is about: those the message names, else those the latest
    earlier question of the conversation named ("And the reduced rate?" after "VAT in Ireland"
    stays Irish); a tax year written "2025/26" names the UK. None named anywhere: none, never a
    default (ADR 0023)."""
    if found := _named_jurisdictions(message):
        return found
    for stored in reversed(history):
        if stored.role == "user" and (found := _named_jurisdictions(stored.content_sanitised)):
            return found
    return []


def _named_jurisdictions(text: str) -> list[str]:
    """The jurisdictions ``text`` names, or the UK when it names none but a tax year written
    across two years ("PA for 2025/26?": Ireland's tax year is the calendar year)."""
    if found := detect_jurisdictions(text):
        return found
    return [uk] if (uk := split_year_jurisdiction(text)) else []


def _history_message(stored: StoredMessage, unsanitised: bool) -> ChatMessage:
    """A stored message as prompt history: its sanitised text was sanitised when it was stored,
    so it carries that mark; in ``off`` the original goes, unmarked (egress sends it as is)."""
    if unsanitised:
        return ChatMessage(role=stored.role, content=stored.content)
    return SanitisedText(text=stored.content_sanitised).as_message(stored.role)
