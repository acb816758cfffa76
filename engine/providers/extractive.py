"""The offline extractive provider: the default LLM, no key, no network.

It reads the prompt like a model would: the ``GRAPH EVIDENCE`` section gives the nodes it may
quote, the ``JURISDICTION`` line the jurisdictions, the last user message the question. It
streams an answer that quotes the best evidence with ``[node-id]`` citations and ends with the
research-only disclaimer, then calls ``capture_concepts`` with the concepts of the question
that its lexicon recognises (EuroVoc taxation and social questions, plus the graph's concepts).
It answers only from evidence; with none it says so instead of guessing.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

from egress.wire import Done, LlmRequest, StreamChunk, Text, Tool, Usage
from engine.concepts import CAPTURE_TOOL_NAME
from engine.lexicon import ConceptLexicon
from engine.prompt import DISCLAIMER, EVIDENCE_HEADER, JURISDICTION_HEADER, section

__all__ = [
    "MAX_CONCEPTS",
    "MAX_QUOTES",
    "ExtractiveProvider",
]

_EVIDENCE_LINE = re.compile(r"^\[(?P<id>[^\]]+)\] (?P<text>.+)$")
_CODES = re.compile(r"\b(IE|UK|NI|EU)\b")
MAX_QUOTES = 3
MAX_CONCEPTS = 5


class ExtractiveProvider:
    name = "extractive"

    def __init__(self, lexicon: ConceptLexicon, *, words_per_chunk: int = 3) -> None:
        self._lexicon = lexicon
        self._words_per_chunk = words_per_chunk

    async def aclose(self) -> None:
        return None

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        system = next((m.content for m in request.messages if m.role == "system"), "")
        question = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
        jurisdictions = _jurisdictions(system)
        answer = self._answer(system, jurisdictions)
        for chunk in _chunks(answer, self._words_per_chunk):
            yield Text(chunk)
            await asyncio.sleep(0)  # a real stream yields to the loop between chunks
        concepts = self._concepts(question, jurisdictions)
        if concepts and any(tool.name == CAPTURE_TOOL_NAME for tool in request.tools):
            yield Tool(name=CAPTURE_TOOL_NAME, args={"concepts": concepts})
        prompt_words = sum(len(m.content.split()) for m in request.messages)
        yield Done(Usage(input_tokens=prompt_words, output_tokens=len(answer.split())))

    def _answer(self, system: str, jurisdictions: list[str]) -> str:
        quotes = []
        for line in section(system, EVIDENCE_HEADER)[:MAX_QUOTES]:
            if match := _EVIDENCE_LINE.match(line):
                quotes.append(f"- {match['text']} [{match['id']}]")
        where = ", ".join(jurisdictions) if jurisdictions else "IE (assumed)"
        if not quotes:
            body = (
                "The rules graph holds no evidence for this question, so I cannot answer it "
                "from cited sources. Try naming the tax, benefit or rule and the jurisdiction."
            )
        else:
            body = f"From the rules graph ({where}):\n\n" + "\n".join(quotes)
        return f"{body}\n\n{DISCLAIMER}"

    def _concepts(self, question: str, jurisdictions: list[str]) -> list[dict[str, Any]]:
        concepts: dict[str, dict[str, Any]] = {}
        primary = jurisdictions[0] if jurisdictions else None
        for hit in self._lexicon.match(question, limit=MAX_CONCEPTS, jurisdiction=primary):
            entry = hit.entry
            if entry.jurisdiction and (not jurisdictions or entry.jurisdiction in jurisdictions):
                where = entry.jurisdiction
            else:
                where = jurisdictions[0] if jurisdictions else (entry.jurisdiction or "IE")
            key = f"{entry.domain}:{where}:{entry.kind}"
            alt = [label for label in (*entry.alt_labels, hit.matched) if label != entry.pref_label]
            concept: dict[str, Any] = {
                "domain": entry.domain,
                "kind": entry.kind,
                "jurisdiction": where,
                "prefLabel": entry.pref_label,
                "altLabels": list(dict.fromkeys(alt))[:10],
                "sourceUrls": list(entry.source_urls),
            }
            if entry.definition:
                concept["definition"] = entry.definition
            concepts.setdefault(key, concept)
        return list(concepts.values())


def _jurisdictions(system: str) -> list[str]:
    for line in system.splitlines():
        if line.startswith(JURISDICTION_HEADER):
            return _CODES.findall(line.partition(":")[2])
    return []


def _chunks(text: str, words: int) -> list[str]:
    parts = re.split(r"(\s+)", text)
    chunks, current, count = [], "", 0
    for part in parts:
        current += part
        if part and not part.isspace():
            count += 1
            if count == words:
                chunks.append(current)
                current, count = "", 0
    if current:
        chunks.append(current)
    return chunks
