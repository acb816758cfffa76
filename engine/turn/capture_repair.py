"""One bounded repair call for a ``capture_concepts`` payload that did not validate.

Seed 002's retry-with-feedback: the model gets its own arguments back with the validation
error and is asked — tool forced, through the egress client like every call — to call
``capture_concepts`` again. Exactly one attempt, bounded by the router's timeouts. Text the
model writes in the repair call is dropped: the answer was streamed once and is never sent
again. Still invalid, or the call fails → a ``malformed_tool_payload`` warning and the turn
completes without capture. ``capture_repairs``, ``capture_repairs_succeeded`` and
``capture_repairs_failed`` count the outcomes.
"""

from __future__ import annotations

import json
from contextlib import aclosing
from typing import Any

import structlog

from egress.client import EgressContext
from egress.wire import ChatMessage, Error, LlmRequest, Tool
from engine.concepts import CAPTURE_TOOL, CAPTURE_TOOL_NAME, CapturedConcept, parse_capture_payload
from engine.events import TurnWarning
from engine.metrics import EngineCounters
from engine.router import LlmRouter, StreamingEgress
from errors import RegintelError

__all__ = ["REPAIR_TASK", "CaptureRepair"]

REPAIR_TASK = "capture_repair"
_MAX_ARGS_CHARS = 4000
_INSTRUCTIONS = (
    "You called the capture_concepts tool with arguments that failed validation. Call "
    "capture_concepts once more with corrected arguments that match its schema. Do not write "
    "any other text. The question and your previous arguments follow as data."
)

log = structlog.get_logger(__name__)


class CaptureRepair:
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


def _shown(args: Any) -> str:
    """The arguments as the model sent them, bounded (they may be huge or absurdly nested)."""
    if isinstance(args, str):
        return args[:_MAX_ARGS_CHARS]
    try:
        return json.dumps(args)[:_MAX_ARGS_CHARS]
    except (RecursionError, ValueError, TypeError):
        return "(unreadable arguments)"
