"""The chat's what-if step on a real SQLite conversation store (issue 28, ADR 0063): a plain
question touches nothing; stated facts land in the user's scenario; the next turn's what-if
reads them, computes, and lifts the gate's refusal with the parameter nodes as evidence; with
the index's rules it also assesses eligibility, reading the rules once per index generation."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any, cast

import pytest
from opentelemetry.trace import NoOpTracer

from conversations.sqlite import SqliteConversationStore
from egress.client import EgressContext
from egress.sanitiser import SanitisedText
from engine.evidence import Evidence
from engine.retrieval.gate import RefusalReason, RelevanceVerdict
from engine.turn.prepare import ChatLimits, TurnPreparer
from engine.turn.what_if import WhatIfStep
from graph.models import GraphNode, GraphSnapshot
from scenarios.chat import CHAT_SCENARIO_PREFIX
from tests.unit.test_scenario_support import SeedReader

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


class SeedNodes:
    def __init__(self) -> None:
        self.nodes = SeedReader().nodes

    def get(self, node_id: str) -> GraphNode | None:
        return self.nodes.get(node_id)


class SeedRules:
    """The index's rules over the seed files, counting reads; ``generation`` as the index's."""

    def __init__(self) -> None:
        self.reader = SeedReader()
        self.generation = 1
        self.reads = 0

    async def snapshot(
        self, labels: Sequence[str] | None = None, limit: int = 1000
    ) -> GraphSnapshot:
        self.reads += 1
        return await self.reader.snapshot(labels, limit)


async def test_the_what_if_assesses_eligibility_reading_rules_once_per_generation(
    tmp_path: Path,
) -> None:
    store = SqliteConversationStore(tmp_path / "c.db")
    await store.init()
    try:
        rules = SeedRules()
        step = WhatIfStep(store.scenario_store(), SeedNodes(), rules=rules)
        stated = await step.run("t1", "u1", "c1", "I earn €50,000 (PAYE), single, 2025", [])
        assert stated is not None and rules.reads == 0  # facts only: nothing assessed
        for amount in ("€60,000", "€70,000"):
            outcome = await step.run("t1", "u1", "c1", f"what if I earned {amount}?", [])
            assert outcome is not None and outcome.result is not None
            assert outcome.result.eligibility is not None
        assert rules.reads == 1
        rules.generation = 2  # the index changed: the rules are read again
        outcome = await step.run("t1", "u1", "c1", "what if I earned €80,000?", [])
        assert rules.reads == 2
        assert outcome is not None and outcome.result is not None
        data = outcome.data()
        assert data is not None and isinstance(data["eligibility"], list)
        refused = Evidence(hits=[], verdict=RelevanceVerdict(False, RefusalReason.NO_EVIDENCE))
        evidence, _ = outcome.evidence(refused, "no evidence", SeedNodes())
        assert "IE:CONDITION:NOT_PROPRIETARY_DIRECTOR" in evidence.ids()
    finally:
        await store.aclose()


class ScanningEgress:
    """Egress's sanitiser as the turn calls it: records each text and marks it scanned."""

    def __init__(self) -> None:
        self.scanned: list[str] = []

    async def sanitise_message(self, ctx: EgressContext, text: str) -> SanitisedText:
        self.scanned.append(text)
        return SanitisedText(text.replace("€60,000.00", "<MONEY_1>"), {"MONEY": 1})


async def test_the_section_is_scanned_alone_by_egress_unless_egress_is_off(tmp_path: Path) -> None:
    """The prompt gets egress's sanitised text of the what-if section's lines that can hold the
    user's text (so the system message can stay marked sanitised and is not scanned whole); in
    egress ``off``, the original."""
    store = SqliteConversationStore(tmp_path / "c.db")
    await store.init()
    try:
        step = WhatIfStep(store.scenario_store(), SeedNodes())
        await step.run("t1", "u1", "c1", "I earn €50,000 (PAYE), single, 2025", [])
        outcome = await step.run("t1", "u1", "c1", "what if I earned €60,000 instead?", [])
        assert outcome is not None
        section = outcome.section()
        assert section is not None
        egress = ScanningEgress()
        unused = cast(Any, None)
        preparer = TurnPreparer(
            store=store, egress=cast(Any, egress), router=unused, evidence=unused, lexicon=None,
            limits=ChatLimits(), aspects=(), today=date.today, tracer=NoOpTracer(),
        )  # fmt: skip
        ctx = EgressContext("t1", "u1", "c1")
        sent = await preparer.what_if_section(ctx, outcome, unsanitised=False)
        # the lines that can hold the user's text, each alone: here the facts and the gaps;
        # the header and the engine's income tax, USC and PRSI rows are not scanned again
        lines = section.splitlines()
        scanned = [ln for ln in lines if ln.startswith(("- FACTS ", "- GAP "))]
        assert egress.scanned == scanned and "€60,000.00" in section
        assert not any(ln.startswith(("WHAT-IF", "- ROW ")) for ln in egress.scanned)
        assert sent is not None and "<MONEY_1>" in sent and "€60,000.00" not in sent
        assert len(sent.splitlines()) == len(lines)
        assert await preparer.what_if_section(ctx, outcome, unsanitised=True) == section
        assert await preparer.what_if_section(ctx, None, unsanitised=False) is None
        assert len(egress.scanned) == len(scanned)
    finally:
        await store.aclose()


async def test_stated_facts_are_stored_and_the_what_if_uses_them(tmp_path: Path) -> None:
    store = SqliteConversationStore(tmp_path / "c.db")
    await store.init()
    try:
        scenarios = store.scenario_store()
        step = WhatIfStep(scenarios, SeedNodes())
        plain = await step.run("t1", "u1", "c1", "What is the standard rate of VAT?", [])
        assert plain is None and await scenarios.list_scenarios("t1", "u1") == []

        stated = await step.run("t1", "u1", "c1", "I earn €50,000 (PAYE), single, 2025", [])
        assert stated is not None and stated.result is None and stated.scenario_id
        (kept,) = await scenarios.list_scenarios("t1", "u1")
        assert kept.label == CHAT_SCENARIO_PREFIX + "c1" and '"50000.00"' in kept.body
        assert await scenarios.list_scenarios("t1", "u2") == []  # the user's own

        outcome = await step.run("t1", "u1", "c1", "what if I earned €60,000 instead?", [])
        assert outcome is not None and outcome.result is not None
        assert outcome.result.comparison is not None and outcome.scenario_id == kept.id
        refused = Evidence(hits=[], verdict=RelevanceVerdict(False, RefusalReason.NO_EVIDENCE))
        evidence, refusal = outcome.evidence(refused, "no evidence", SeedNodes())
        assert refusal is None and evidence.answerable
        assert set(evidence.ids()) == set(outcome.result.node_ids)
        data = outcome.data()
        assert data is not None and data["scenario_id"] == kept.id
    finally:
        await store.aclose()
