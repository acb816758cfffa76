"""Follow-ups that remember (issue 23): a short question that names no subject of its own ("And
what about children?") is searched with the conversation's previous question, and the
provisions the conversation relied on stay citable.

- :func:`follow_up_query`: the text retrieval searches for a follow-up: the previous question
  of the conversation, then this one. A question that names an act, or reads as a question
  of its own, is searched alone; so is one that names a graph concept, unless it is short and
  opens like a follow-up ("And the reduced rate?", "What about the higher rate?": the concept
  is one aspect of the subject asked before, not a new subject).
- :func:`with_earlier_evidence`: the provisions and rules among the conversation's active
  nodes (those earlier answers cited) join the evidence after this turn's own hits, marked as
  retrieved earlier, so an answer that cites one again is not stripped of it. The extractive
  provider does not quote them (its quotes are this turn's best evidence).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from conversations.models import StoredMessage
from engine.evidence import Evidence, EvidenceHit, evidence_text
from graph.models import GraphNode

__all__ = ["EARLIER", "MAX_EARLIER", "follow_up_query", "is_follow_up", "with_earlier_evidence"]

#: The mark an earlier turn's evidence carries in the prompt.
EARLIER = "(retrieved earlier in this conversation)"
_OPENING = re.compile(
    r"^\s*(?:and|also|but|so|then|what about|how about|what if|and if|same for|is that|does that|"
    r"do they|does it|is it|are they|can they|can it)\b",
    re.I,
)
_REFERS_BACK = re.compile(r"\b(?:it|they|them|this|that|these|those|there|same)\b", re.I)
_SHORT = 8  # words: a question this short that names no subject leans on the one before
MAX_EARLIER = 6


def is_follow_up(question: str, names_subject: bool, names_act: bool = False) -> bool:
    """Whether ``question`` leans on the conversation: it names no act of its own and opens
    like a follow-up ("And …", "What about …"), short when it names a concept; or it names
    neither and is short and refers back."""
    if names_act:
        return False
    short = len(question.split()) <= _SHORT
    if _OPENING.match(question):
        return short or not names_subject
    if names_subject:
        return False
    return short and _REFERS_BACK.search(question) is not None


def follow_up_query(
    query: str, history: Sequence[StoredMessage], names_subject: bool, names_act: bool = False
) -> str:
    """The text to search for this turn: ``query``, preceded by the conversation's previous
    question when ``query`` is a follow-up (:func:`is_follow_up`)."""
    previous = next((m.content_sanitised for m in reversed(history) if m.role == "user"), "")
    if not previous.strip() or not is_follow_up(query, names_subject, names_act):
        return query
    return f"{previous.strip()} {query}"


def with_earlier_evidence(
    evidence: Evidence, active: Sequence[str], get: Callable[[str], GraphNode | None]
) -> Evidence:
    """``evidence`` with the provisions and rules among ``active`` (what the conversation's
    earlier answers cited) appended, marked :data:`EARLIER`; concepts are not evidence."""
    if not evidence.hits or not active:
        return evidence
    known = set(evidence.ids())
    earlier: list[EvidenceHit] = []
    for node_id in reversed(active):  # the most recent first
        node = get(node_id)
        if node is None or node.id in known or node.label in ("Concept", "Label"):
            continue
        earlier.append(EvidenceHit(node=node, text=f"{EARLIER} {evidence_text(node)}", score=0.0))
        known.add(node.id)
        if len(earlier) == MAX_EARLIER:
            break
    if not earlier:
        return evidence
    return Evidence(hits=[*evidence.hits, *earlier], verdict=evidence.verdict)
