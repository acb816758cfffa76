"""The fines an act sets, for a question asking how large a fine can be (issue 23).

"What is the maximum GDPR fine in euro for infringing the controller's obligations under
Articles 25 to 39?" was answered from Articles 25 and 26: the articles it names outrank the one
that sets the fines for breaching them (GDPR Article 83, AI Act Article 99), which say "fine"
once per paragraph among long lists of cross-references. A question that asks an amount
("maximum", "how much", "in euro", "as a share of turnover") of a fine or penalty, and names
an act the graph holds, has its answer in the provisions of that act that set fines: those
whose text says "administrative fines (of) up to" (the Union's drafting formula for a fine's
ceiling). :func:`fines_first` puts them first, in the act's order; the quote of each then
keeps the paragraphs (tiers) the question's words select (``engine.quotes``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from engine.evidence import Evidence, EvidenceHit
from graph.models import GraphNode

__all__ = ["MAX_FINE_PROVISIONS", "asks_fine_amount", "fines_first", "sets_fines"]

_FINE = re.compile(r"\b(?:fines?|penalt(?:y|ies)|sanctions?)\b", re.I)
#: Words asking how large (a fine's ceiling, in money or as a share of turnover).
_HOW_LARGE = re.compile(
    r"\b(?:how much|how large|how big|how high|maximum|max|highest|largest|biggest|up to|"
    r"ceiling|cap|amount|in euros?|in eur|percentage|per ?cent|share of|turnover)\b|%",
    re.I,
)
_SETS_FINES = re.compile(r"\badministrative fines? (?:of )?up to\b", re.I)
MAX_FINE_PROVISIONS = 3


def asks_fine_amount(question: str) -> bool:
    """Whether ``question`` asks how large a fine or penalty can be."""
    return _FINE.search(question) is not None and _HOW_LARGE.search(question) is not None


def sets_fines(node: GraphNode) -> bool:
    """Whether a provision sets a fine's ceiling ("… administrative fines of up to EUR …")."""
    return _SETS_FINES.search(str(node.properties.get("text") or "")) is not None


def fines_first(
    evidence: Evidence,
    question: str,
    acts: Sequence[str],
    provisions_of: Callable[[str], Sequence[GraphNode]],
    hit_of: Callable[[GraphNode], EvidenceHit],
) -> Evidence:
    """``evidence`` with the provisions of ``acts`` that set fines first (those the search found,
    then the others, in the act's order, at most :data:`MAX_FINE_PROVISIONS`), for a question
    asking a fine's amount; as it was otherwise."""
    if not acts or not evidence.hits or not asks_fine_amount(question):
        return evidence
    setting = [node for act in acts for node in provisions_of(act) if sets_fines(node)]
    if not setting:
        return evidence
    found = {hit.node.id: hit for hit in evidence.hits}
    first = [found.get(node.id) or hit_of(node) for node in setting][:MAX_FINE_PROVISIONS]
    chosen = {hit.node.id for hit in first}
    rest = [hit for hit in evidence.hits if hit.node.id not in chosen]
    return Evidence(hits=[*first, *rest], verdict=evidence.verdict)
