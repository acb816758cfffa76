"""What a question asks for: the words between its question word and its verb.

"What minimum password length does the AI Act require?" asks for a *minimum password length*;
"Which programming languages does the Cyber Resilience Act forbid?" for *programming languages*;
"How much paid annual leave does ..." for *paid annual leave*. When none of the best evidence for
such a question uses a word of what is asked — a word the acts do use elsewhere — the evidence is
about the question's subject (the AI Act, the CRA) but not about what it asks: the act does not
settle it, and quoting its nearest article as if it answered would mislead (issue 22, "an
answer about a held act's topic that the act does not settle says so"). The gate refuses it
(``gate.py`` rule 5; ADR 0058, eighth-pass addendum).

Only the words of the asked-for phrase count, and only words the indexed text uses somewhere: a
word the acts never use ("paperwork", "payphone") may be everyday wording for what a provision
calls otherwise, so its absence proves nothing. Words naming the *kind* of value asked for
("what date", "what rate", "at what level") do not count either: a provision states the value
("within 72 hours", "20 %") without naming its kind. "What if ..." asks nothing by name.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Final

from engine.retrieval.tokenise import QUERY_CHATTER, tokenise

__all__ = ["asked_phrase", "asked_terms"]

# The verb that ends the asked-for phrase: an auxiliary or a verb of applying/counting.
_VERB: Final = (
    r"(?:do|does|did|must|is|are|was|were|can|could|may|might|should|shall|will|would|has|have"
    r"|had|apply|applies|count|counts|need|needs)"
)
# "what|which|how much|how many" + up to five words (as few as possible) + the verb.
_ASKED: Final = re.compile(
    r"\b(?:what|which|how\s+much|how\s+many)\s+(?!if\b)((?:[\w'’-]+\s+){0,5}?)" + _VERB + r"\b",
    re.IGNORECASE,
)
# The kind of value asked for, stemmed as tokens are: not what the question is about.
_VALUE_KINDS: Final = frozenset(
    tokenise(
        "date dates day days time times deadline period level rate rates amount amounts sum "
        "share percentage per cent figure number age year years month months week weeks"
    )
)


def asked_terms(question: str, ignore: Collection[str] = ()) -> list[str]:
    """The tokens of what ``question`` asks for (first question phrase), without question
    chatter and ``ignore`` (act and place names); empty when it asks for nothing named."""
    match = _ASKED.search(question)
    if match is None:
        return []
    return [
        t for t in dict.fromkeys(tokenise(match.group(1)))
        if t not in QUERY_CHATTER and t not in ignore and t not in _VALUE_KINDS
    ]  # fmt: skip


def asked_phrase(question: str) -> str:
    """The words of what ``question`` asks for as written ("minimum font size", "interest
    rate"), for the semantic channel to read; empty when it asks for nothing named."""
    match = _ASKED.search(question)
    return " ".join(match.group(1).split()) if match is not None else ""
