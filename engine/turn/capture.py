"""The capture side of one turn: the ``capture_concepts`` tool call, in, resolved concepts, out.

A :class:`CaptureCoordinator` has one entry while the answer streams, :meth:`feed` (each tool
call), and one exit after it, :meth:`~CaptureCoordinator.finish` (the answer; the resolved
concepts). Between the two it owns everything the capture does (ADR 0042):

- **parsing and repair**: a payload that does not validate is kept for one repair call after
  the answer (:class:`CaptureRepair`, below); a second bad payload is a warning;
- **screening**: labels are vocabulary, not chat (ADR 0017, :mod:`engine.capture_screen`);
  what the screen drops is counted in one ``capture_screened`` warning, never repeated;
- **the lexicon fallback**: a provider that ran answer-only (no tool) gets the lexicon's
  capture of the question and the answer (:mod:`engine.lexicon_capture`);
- **the population task**: one capture per turn, resolved in its own task from the moment it
  arrives (a ``turn.capture`` span that ends when the write does); a failure because the graph
  was down is handed to :class:`GraphWriteRetry`, never lost;
- **the late context**: a write slower than ``write_timeout`` is a ``graph_write_pending``
  warning; when it ends, its concepts join the conversation's context through ``late_context``.

Tasks are started with the ``spawn`` it is handed (the engine's, which ``aclose`` waits for);
it never calls back into the engine. Warnings go, in the order they arise, into the list it is
handed (the turn record's), between the stream's own.

**The repair call** (:class:`CaptureRepair`) is seed 002's retry-with-feedback: the model gets
its own arguments back with the validation error and is asked — tool forced, through the egress
client like every call — to call ``capture_concepts`` again. Exactly one attempt, bounded by
the router's timeouts. Text the model writes in the repair call is dropped: the answer was
streamed once and is never sent again. Still invalid, or the call fails → a
``malformed_tool_payload`` warning and the turn completes without capture.
``capture_repairs``, ``capture_repairs_succeeded`` and ``capture_repairs_failed`` count the
outcomes.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any, Protocol, TypeVar

import structlog
from opentelemetry.trace import Tracer

from egress.client import EgressContext
from egress.wire import ChatMessage, Error, LlmRequest, Tool
from engine.capture_screen import screen_concepts
from engine.concepts import (
    CAPTURE_TOOL,
    CAPTURE_TOOL_NAME,
    CapturedConcept,
    parse_capture_payload,
)
from engine.events import TurnWarning
from engine.graph_retry import GraphWriteRetry
from engine.lexicon import ConceptLexicon
from engine.lexicon_capture import lexicon_concepts
from engine.metrics import EngineCounters
from engine.router import LlmRouter, StreamingEgress
from engine.self_population import ResolvedConcept, SelfPopulation
from engine.turn.prepare import PreparedTurn
from errors import RegintelError
from infra.spans import stage

__all__ = ["REPAIR_TASK", "CaptureCoordinator", "CaptureParts", "CaptureRepair", "Spawn"]

T = TypeVar("T")

REPAIR_TASK = "capture_repair"
_MAX_ARGS_CHARS = 4000
_INSTRUCTIONS = (
    "You called the capture_concepts tool with arguments that failed validation. Call "
    "capture_concepts once more with corrected arguments that match its schema. Do not write "
    "any other text. The question and your previous arguments follow as data."
)

log = structlog.get_logger(__name__)


class Spawn(Protocol):
    """Starts a background task that outlives the turn and that the engine's ``aclose`` waits
    for; ``log_failure=False`` when the caller handles the task's failure itself."""

    def __call__(self, work: Awaitable[T], *, log_failure: bool = ...) -> asyncio.Task[T]: ...


class CaptureRepair:
    """The one repair call of a capture that did not validate (the module docstring)."""

    def __init__(
        self, egress: StreamingEgress, router: LlmRouter, counters: EngineCounters
    ) -> None:
        self._egress = egress
        self._router = router
        self._counters = counters

    async def repair(
        self, ctx: EgressContext, question: str, args: Any, error: str, route_model: tuple[str, str]
    ) -> list[CapturedConcept] | TurnWarning:
        """Ask once for corrected arguments; the concepts, or the warning to show."""
        self._counters.inc("capture_repairs")
        provider, model = route_model
        request = LlmRequest(
            provider=provider,
            model=model,
            task=REPAIR_TASK,
            messages=[
                ChatMessage(role="system", content=_INSTRUCTIONS, sanitised=True),
                ChatMessage(
                    role="user",
                    content=f"Question: {question}\n\nPrevious arguments: {_shown(args)}\n\n"
                    f"Validation error: {error}",
                ),
            ],
            tools=[CAPTURE_TOOL],
            tool_choice=CAPTURE_TOOL_NAME,
            max_output_tokens=1024,
        )
        reason = "the repair call returned no capture"
        try:
            async with aclosing(self._router.stream(self._egress, request, ctx)) as chunks:
                async for chunk in chunks:
                    if isinstance(chunk, Error):
                        reason = f"the repair call failed ({chunk.code})"
                        break
                    if isinstance(chunk, Tool) and chunk.name == CAPTURE_TOOL_NAME:
                        concepts = parse_capture_payload(chunk.args)
                        self._counters.inc("capture_repairs_succeeded")
                        return concepts
        except RegintelError as exc:
            reason = exc.message
        except Exception as exc:  # a provider bug (absurd arguments) must not end the turn
            log.warning("capture_repair_crashed", error=type(exc).__name__)
            reason = "the repair call failed"
        self._counters.inc("capture_repairs_failed")
        return TurnWarning(
            "malformed_tool_payload", f"{error}; still invalid after one repair: {reason}"
        )


class CaptureParts:
    """What every turn's capture shares: population, its retry, the repair call, the lexicon."""

    def __init__(
        self,
        *,
        population: SelfPopulation,
        retry: GraphWriteRetry,
        repair: CaptureRepair,
        lexicon: ConceptLexicon | None,
        counters: EngineCounters,
        tracer: Tracer,
        write_timeout: float,
    ) -> None:
        self.population = population
        self.retry = retry
        self.repair = repair
        self.lexicon = lexicon
        self.counters = counters
        self.tracer = tracer
        self.write_timeout = write_timeout


class CaptureCoordinator:
    """One turn's capture: :meth:`feed` while the answer streams, :meth:`finish` after it."""

    def __init__(
        self,
        parts: CaptureParts,
        turn: PreparedTurn,
        *,
        spawn: Spawn,
        warnings: list[TurnWarning],
        late_context: Callable[[list[str]], Awaitable[None]],
    ) -> None:
        self._parts = parts
        self._turn = turn
        self._spawn = spawn
        self._warnings = warnings
        self._late_context = late_context
        self._private = (turn.request.tenant_id, turn.request.user_id)  # never a label
        self._jurisdictions = tuple(turn.jurisdictions)  # a capture never guesses another
        self._task: asyncio.Task[list[ResolvedConcept]] | None = None
        self._tool_seen = False
        self._malformed: tuple[Any, str] | None = None  # arguments and error, for the repair
        self._drops: Counter[str] = Counter()  # what the screen removed
        self.pending = False  # the population outlived the answer (finished in background)

    @property
    def started(self) -> bool:
        """Whether a capture is being resolved (or waits for its repair)."""
        return self._task is not None or self._malformed is not None

    def feed(self, tool: Tool) -> None:
        """A tool call of the model, as it arrives: the capture starts at once."""
        self._tool_seen = True
        self._accept(tool, from_model=True)

    async def finish(self, answer: str, *, answer_only: bool = False) -> list[ResolvedConcept]:
        """After the answer: the one repair of a malformed capture, or, for a provider that ran
        answer-only (``Done.answer_only``), the lexicon's capture of the question and the
        answer; then the population, awaited for at most the write timeout."""
        parts = self._parts
        turn = self._turn
        if self._malformed is not None and self._task is None:
            args, error = self._malformed
            route = (turn.llm_request.provider, turn.llm_request.model)
            outcome = await parts.repair.repair(turn.ctx, turn.question, args, error, route)
            if isinstance(outcome, TurnWarning):
                self._warnings.append(outcome)
            else:
                self._populate(outcome, from_model=True)
        elif answer_only and not self._tool_seen and parts.lexicon is not None:
            found = lexicon_concepts(
                parts.lexicon, f"{turn.question}\n{answer}", turn.jurisdictions
            )
            if found:
                parts.counters.inc("answer_only_captures")
                self._accept(Tool(CAPTURE_TOOL_NAME, {"concepts": found}), from_model=False)
        if self._drops:  # counts only: the dropped text is chat, never repeated
            counts = ", ".join(f"{k} {n}" for k, n in sorted(self._drops.items()))
            self._warnings.append(TurnWarning("capture_screened", f"dropped: {counts}"))
        return await self._resolved()

    def _accept(self, tool: Tool, *, from_model: bool) -> None:
        """A tool call: a valid capture is populated; the model's first invalid one waits for
        the repair, any other is a warning. The lexicon's capture is neither screened nor
        placed in the turn's jurisdictions (the lexicon placed it already)."""
        if tool.name != CAPTURE_TOOL_NAME:
            self._warnings.append(TurnWarning("unknown_tool", f"ignored tool {tool.name!r}"))
            return
        try:
            concepts = parse_capture_payload(tool.args)
        except RegintelError as exc:
            if from_model and self._malformed is None and self._task is None:
                self._malformed = (tool.args, exc.message)  # one repair, after the answer
            else:
                self._warnings.append(TurnWarning(exc.code, exc.message))
            return
        self._populate(concepts, from_model=from_model)

    def _populate(self, concepts: list[CapturedConcept], *, from_model: bool) -> None:
        if from_model:  # labels are vocabulary, not chat (ADR 0017)
            concepts = screen_concepts(concepts, private_ids=self._private, drops=self._drops)
        if self._task is None and concepts:  # one capture per turn; a second one is ignored
            known = self._jurisdictions if from_model else None
            retry = self._parts.retry
            task = self._spawn(self._resolve(concepts, known), log_failure=False)
            task.add_done_callback(lambda t: retry.on_population_done(t, concepts, known))
            self._task = task

    async def _resolve(
        self, concepts: list[CapturedConcept], known: Sequence[str] | None
    ) -> list[ResolvedConcept]:
        """Self-population of one capture, in its own task: its span ends when the write does,
        after the answer if it outlives it (the task copied the turn's trace context)."""
        parts = self._parts
        with stage(
            "turn.capture", {"regintel.capture.concepts": len(concepts)}, tracer=parts.tracer
        ) as span:
            resolved = await parts.population.resolve_all(concepts, known)
            span.set_attributes(
                {
                    "regintel.capture.resolved": sum(r.skipped is None for r in resolved),
                    "regintel.capture.created": sum(r.created for r in resolved),
                    "regintel.capture.skipped": sum(r.skipped is not None for r in resolved),
                }
            )
            return resolved

    async def _resolved(self) -> list[ResolvedConcept]:
        """The population's concepts, or nothing and a warning: pending (slower than the write
        timeout; it goes on and its concepts join the context later) or failed."""
        task = self._task
        if task is None:
            return []
        done, _ = await asyncio.wait({task}, timeout=self._parts.write_timeout)
        if not done:
            self.pending = True
            task.add_done_callback(self._late)
            self._warnings.append(
                TurnWarning("graph_write_pending", "concept capture is still being written")
            )
            return []
        exc = task.exception()
        if exc is None:
            return task.result()
        code = exc.code if isinstance(exc, RegintelError) else "graph_write_failed"
        message = exc.public_message if isinstance(exc, RegintelError) else "concept capture failed"
        self._warnings.append(TurnWarning(code, message))
        return []

    def _late(self, task: asyncio.Task[list[ResolvedConcept]]) -> None:
        """A population that outlived its turn ended: its concepts join the conversation's
        context (a failed one is the retry's, :class:`GraphWriteRetry`)."""
        if task.cancelled() or task.exception() is not None:
            return
        ids = [r.id for r in task.result() if r.skipped is None]
        if not ids:
            return
        self._parts.counters.inc("late_captures")
        self._spawn(self._late_context(ids))


def _shown(args: Any) -> str:
    """The arguments as the model sent them, bounded (they may be huge or absurdly nested)."""
    if isinstance(args, str):
        return args[:_MAX_ARGS_CHARS]
    try:
        return json.dumps(args)[:_MAX_ARGS_CHARS]
    except (RecursionError, ValueError, TypeError):
        return "(unreadable arguments)"
