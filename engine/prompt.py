"""Prompt aspects: the system prompt is built from small, ordered, testable pieces.

Each aspect takes the :class:`PromptInputs` of a turn and returns a section (or ``""`` to
stay out). Sections start with an upper-case header line so that a reader of the prompt
(a person, a test, or the offline extractive provider) can find them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from egress.wire import ChatMessage
from engine.evidence import EvidenceHit

DISCLAIMER = (
    "This is regulatory research, not legal, tax or financial advice. Check the cited sources "
    "and consult a qualified adviser before acting."
)
EVIDENCE_HEADER = "GRAPH EVIDENCE"
ACTIVE_HEADER = "ACTIVE CONCEPTS"
JURISDICTION_HEADER = "JURISDICTION"

_JURISDICTION_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("NI", re.compile(r"\bnorthern ireland\b|\bN\.?I\.?\b(?=[\s,.?!]|$)", re.I)),
    ("IE", re.compile(r"\b(ireland|irish|revenue\.ie|éire|eire|dublin|cork)\b", re.I)),
    ("UK", re.compile(
        r"\b(uk|u\.k\.|united kingdom|britain|british|england|scotland|wales|hmrc)\b", re.I
    )),
    ("EU", re.compile(r"\b(eu|european union|europe|directive|member states?)\b", re.I)),
)  # fmt: skip


def detect_jurisdictions(text: str) -> list[str]:
    """Jurisdictions a question names, most specific first (NI implies UK)."""
    found = [code for code, pattern in _JURISDICTION_PATTERNS if pattern.search(text)]
    if "NI" in found and "UK" not in found:
        found.insert(found.index("NI") + 1, "UK")
    if "NI" in found and "IE" in found and not re.search(r"\b(?<!northern )ireland\b", text, re.I):
        found.remove("IE")  # "Northern Ireland" alone does not name the Republic
    return found


@dataclass(frozen=True)
class PromptInputs:
    question: str
    jurisdictions: Sequence[str]
    active: Sequence[tuple[str, str]] = ()  # (node id, one-line description)
    evidence: Sequence[EvidenceHit] = ()
    history: Sequence[ChatMessage] = field(default_factory=tuple)


Aspect = Callable[[PromptInputs], str]


def base_rules(_: PromptInputs) -> str:
    return (
        "You are Regintel, a regulatory research assistant for tax, social welfare, pensions "
        "and EU law. Answer only from the graph evidence below. Cite every claim with the node "
        "id in square brackets, e.g. [IE:RATE:VAT_STANDARD]. Values marked [unverified] must be "
        "presented as unverified. If the evidence does not answer the question, say so. Call "
        "the capture_concepts tool once with the regulatory concepts the question is about; "
        "never invent node ids."
    )


def jurisdiction_aspect(inputs: PromptInputs) -> str:
    codes = ", ".join(inputs.jurisdictions) or "not stated (assume IE and say so)"
    return f"{JURISDICTION_HEADER}: {codes}"


def active_concepts_aspect(inputs: PromptInputs) -> str:
    if not inputs.active:
        return ""
    lines = "\n".join(f"- [{node_id}] {text}" for node_id, text in inputs.active)
    return f"{ACTIVE_HEADER} (from earlier in this conversation):\n{lines}"


def evidence_aspect(inputs: PromptInputs) -> str:
    if not inputs.evidence:
        return f"{EVIDENCE_HEADER}: none found."
    lines = "\n".join(f"- [{hit.node.id}] {hit.text}" for hit in inputs.evidence)
    return f"{EVIDENCE_HEADER} (cite as [id]):\n{lines}"


def disclaimer_aspect(_: PromptInputs) -> str:
    return f"End every answer with this disclaimer: {DISCLAIMER}"


ASPECTS: tuple[Aspect, ...] = (
    base_rules,
    jurisdiction_aspect,
    active_concepts_aspect,
    evidence_aspect,
    disclaimer_aspect,
)


def build_messages(inputs: PromptInputs, aspects: Sequence[Aspect] = ASPECTS) -> list[ChatMessage]:
    system = "\n\n".join(section for aspect in aspects if (section := aspect(inputs)))
    return [
        ChatMessage(role="system", content=system),
        *inputs.history,
        ChatMessage(role="user", content=inputs.question),
    ]


def section(system_prompt: str, header: str) -> list[str]:
    """The ``- `` lines of one section of a system prompt built here."""
    lines: list[str] = []
    inside = False
    for line in system_prompt.splitlines():
        if line.startswith(header):
            inside = True
            continue
        if inside and line.startswith("- "):
            lines.append(line[2:])
        elif inside and line.strip() == "":
            break
    return lines
