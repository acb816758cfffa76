"""The chat turn: ``prepare`` in named steps, the stream, the capture coordinator, the record.

``engine`` drives a turn (:class:`ChatEngine`); ``prepare`` holds its steps before the model is
called; ``capture`` the capture coordinator and its one repair call; ``record``
the answer as it streams; ``writes`` the turn's store writes after ``prepare``.
"""

from engine.turn.engine import ChatEngine, TurnEngine, run_turn
from engine.turn.prepare import (
    ChatLimits,
    EgressGateway,
    PreparedTurn,
    TurnRequest,
    conversation_jurisdictions,
)

__all__ = [
    "ChatEngine",
    "ChatLimits",
    "EgressGateway",
    "PreparedTurn",
    "TurnEngine",
    "TurnRequest",
    "conversation_jurisdictions",
    "run_turn",
]
