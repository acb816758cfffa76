"""A what-if in the chat over real HTTP (issue 28, must-have 5): a turn states the facts, the
next asks "what if I earned €60,000 instead?"; the answer (the offline provider) is the
comparison table with citations of parameter nodes in force for 2025, `done` carries the
structured result, the facts are stored in the user's scenario (never in the graph), and the
prompt reached the provider through egress. Each what-if also says which reliefs and
obligations apply by the graph's conditions ("cannot tell: missing proprietary_director", with
the condition's node) and which deadlines bind (a third turn adds self-employment: Form 11
applies, due 31 October 2026), in the prompt's quoted data, the table and `done` (ADR 0071)."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from engine.lexicon import ConceptLexicon
from engine.providers.extractive import ExtractiveProvider
from scenarios.chat import CHAT_SCENARIO_PREFIX
from tests.e2e.test_chat_http import ALICE, RecordingProvider, chat
from tests.support.server import running_server

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

BOB = {"Authorization": "Bearer dev-acme-bob"}
_CITED = re.compile(r"\[([A-Z]{2}:[A-Z_]+:[A-Z0-9_]+:\d{4}(?::P\d)?)\]")


def _answer(events: list[Any]) -> str:
    return "".join(e.payload["delta"] for e in events if e.event == "text")


async def test_what_if_after_stated_facts_answers_with_the_cited_comparison(
    seeded_data_dir: Any,
) -> None:
    lexicon = ConceptLexicon.from_eurovoc()
    provider = RecordingProvider(ExtractiveProvider(lexicon))
    settings = Settings(data_dir=seeded_data_dir, log_json=False, heartbeat_seconds=0.05)
    app = create_app(settings, lexicon=lexicon, providers={"extractive": provider})
    with running_server(app) as base:
        async with httpx.AsyncClient(base_url=base, timeout=60) as client:
            # a plain question first: no scenario matter, no `scenario` in done, nothing stored
            plain = await chat(client, {"message": "What is the standard rate of VAT in Ireland?"})
            assert "scenario" not in plain[-1].payload
            stated = await chat(
                client,
                {"message": "I earn €50,000 as a PAYE employee, single, aged 35, in 2025."},
            )
            conversation = stated[-1].payload["conversationId"]
            assert "scenario" not in stated[-1].payload  # facts only: stored, nothing computed
            listed = (await client.get("/api/scenarios", headers=ALICE)).json()
            (mine,) = [s for s in listed if s["label"] == CHAT_SCENARIO_PREFIX + conversation]
            (snapshot,) = mine["snapshots"]
            assert snapshot["facts"]["paye_income"] == "50000.00"
            assert snapshot["facts"]["tax_year"] == 2025

            events = await chat(
                client,
                {"message": "what if I earned €60,000 instead?", "conversationId": conversation},
            )
            done = events[-1].payload
            answer = _answer(events)

            # the structured result: €10,000 more at 40 %, USC at 3 %, PRSI at 4.2 %
            scenario = done["scenario"]
            assert scenario["missing"] == [] and scenario["scenario_id"] == mine["id"]
            (compared,) = scenario["comparison"]["snapshots"]
            totals = {t["tax"]: Decimal(t["difference"]) for t in compared["totals"]}
            assert totals == {
                "income_tax": Decimal("4000.00"),
                "usc": Decimal("300.00"),
                "prsi": Decimal("412.50"),
            }
            # the table, each row citing 2025 parameter nodes that the answer keeps as citations
            assert "| Total Income tax" in answer.replace("**", "")
            assert "€7,200.00" in answer and "€11,200.00" in answer and "+€4,000.00" in answer
            cited = set(_CITED.findall(answer))
            assert cited and all(node.endswith(("2025", "P1", "P2")) for node in cited)
            assert cited <= set(scenario["node_ids"])
            kept = {c["id"] for c in done["citations"]}
            assert cited <= kept, cited - kept
            assert done["refused"] is None

            # the facts reached the provider through egress (which marks what it scanned) as
            # a quoted-data section of the system prompt
            system = provider.requests[-1].messages[0]
            assert "WHAT-IF (" in system.content and system.sanitised
            assert '"paye_income"' not in system.content  # rows and labels, not the raw body

            # the stored scenario now holds both sets of facts; another user sees none of it
            stored = (await client.get(f"/api/scenarios/{mine['id']}", headers=ALICE)).json()
            labels = [s["label"] for s in stored["snapshots"]]
            assert labels == ["as stated", "what if"]
            assert stored["snapshots"][1]["facts"]["paye_income"] == "60000.00"
            other = await client.get(f"/api/scenarios/{mine['id']}", headers=BOB)
            assert other.status_code == 404

            # eligibility by the graph's conditions, per column: the employee credit's condition
            # reads a fact nobody stated, so "cannot tell" names it and the condition's node
            employee = "IE:RELIEF:EMPLOYEE_TAX_CREDIT"
            condition = "IE:CONDITION:NOT_PROPRIETARY_DIRECTOR"
            columns = scenario["eligibility"]
            assert len(columns) == 2
            for column in columns:
                (credit,) = [e for e in column if e["node_id"] == employee]
                assert credit["status"] == "cannot_tell"
                assert credit["missing"] == ["proprietary_director"]
                assert [c["node_id"] for c in credit["conditions"]] == [condition]
            assert {employee, condition} <= set(scenario["node_ids"])
            assert "- ELIGIBILITY " in system.content and condition in system.content
            assert "cannot tell: missing proprietary_director" in answer
            assert f"[{condition}]" in answer and condition in kept

            # self-employment added: Form 11 and its 31 October deadline bind in the what-if only
            more = await chat(
                client,
                {
                    "message": "what if I also had €20,000 of self-employed income?",
                    "conversationId": conversation,
                },
            )
            done = more[-1].payload
            answer = _answer(more)
            as_stated, what_if = done["scenario"]["eligibility"]
            form_11 = "IE:OBLIGATION:FORM_11_RETURN"
            assert form_11 not in {e["node_id"] for e in as_stated}
            (filing,) = [e for e in what_if if e["node_id"] == form_11]
            assert filing["status"] == "applies"
            due = {d["node_id"]: d["end"] for d in filing["deadlines"]}
            assert due == {"IE:TIMELINE:RETURN_DEADLINE_31_OCT": "2026-10-31"}
            (compared,) = done["scenario"]["comparison"]["snapshots"]
            (moved,) = [e for e in compared["eligibility"] if e["node_id"] == form_11]
            assert moved["statuses"] == [None, "applies"] and moved["changed"] is True
            system = provider.requests[-1].messages[0]
            assert "- DEADLINE " in system.content and "2026-10-31" in system.content
            assert "Deadlines that bind" in answer and "due 2026-10-31" in answer
            assert "[IE:TIMELINE:RETURN_DEADLINE_31_OCT]" in answer
            kept = {c["id"] for c in done["citations"]}
            assert {form_11, "IE:TIMELINE:RETURN_DEADLINE_31_OCT"} <= kept

            # never in the graph: no node holds the conversation's label or the stated figure
            graph = await client.get("/api/graph/snapshot", params={"limit": "5000"}, headers=ALICE)
            assert conversation not in graph.text and "60000.00" not in graph.text

            # a conversation linked to a stored scenario (ADR 0063 second addendum): the what-if
            # evaluates its latest snapshot, no facts stated in the chat; another user's link
            # to it is a 404 that tells nothing of it
            facts = {"tax_year": 2025, "jurisdiction": "IE", "status": "single", "age": 35}
            created = await client.post(
                "/api/scenarios",
                headers=ALICE,
                json={
                    "label": "Salary review",
                    "snapshots": [
                        {"label": "Now", "as_at": "2025-12-31",
                         "facts": {**facts, "paye_income": "50000"}},
                        {"label": "January", "as_at": "2025-01-31",
                         "facts": {**facts, "paye_income": "30000"}},
                    ],
                },
            )  # fmt: skip
            assert created.status_code == 201, created.text
            review = created.json()
            refused = await client.post(
                "/api/chat",
                headers=BOB,
                json={"message": "what if I earned €60,000 instead?", "scenarioId": review["id"]},
            )
            assert refused.status_code == 404
            assert "Salary review" not in refused.text and "50000" not in refused.text
            linked = await chat(
                client,
                {"message": "what if I earned €60,000 instead?", "scenarioId": review["id"]},
            )
            scenario = linked[-1].payload["scenario"]
            assert scenario["base"] == {
                "scenarioId": review["id"],
                "label": "Salary review",
                "snapshot": "Now",
                "asAt": "2025-12-31",
            }
            assert scenario["columns"] == ["Salary review (Now)", "what if"]
            (compared,) = scenario["comparison"]["snapshots"]
            totals = {t["tax"]: Decimal(t["difference"]) for t in compared["totals"]}
            assert totals["income_tax"] == Decimal("4000.00")
            answer = _answer(linked)
            assert "€7,200.00" in answer and "€11,200.00" in answer
            assert "Salary review (Now)" in answer
            cited = set(_CITED.findall(answer))
            assert cited and cited <= {c["id"] for c in linked[-1].payload["citations"]}
            again = (await client.get(f"/api/scenarios/{review['id']}", headers=ALICE)).json()
            assert again["snapshots"] == review["snapshots"]  # read, never rewritten


async def test_a_sale_stated_in_one_turn_is_moved_by_the_next_turns_date_only_what_if(
    seeded_data_dir: Any,
) -> None:
    """Turn 1 states a UK sale of shares (date, proceeds, cost) and an income; turn 2 asks only
    "what if I sold them in May instead?" — no scenario linked, no facts repeated: the sale
    moves from 15 March 2025 (2024-25) to May 2025 (2025-26), and the what-if column is
    computed with 2025-26's nodes."""
    lexicon = ConceptLexicon.from_eurovoc()
    provider = RecordingProvider(ExtractiveProvider(lexicon))
    settings = Settings(data_dir=seeded_data_dir, log_json=False, heartbeat_seconds=0.05)
    app = create_app(settings, lexicon=lexicon, providers={"extractive": provider})
    with running_server(app) as base:
        async with httpx.AsyncClient(base_url=base, timeout=60) as client:
            stated = await chat(
                client,
                {
                    "message": "I earn £50,000 as a PAYE employee. I sold shares on 15 March "
                    "2025 for £20,000 that I bought in 2019 for £5,000."
                },
            )
            conversation = stated[-1].payload["conversationId"]
            assert "scenario" not in stated[-1].payload  # facts only: stored, nothing computed
            moved = await chat(
                client,
                {"message": "What if I sold them in May instead?", "conversationId": conversation},
            )
            done = moved[-1].payload
            scenario = done["scenario"]
            assert scenario["missing"] == []
            before, after = scenario["facts"]
            assert (before["tax_year"], before["disposals"][0]["disposed_on"]) == (
                2024,
                "2025-03-15",
            )
            assert (after["tax_year"], after["disposals"][0]["disposed_on"]) == (2025, "2025-05-01")
            (compared,) = scenario["comparison"]["snapshots"]
            cgt = {line["key"]: line for line in compared["lines"] if line["tax"] == "cgt"}
            # worked by hand: gain £15,000 less the £3,000 exemption = £12,000; £50,000 income
            # leaves £270 of the basic rate band (£12,570 + £37,700 - £50,000): £270 at 18%
            # = £48.60, £11,730 at 24% = £2,815.20 — the same rates either side of 6 April 2025
            assert cgt["lower_rate"]["amounts"] == ["48.60", "48.60"]
            assert cgt["higher_rate"]["amounts"] == ["2815.20", "2815.20"]
            # each column with its own year's nodes: 2024-25's second period (from 30 October
            # 2024) for the March sale, 2025-26's for the May one
            used = set(cgt["lower_rate"]["node_ids"]) | set(cgt["higher_rate"]["node_ids"])
            assert {"UK:RATE:CGT_LOWER:2024:P2", "UK:RATE:CGT_LOWER:2025:P1"} <= used
            assert "UK:THRESHOLD:CGT_ANNUAL_EXEMPT:2025" in used
            answer = _answer(moved)
            assert "£2,815.20" in answer and "[UK:RATE:CGT_HIGHER:2025:P1]" in answer
            cited = set(_CITED.findall(answer))
            assert cited and cited <= {c["id"] for c in done["citations"]}
            # the conversation's stored scenario now holds the moved sale as its what-if
            listed = (await client.get("/api/scenarios", headers=ALICE)).json()
            (mine,) = [s for s in listed if s["label"] == CHAT_SCENARIO_PREFIX + conversation]
            assert [s["facts"]["tax_year"] for s in mine["snapshots"]] == [2024, 2025]
