"""The offline extractive provider: the default LLM, no key, no network.

It reads the prompt like a model would: the ``GRAPH EVIDENCE`` section gives the nodes it may
quote, the ``JURISDICTION`` line the jurisdictions, the last user message the question. For
each of the top evidence nodes it quotes the sentences that best answer the question (most
question words, rarer words counting more), each with its ``[node-id]``, and ends with the
research-only disclaimer; then it calls ``capture_concepts`` with the concepts of the question
that its lexicon recognises (EuroVoc taxation and social questions, plus the graph's concepts).
It answers only from evidence: when the prompt carries the gate's ``NO EVIDENCE`` sentence it
says exactly that and cites nothing. Dates the prompt's ``COMPUTED DATES`` section gives (the
timeline engine's, ADR 0033) follow the quotes, each with the rule's id. A ``WHAT-IF``
section (the scenario engine's comparison, issue 28) comes first, as a table whose rows cite
their parameter nodes.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from egress.wire import Done, LlmRequest, StreamChunk, Text, Tool, Usage
from engine.concepts import CAPTURE_TOOL_NAME
from engine.followups import EARLIER
from engine.lexicon import ConceptLexicon
from engine.lexicon_capture import lexicon_concepts
from engine.prompt import (
    COMPUTED_HEADER,
    DISCLAIMER,
    EVIDENCE_HEADER,
    JURISDICTION_HEADER,
    quoted_section,
    refusal_line,
)
from engine.quotes import amount_tokens, operative_words
from engine.retrieval.tokenise import tokenise
from infra.lifetime import Lifetime
from scenarios.chat import markdown_table, read_section

__all__ = [
    "MAX_QUOTES",
    "MAX_SENTENCES",
    "ExtractiveProvider",
    "best_sentences",
]

_CODES = re.compile(r"\b([A-Z]{2})\b")  # IE, UK, NI, EU, or another state (FR): its law
MAX_QUOTES = 3
MAX_SENTENCES = 2  # per quoted node
_REFERENCE = re.compile(r"\b(?:article|art\.?)\s*\d+[a-z]?(?:\s*\(\d+\))*", re.I)
_POINT = re.compile(r"^\((?:[a-z]{1,2}|[ivx]+|\d+)\)\s")
_SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-Z(‘'\"])|(?<=\.)\s+(?=\d+\.\s)")


class ExtractiveProvider:
    name = "extractive"

    def __init__(self, lexicon: ConceptLexicon, *, words_per_chunk: int = 3) -> None:
        self._lexicon = lexicon
        self._words_per_chunk = words_per_chunk
        self._lifetime = Lifetime("the extractive provider")

    async def aclose(self) -> None:
        """Nothing to release; a later ``stream`` raises :class:`errors.AdapterClosed`."""
        self._lifetime.close()

    async def stream(self, request: LlmRequest) -> AsyncGenerator[StreamChunk, None]:
        self._lifetime.check()
        system = next((m.content for m in request.messages if m.role == "system"), "")
        question = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
        jurisdictions = _jurisdictions(system)
        answer = self._answer(system, question, jurisdictions)
        for chunk in _chunks(answer, self._words_per_chunk):
            yield Text(chunk)
            await asyncio.sleep(0)  # a real stream yields to the loop between chunks
        concepts = self._concepts(question, jurisdictions)
        if concepts and any(tool.name == CAPTURE_TOOL_NAME for tool in request.tools):
            yield Tool(name=CAPTURE_TOOL_NAME, args={"concepts": concepts})
        prompt_words = sum(len(m.content.split()) for m in request.messages)
        yield Done(Usage(input_tokens=prompt_words, output_tokens=len(answer.split())))

    def _answer(self, system: str, question: str, jurisdictions: list[str]) -> str:
        # A what-if the scenario engine computed (issue 28): its table comes first.
        table = ""
        if (what_if := read_section(system)) is not None:
            table = markdown_table(*what_if) + "\n\n"
        if (refusal := refusal_line(system)) is not None:
            return f"{table}{refusal}\n\n{DISCLAIMER}"
        # Evidence an earlier turn retrieved is citable, not this turn's quote.
        lines = [
            (i, t) for i, t in quoted_section(system, EVIDENCE_HEADER) if not t.startswith(EARLIER)
        ]
        texts = [text for _, text in lines]
        quotes = [
            _quote(node_id, best_sentences(text, question, texts))
            for node_id, text in lines[:MAX_QUOTES]
        ]
        where = f" ({', '.join(jurisdictions)})" if jurisdictions else ""
        if not quotes:
            body = (
                "The rules graph holds no evidence for this question, so I cannot answer it "
                "from cited sources. Try naming the tax, benefit or rule and the jurisdiction."
            )
        else:
            body = f"From the rules graph{where}:\n\n" + "\n".join(quotes)
        if computed := quoted_section(system, COMPUTED_HEADER):
            dates = "\n".join(f"- {text} [{node_id}]" for node_id, text in computed)
            body += f"\n\nComputed dates:\n{dates}"
        return f"{table}{body}\n\n{DISCLAIMER}"

    def _concepts(self, question: str, jurisdictions: list[str]) -> list[dict[str, Any]]:
        return lexicon_concepts(self._lexicon, question, jurisdictions)


def _quote(node_id: str, text: str) -> str:
    """One quoted line, with the provision's operative word ("prohibited", "must", "may not")
    said where the quote has one, before its citation."""
    word = operative_words(text.partition(": ")[2] or text)
    said = f" (operative words: “{word}”)" if word else ""
    return f"- {text}{said} [{node_id}]"


def _list_quote(parts: list[str], question: str, weight: dict[str, float]) -> list[str] | None:
    """A list provision as the evidence quotes it ("… shall be prohibited: … (f) …"): its
    lead-in with the points that share the question's words (at most ``MAX_SENTENCES``), or
    every point when none does; ``None`` when ``parts`` hold no lead-in followed by points."""
    leads = [
        i for i, part in enumerate(parts[:-1]) if part.endswith(":") and _POINT.match(parts[i + 1])
    ]
    if not leads:
        return None
    quoted = list(parts[: leads[0]])
    # Each list the evidence quotes (the tiers of a fine are two lists): its lead-in and its
    # points that share the question's words.
    for n, lead in enumerate(leads):
        end = leads[n + 1] if n + 1 < len(leads) else len(parts)
        points = [i for i in range(lead + 1, end) if _POINT.match(parts[i])]
        # Words the lead-in shares with the question ("prohibit") say which list, not which
        # point.
        wanted = set(weight) - _words(parts[lead]) - _words(" ".join(_REFERENCE.findall(question)))

        def score(i: int, wanted: set[str] = wanted) -> float:
            return sum(weight[w] for w in _words(parts[i]) & wanted)

        best = sorted((i for i in points if score(i) > 0), key=lambda i: (-score(i), i))
        chosen = sorted(best[:MAX_SENTENCES]) if best else points
        quoted += [parts[lead], *(parts[i] for i in chosen)]
        if n + 1 == len(leads):
            break
        # what stands between this list and the next (a paragraph with no points)
        quoted += parts[(points[-1] if points else lead) + 1 : end]
    return quoted


def best_sentences(text: str, question: str, evidence: Sequence[str]) -> str:
    """The sentences of ``text`` that share most of the question's words (weighted by how rare
    each word is across the evidence), in their original order; the heading stays in front.
    A list provision keeps its lead-in ("The following … shall be prohibited:") in front of
    the points it quotes, and is never cut to its first point when another answers."""
    head, sep, body = text.partition(": ")
    if not sep:
        head, body = "", text
    wanted = _words(question) | amount_tokens(question, question=True)
    documents = [_words(other) for other in evidence] or [set()]
    weight = {w: 1.0 / (1 + sum(w in d for d in documents)) for w in wanted}
    parts = [p.strip(" …") for p in body.split(" … ") if p.strip(" …")]
    if (listed := _list_quote(parts, question, weight)) is not None:
        quoted = " … ".join(listed)
        return f"{head}: {quoted}" if head else quoted
    sentences = [s.strip() for s in _SENTENCE.split(body) if s.strip()]
    if len(sentences) <= MAX_SENTENCES:
        return text

    def score(sentence: str) -> float:
        return sum(weight[w] for w in _words(sentence) & wanted)

    ranked = sorted(range(len(sentences)), key=lambda i: (-score(sentences[i]), i))
    chosen = sorted(ranked[:MAX_SENTENCES])
    quoted = " … ".join(sentences[i] for i in chosen)
    return f"{head}: {quoted}" if head else quoted


def _words(text: str) -> set[str]:
    """The retriever's tokens (legal-aware, stemmed, stopwords out), so the sentences quoted
    are matched to the question the way the evidence was; and :data:`engine.quotes.AMOUNT`
    where the text states an amount."""
    return set(tokenise(text)) | amount_tokens(text)


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
