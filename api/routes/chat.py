"""``POST /api/chat``: one chat turn as Server-Sent Events."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from datetime import date
from typing import Annotated, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sse_starlette import EventSourceResponse

from api.auth import Principal, authenticate
from api.bootstrap import Container
from api.deps import ContainerDep
from api.errors import ErrorBody
from api.sse import heartbeat, sse_frames
from egress.policy import EgressMode
from engine.events import TurnEvent
from engine.turn import PreparedTurn, TurnRequest

__all__ = [
    "OVERLOADED_DESCRIPTION",
    "SSE_DESCRIPTION",
    "ChatRequest",
    "TurnOptions",
    "chat",
    "no_control_characters",
    "router",
    "stream_turn",
]

router = APIRouter(tags=["chat"])
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

SSE_DESCRIPTION = """A stream of Server-Sent Events. Each event's `data` is JSON whose `type`
equals the event name:

- `metadata` `{conversationId, jurisdictions, evidenceNodeIds, asAt, changed}` — first,
  before any text; `asAt` `{from, to, origin}`: the days the evidence was in force in
  (`origin`: `question` when the question named a date, `request` for the body's `asAt`, else
  `today`); `changed` `[{nodeId, changeId, description, at}]`: material changes (ADR 0035) of
  the nodes this conversation relied on since its last turn, empty when none
- `progress` `{stage, ...}` — where the turn is while no text arrives, in this order:
  `retrieval` (`hits`: the evidence found), `prompt_sent`, `waiting_for_model`, and after the
  answer `capture` (the captured concepts are being resolved); a client shows them while it
  waits and may ignore them
- `text` `{delta}` — answer text as it is generated
- `concepts` `{concepts: [{id, prefLabel, status, created, matchedBy, alignedWith}]}` —
  the concepts the question named, resolved in the graph
- `warning` `{code, message}` — the turn goes on (malformed tool payload, rejected graph write,
  a graph write still pending, a citation of an id the graph does not have); `llm_fallback`,
  sent before the answer's first text, says the first route failed before its first token
  and names the fallback route (`provider:model`) that answered
- `error` `{code, message}` — the provider failed or egress blocked the call; `done` follows
- `done` `{conversationId, referencedNodes, citations, confidence, refused, usage, warnings,
  status, capturePending, scenario?}` — always last. `scenario` only on a turn that stated
  facts and asked a what-if, or asked one in a conversation linked to a stored scenario
  (`scenarioId`; issue 28): `{columns, facts, assumed, missing, comparison, node_ids,
  eligibility, scenario_id, currency, base}`, the scenario engine's comparison computed from
  the graph's parameter nodes before the model call; `base` `{scenarioId, label, snapshot,
  asAt}` names the linked scenario's snapshot the first column is (null for facts stated in
  the chat); `eligibility` is each column's reliefs and
  obligations (`applies` / `does_not_apply` / `cannot_tell` with the missing facts, the
  condition nodes, the binding deadlines; ADR 0071), and `comparison.snapshots[].eligibility`
  what changed between the columns. `capturePending: true`: the concepts this turn
  captured were still being written when the answer ended; the write finishes in the
  background and its concepts join the conversation's context for the next turn (a
  `graph_write_pending` warning says the same). `citations`: one `{id, heading,
  instrument, url, validFrom, validTo, source, sourceCheckedOn, conflicts}` per node the answer
  cites that was evidence of this turn (`url` is the EUR-Lex deep link of a provision;
  `validFrom`/`validTo` the ISO days its value is in force, a provision's from its act, null
  when not stated; `source` where the value came from and `sourceCheckedOn` when that source
  was last checked; `conflicts` `[{id, description, validFrom, validTo}]` where sources
  disagree about it);
  citations of anything else are dropped with a `warning`. `confidence` (0–1) = the share of
  the question's terms the best evidence covers × the share of answer sentences with a valid
  citation; 0 when the turn refuses. `refused`: null, or why the graph cannot answer
  (`no_evidence`, `out_of_coverage_jurisdiction`, `unknown_instrument`); the answer then says
  "The rules graph has no evidence on …" and cites nothing.

Comment frames (`: heartbeat`) are sent while the stream waits. Errors found before the stream
starts (bad input, unknown conversation) are ordinary JSON error responses."""

OVERLOADED_DESCRIPTION = """`overloaded`: this worker already streams its limit of turns (adaptive
to its loop lag and chunk delay, at most REGINTEL_MAX_TURNS_IN_FLIGHT: ADR 0055) and none ended
within REGINTEL_ADMISSION_QUEUE_SECONDS (REGINTEL_ADMISSION_BURST_QUEUE_SECONDS while the
adaptive limit is still growing), or its event loop runs more than
REGINTEL_ADMISSION_MAX_LOOP_LAG_MS late (admission control, ADR 0030), or it was too busy to read
the request within its body deadline (ADR 0055, second addendum). Checked first, before
the request is authenticated or its body read: an overloaded worker answers this to any chat
request. A slot itself is held only once the caller is authenticated and its body read (ADR
0030, third addendum). Sent before any stream starts, with a `Retry-After` header (seconds);
nothing was stored or sent upstream. `graph_unavailable` / `conversation_store_unavailable`: a
store is down."""


def no_control_characters(value: str) -> str:
    """A question's text as the API takes it: without NUL and the other C0 controls (tab and
    line breaks aside); they are never part of a question, and PostgreSQL refuses NUL in text,
    which once answered 503 and left an empty conversation behind each time (issue 30).
    Refused here, before anything is stored."""
    if found := _CONTROL.search(value):
        raise ValueError(
            f"message contains a control character (U+{ord(found.group()):04X}) at "
            f"position {found.start()}"
        )
    return value


class TurnOptions(BaseModel):
    """What every turn may set besides its question (``/api/chat``, an edit, a regeneration)."""

    model_config = ConfigDict(extra="forbid")

    egressMode: Literal["enforce", "report-only", "off"] | None = Field(
        default=None,
        description="Per-call egress override; it can never loosen the tenant's policy.",
    )
    asAt: date | None = Field(
        default=None,
        description=(
            "ISO date (YYYY-MM-DD) the answer is about: evidence is restricted to what was in "
            'force on that day. A date the question names ("on 1 December 2020", "for the '
            '2023 tax year") takes precedence; without either, today.'
        ),
        examples=["2020-12-01"],
    )

    @field_validator("asAt", mode="before")
    @classmethod
    def _iso_date_only(cls, value: object) -> object:
        # Pydantic would also take a Unix timestamp or a datetime; the contract is a day.
        if value is not None and not (isinstance(value, str) and _ISO_DAY.fullmatch(value)):
            raise ValueError("asAt must be an ISO date, YYYY-MM-DD")
        return value

    def egress_mode(self) -> EgressMode | None:
        return EgressMode(self.egressMode) if self.egressMode else None


class ChatRequest(TurnOptions):
    message: str = Field(
        min_length=1,
        description="The user's question (at most REGINTEL_MAX_MESSAGE_CHARS characters).",
    )
    conversationId: str | None = Field(
        default=None,
        max_length=64,
        pattern=r"^[A-Za-z0-9-]+$",
        description="Continue this conversation (its active branch); omit to start a new one.",
    )
    scenarioId: str | None = Field(
        default=None,
        max_length=64,
        pattern=r"^[A-Za-z0-9-]+$",
        description=(
            "Link the conversation to one of your stored scenarios (`POST /api/scenarios`); "
            "the link is kept, so later turns need not send it again (sending another id "
            'replaces it). A what-if asked in a linked conversation ("what if I earned '
            "€60,000 instead?\") evaluates the scenario's latest snapshot as the first column "
            "and the change as the second (`done.scenario.base` names the scenario and "
            "snapshot). Another user's or tenant's scenario, or an unknown id, is a 404 and "
            "nothing is stored."
        ),
    )

    @field_validator("message")
    @classmethod
    def _no_control_characters(cls, value: str) -> str:
        return no_control_characters(value)


@router.post(
    "/api/chat",
    summary="Run one chat turn (SSE)",
    response_class=EventSourceResponse,
    responses={
        200: {"description": SSE_DESCRIPTION, "content": {"text/event-stream": {}}},
        503: {
            "model": ErrorBody,
            "description": OVERLOADED_DESCRIPTION,
            "headers": {
                "Retry-After": {
                    "description": "Seconds to wait before retrying (with `overloaded`).",
                    "schema": {"type": "integer"},
                }
            },
        },
    },
)
async def chat(
    body: ChatRequest,
    container: ContainerDep,
    principal: Annotated[Principal, Depends(authenticate)],
) -> EventSourceResponse:
    # The turn holds an admission slot already (api.admission.ChatAdmission, ADR 0030).
    # prepare() raises before any event: bad input, a refused mode and unknown ids become
    # ordinary JSON 4xx responses through the error handlers.
    prepared = await container.engine.prepare(
        TurnRequest(
            tenant_id=principal.tenant_id,
            user_id=principal.user_id,
            message=body.message,
            conversation_id=body.conversationId,
            egress_mode=body.egress_mode(),
            as_at=body.asAt,
            scenario_id=body.scenarioId,
        )
    )
    return stream_turn(container, prepared)


def stream_turn(container: Container, prepared: PreparedTurn) -> EventSourceResponse:
    """The SSE response that streams a prepared turn (this route's, an edit's, a
    regeneration's)."""
    return EventSourceResponse(
        _frames(container.engine.stream(prepared)),
        ping=container.settings.heartbeat_seconds,
        ping_message_factory=heartbeat,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _frames(events: AsyncGenerator[TurnEvent, None]) -> AsyncIterator[bytes]:
    # aclosing: a client that leaves closes the turn's stream now (its record saves the
    # partial answer at once), not whenever the garbage collector gets to it.
    async with aclosing(events) as turn, aclosing(sse_frames(turn)) as frames:
        async for frame in frames:
            yield frame
