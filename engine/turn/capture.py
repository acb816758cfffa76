"""The capture side of one turn: the ``capture_concepts`` tool call, in, resolved concepts, out.

A :class:`CaptureCoordinator` has one entry while the answer streams, :meth:`feed` (each tool
call), and one exit after it, :meth:`~CaptureCoordinator.finish` (the answer; the resolved
concepts). Between the two it owns everything the capture does (ADR 0042):

- **parsing and repair**: a payload that does not validate is kept for one repair call after
  the answer (:mod:`engine.turn.capture_repair`); a second bad payload is a warning;
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
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

from opentelemetry.trace import Tracer

from egress.wire import Tool
from engine.capture_screen import forbidden_terms, screen_concepts
from engine.concepts import CAPTURE_TOOL_NAME, CapturedConcept, parse_capture_payload
from engine.events import TurnWarning
from engine.graph_retry import GraphWriteRetry
from engine.lexicon import ConceptLexicon
from engine.lexicon_capture import lexicon_concepts
from engine.metrics import EngineCounters
from engine.self_population import ResolvedConcept, SelfPopulation
from engine.turn.capture_repair import CaptureRepair
from engine.turn.prepare import PreparedTurn
from errors import RegintelError
from infra.spans import stage

__all__ = ["CaptureCoordinator", "CaptureParts", "Spawn"]

T = TypeVar("T")


class Spawn(Protocol):
    """Starts a background task that outlives the turn and that the engine's ``aclose`` waits
    for; ``log_failure=False`` when the caller handles the task's failure itself."""

    def __call__(self, work: Awaitable[T], *, log_failure: bool = ...) -> asyncio.Task[T]: ...


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
        # the tenant's and user's ids: never a label
        self._forbidden = forbidden_terms((turn.request.tenant_id, turn.request.user_id))
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
        parts, turn = self._parts, self._turn
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
            concepts = screen_concepts(concepts, forbidden=self._forbidden, drops=self._drops)
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
