"""A what-if in the chat, without a server (issue 28, ADR 0063): the computation from stated
facts, the prompt section (unsanitised: it carries the user's figures) and the offline
provider's table with citations."""

from __future__ import annotations

from dataclasses import replace
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


async def test_a_stated_disposal_and_a_range_reach_the_engine() -> None:
    """ "from X to Y" asks Y; a disposal's month-only date is taken conservatively and said."""
    question = parse_what_if(
        "I'm single on €50,000 PAYE in 2025 and sold shares in May 2025 for €10,000 that I bought "
        "in 2020 for €4,000. What if my salary went from €50,000 to €52,000?"
    )
    assert question.change is not None
    result = await what_if(SeedReader(), question.stated, question.change)
    assert result.comparison is not None, result.missing
    assert "shares sold on 2025-05-01 (only 2025-05 stated)" in result.assumed
    assert "shares bought on 2020-12-31 (only 2020 stated)" in result.assumed
    (snapshot,) = result.comparison.snapshots
    totals = {(d.tax, d.person): d for d in snapshot.totals}
    # €6,000 gain less the €1,270 exemption at 33%, the same in both columns
    assert totals[("cgt", "you")].amounts == [Decimal("1560.90"), Decimal("1560.90")]
    assert totals[("income_tax", "you")].difference == Decimal("800.00")  # €2,000 at 40%


async def test_a_disposal_without_its_dates_asks_for_them() -> None:
    question = parse_what_if(
        "I earn €50,000 PAYE in 2025. I sold shares for €10,000; I bought them for €4,000. "
        "What if I earned €60,000?"
    )
    assert question.change is not None
    result = await what_if(SeedReader(), question.stated, question.change)
    assert result.comparison is None
    assert "the date shares was bought (at least its year)" in result.missing


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
    # egress's sanitised text of the section alone (the turn scans it as it scans the question,
    # ADR 0063 addendum): the system message stays sanitised, so egress does not scan it whole
    scanned = replace(inputs, what_if_sanitised=True)
    system = build_messages(scanned)[0]
    assert section in system.content and system.sanitised


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


async def test_egress_scans_each_line_that_can_hold_the_users_text_and_no_other() -> None:
    """ADR 0063 session 7 addendum: the facts line, the gaps, capital gains rows and any line
    with a stored scenario's or snapshot's label or an asset's name are scanned; the header
    and the engine's own income tax, USC and PRSI rows are not (graph text and numbers)."""
    from datetime import date

    from scenarios.chat import prompt_section_lines, user_texts, what_if_stored
    from scenarios.models import Disposal, Facts, Snapshot

    asset = 'shares in "Murphy" Ltd'
    base = Snapshot(
        label="Mary's 2025",
        as_at=date(2025, 12, 31),
        facts=Facts(
            tax_year=2025,
            jurisdiction="IE",
            age=35,
            paye_income=Decimal(50000),
            disposals=[
                Disposal(asset=asset, acquired_on=date(2020, 1, 1), disposed_on=date(2025, 5, 1),
                         cost=Decimal(4000), proceeds=Decimal(10000)),
            ],
        ),
    )  # fmt: skip
    question = parse_what_if("what if I earned €60,000 instead?")
    assert question.change is not None
    result = await what_if_stored(
        SeedReader(), "s1", "Plan for Mary Murphy", base, question.stated, question.change
    )
    assert result.comparison is not None, result.missing
    assert {"Plan for Mary Murphy", "Mary's 2025", asset, 'shares in \\"Murphy\\" Ltd'} <= (
        user_texts(result)
    )
    lines = prompt_section_lines(result)
    assert "\n".join(line for line, _ in lines) == prompt_section(result)
    scanned = {line for line, scan in lines if scan}
    for line, scan in lines:
        holds = "Murphy" in line or "Mary" in line
        if holds or line.startswith(("- FACTS ", "- GAP ")) or '"item": "Capital gains' in line:
            assert scan, line
    assert not lines[0][1]  # the fixed header
    plain = [ln for ln in scanned if ln.startswith("- ROW ") and "Capital gains" not in ln]
    assert plain == []  # no income tax, USC or PRSI row holds user text here
    assert any(ln.startswith("- ROW ") and not scan for ln, scan in lines)


async def test_a_sale_with_fees_and_losses_needs_no_income_in_ireland() -> None:
    """Irish CGT needs no income: it is not asked for, and the assumption is said."""
    question = parse_what_if(
        "In June 2025 I sold shares for €20,000 that cost €8,000 in 2019, paying €500 in fees. "
        "I have losses of €1,000 brought forward. What if I had no fees?"
    )
    assert question.change is not None
    result = await what_if(SeedReader(), question.stated, question.change)
    assert result.comparison is not None, result.missing
    assert any("no income stated" in a for a in result.assumed)
    (snapshot,) = result.comparison.snapshots
    totals = {(d.tax, d.person): d for d in snapshot.totals}
    # €20,000 - €8,000 - €500 = €11,500, less €1,000 losses, less €1,270: €9,230 at 33%
    assert totals[("cgt", "you")].amounts[0] == Decimal("3045.90")


async def test_what_if_we_marry_assesses_the_couple_jointly_and_says_so() -> None:
    """Unstated, a couple is taken as jointly assessed (the law's default) and the answer says
    so; €50,000 + €30,000 PAYE in 2025: the €83,000 band holds all €80,000 at 20%, less the
    married person's and two employee credits (€8,000)."""
    question = parse_what_if(
        "I earn €50,000 PAYE, single, in 2025. What if I married someone earning €30,000?"
    )
    assert question.change is not None
    result = await what_if(SeedReader(), question.stated, question.change)
    assert result.comparison is not None, result.missing
    assert any(a.startswith("jointly assessed") for a in result.assumed)
    (snapshot,) = result.comparison.snapshots
    totals = {(d.tax, d.person): d for d in snapshot.totals}
    assert totals[("income_tax", "you")].amounts == [Decimal("7200.00"), None]
    assert totals[("income_tax", "couple")].amounts == [None, Decimal("8000.00")]


async def test_separate_treatment_when_said_taxes_each_as_single() -> None:
    question = parse_what_if(
        "I earn €50,000 PAYE, single, in 2025. What if I married someone earning €30,000 and "
        "we were treated as single?"
    )
    assert question.change is not None
    result = await what_if(SeedReader(), question.stated, question.change)
    assert result.comparison is not None, result.missing
    assert not any(a.startswith("jointly assessed") for a in result.assumed)
    (snapshot,) = result.comparison.snapshots
    totals = {(d.tax, d.person): d for d in snapshot.totals}
    assert totals[("income_tax", "you")].amounts[1] == Decimal("7200.00")
