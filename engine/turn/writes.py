"""The conversation-store writes of one turn after ``prepare``: the answer as it streams, its
final save, and the late context of a capture that outlived the turn.

One object per turn, bound to its prepared turn, so the turn record and the capture coordinator
are handed these methods rather than calling back into the engine. The question and the empty
``streaming`` answer were stored by ``prepare`` (its last step).
"""

from __future__ import annotations

import structlog
from opentelemetry.trace import Tracer

from conversations.models import ConversationContext, NewMessage
from conversations.port import TurnStore
from engine.turn.prepare import EgressGateway, PreparedTurn
from engine.turn.record import TurnRecord
from infra.spans import stage

__all__ = ["TurnWrites"]

log = structlog.get_logger(__name__)


class TurnWrites:
    def __init__(
        self,
        turn: PreparedTurn,
        *,
        store: TurnStore,
        egress: EgressGateway,
        tracer: Tracer,
        max_active_nodes: int,
    ) -> None:
        self._turn = turn
        self._store = store
        self._egress = egress
        self._tracer = tracer
        self._max_active_nodes = max_active_nodes

    async def checkpoint(self, record: TurnRecord) -> None:
        """The answer so far, as the user saw it. No sanitised form and no PII scan: the final
        save writes it; an answer that never gets there is sanitised when it is next read as
        history (``TurnPreparer.sanitise``, ADR 0038)."""
        turn = self._turn
        await self._store.checkpoint_answer(
            turn.request.tenant_id,
            turn.conversation_id,
            turn.answer_id,
            record.answer,
            "",
            user_id=turn.request.user_id,
        )

    async def finish(self, record: TurnRecord) -> None:
        """The final save of the answer, sanitised once, with its status and the context."""
        attributes = {
            "regintel.save.part": "answer",
            "regintel.turn.status": record.status,
            "regintel.save.checkpoints": record.checkpoints,
        }
        with stage("turn.save", attributes, tracer=self._tracer):
            await self._finish_answer(record)

    async def late_context(self, ids: list[str]) -> None:
        """A late capture's concepts join the context of the turn's own branch (ADR 0062),
        whichever branch is active by then (no message)."""
        turn = self._turn
        with stage("turn.save", {"regintel.save.part": "context"}, tracer=self._tracer):
            await self._store.merge_context(
                turn.request.tenant_id,
                turn.conversation_id,
                turn.answer_id,
                ConversationContext(active_node_ids=ids),
                user_id=turn.request.user_id,
                max_active_nodes=self._max_active_nodes,
            )

    async def _finish_answer(self, record: TurnRecord) -> None:
        turn = self._turn
        answer = record.answer
        answer_sanitised = (
            (await self._egress.sanitise_message(turn.ctx, answer)).text if answer else ""
        )
        finished = await self._store.finish_answer(
            turn.request.tenant_id,
            turn.conversation_id,
            turn.answer_id,
            NewMessage(
                role="assistant",
                content=answer,
                content_sanitised=answer_sanitised,
                status=record.status,
                referenced_nodes=list(record.referenced),
            ),
            ConversationContext(active_node_ids=list(record.referenced)),
            user_id=turn.request.user_id,
            max_active_nodes=self._max_active_nodes,
        )
        if not finished:  # only an operator's hand could have finished it: say so, keep going
            log.warning("answer_already_finished", conversation_id=turn.conversation_id)
