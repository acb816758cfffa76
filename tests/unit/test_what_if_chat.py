"""A what-if in the chat, without a server (issue 28, ADR 0063): the computation from stated
facts, the prompt section (unsanitised: it carries the user's figures) and the offline
provider's table with citations."""

from __future__ import annotations

from decimal import Decimal

import pytest

from egress.wire import ChatMessage, LlmRequest, Text
from engine.lexicon import ConceptLexicon
from engine.prompt import PromptInputs, build_messages
from engine.providers.extractive import ExtractiveProvider
from scenarios.chat import markdown_table, prompt_section, read_section, what_if
from scenarios.stated import parse_what_if
from tests.unit.test_scenario_support import SeedReader

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

ISSUE = "I earn €50,000 as a PAYE employee, single, aged 35, in 2025 — what if I earned €60,000?"


async def _section(text: str = ISSUE) -> str:
    question = parse_what_if(text)
    assert question.change is not None
    return prompt_section(await what_if(SeedReader(), question.stated, question.change))


async def test_the_issue_example_compares_fifty_and_sixty_thousand() -> None:
    question = parse_what_if(ISSUE)
    assert question.change is not None
    result = await what_if(SeedReader(), question.stated, question.change)
    assert result.missing == [] and result.assumed == []
    assert result.comparison is not None
    (snapshot,) = result.comparison.snapshots
    totals = {(d.tax, d.person): d for d in snapshot.totals}
    assert totals[("income_tax", "you")].amounts == [Decimal("7200.00"), Decimal("11200.00")]
    assert totals[("usc", "you")].difference == Decimal("300.00")
    assert totals[("prsi", "you")].difference == Decimal("412.50")
    assert all(node.endswith(("2025", "P1", "P2")) for node in result.node_ids)


async def test_missing_facts_are_asked_for_never_guessed() -> None:
    question = parse_what_if("what if I earned €60,000 instead?")
    assert question.change is not None
    result = await what_if(SeedReader(), question.stated, question.change)
    assert result.comparison is None
    assert any("tax year" in m for m in result.missing)
    meta, rows, gaps = read_section(prompt_section(result)) or ({}, [], [])
    assert rows == [] and "tax year" in markdown_table(meta, rows, gaps)


async def test_assumptions_are_said() -> None:
    question = parse_what_if("I earn €40k in Ireland in 2025. What if I earned €45k?")
    assert question.change is not None
    result = await what_if(SeedReader(), question.stated, question.change)
    assert result.comparison is not None
    assert any("PAYE" in a for a in result.assumed) and any("single" in a for a in result.assumed)


async def test_the_section_is_quoted_data_and_makes_the_system_prompt_unsanitised() -> None:
    section = await _section()
    meta, rows, _ = read_section(section) or ({}, [], [])
    assert meta["currency"] == "€" and rows and all(row["nodes"] for row in rows)
    # amounts carry separators: "11200.00" reads to the egress detector as a phone number
    assert all("," in a for row in rows for a in row["amounts"] if a and len(a) > 8)
    inputs = PromptInputs(
        question=ChatMessage(role="user", content="q", sanitised=True),
        jurisdictions=["IE"],
        what_if=section,
    )
    system = build_messages(inputs)[0]
    assert section in system.content and not system.sanitised
    plain = build_messages(PromptInputs(question=inputs.question, jurisdictions=["IE"]))[0]
    assert plain.sanitised and "WHAT-IF" not in plain.content


async def test_the_offline_provider_answers_with_the_table_and_its_citations() -> None:
    section = await _section()
    inputs = PromptInputs(
        question=ChatMessage(role="user", content="what if", sanitised=True),
        jurisdictions=["IE"],
        what_if=section,
    )
    provider = ExtractiveProvider(ConceptLexicon.from_eurovoc())
    request = LlmRequest(provider="extractive", model="x", messages=build_messages(inputs))
    answer = "".join([c.delta async for c in provider.stream(request) if isinstance(c, Text)])
    assert answer.index("| **Total Income tax** | €7,200.00 | €11,200.00 | +€4,000.00 |") > 0
    assert "[IE:RATE:IT_HIGHER:2025]" in answer and "[IE:RATE:PRSI_A_EMPLOYEE:2025:P2]" in answer
