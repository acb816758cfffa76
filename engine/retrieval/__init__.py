"""Evidence retrieval over provisions and rule nodes, with a relevance gate (ADR 0012).

Build a :class:`Retriever` from a graph snapshot and call :meth:`Retriever.search`; it returns
ranked :class:`RetrievalHit` s and a :class:`RelevanceVerdict` that says, before any model is
called, whether the evidence can answer the question.
"""

from engine.retrieval.gate import GateThresholds, RefusalReason, RelevanceVerdict
from engine.retrieval.retriever import (
    HitReason,
    RetrievalConfig,
    RetrievalHit,
    Retriever,
    SearchResult,
)

__all__ = [
    "GateThresholds",
    "HitReason",
    "RefusalReason",
    "RelevanceVerdict",
    "RetrievalConfig",
    "RetrievalHit",
    "Retriever",
    "SearchResult",
]
