"""A what-if in the chat says who qualifies and which deadlines bind (issue 28, ADR 0071
addendum): the evidence index gives the rules in memory (rule nodes with their REQUIRES and
HAS_TIMELINE edges, nothing hidden), the computation carries each column's eligibility, the
prompt section its ELIGIBILITY and DEADLINE rows with node ids, and the offline provider's table
shows them."""

from __future__ import annotations

from typing import cast

import pytest

from engine.evidence import EvidenceIndex
from graph.models import GraphEdge, GraphNode
from graph.port import GraphReader
from scenarios import load_rules
from scenarios.chat import WhatIfResult, markdown_table, prompt_section, read_section, what_if
from scenarios.eligibility import RULE_LABELS
from scenarios.stated import parse_what_if
from tests.unit.test_scenario_support import SeedReader

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

STATED = "I earn €50,000 as a PAYE employee, single, aged 35, in 2025"
EMPLOYEE = "IE:RELIEF:EMPLOYEE_TAX_CREDIT"
CONDITION = "IE:CONDITION:NOT_PROPRIETARY_DIRECTOR"
FORM_11 = "IE:OBLIGATION:FORM_11_RETURN"
FILING = "IE:TIMELINE:RETURN_DEADLINE_31_OCT"


async def test_the_index_gives_rule_nodes_and_their_rule_edges_in_memory() -> None:
    index = EvidenceIndex(cast(GraphReader, object()))  # never read: a read would fail
    index._build(
        [
            GraphNode(id=EMPLOYEE, label="Relief", properties={"applies_when": "paye_income > 0"}),
            GraphNode(id=CONDITION, label="Condition", properties={"test": "x == false"}),
            GraphNode(id=FILING, label="Timeline", properties={"name": "31 October"}),
            GraphNode(id="IE:RELIEF:HIDDEN", label="Relief", properties={"status": "provisional"}),
            GraphNode(id="IE:TCA_1997:S_472", label="Section", properties={"text": "a credit"}),
        ],
        [
            GraphEdge(source=EMPLOYEE, target=CONDITION, type="REQUIRES"),
            GraphEdge(source=EMPLOYEE, target=FILING, type="HAS_TIMELINE"),
            GraphEdge(source=EMPLOYEE, target=FILING, type="RELATED"),
            GraphEdge(source="IE:RELIEF:HIDDEN", target=CONDITION, type="REQUIRES"),
            GraphEdge(source=EMPLOYEE, target="IE:TCA_1997:S_472", type="CITES"),
        ],
    )
    snapshot = await index.snapshot(RULE_LABELS)
    assert {n.id for n in snapshot.nodes} == {EMPLOYEE, CONDITION, FILING}
    assert {(e.source, e.target, e.type) for e in snapshot.edges} == {
        (EMPLOYEE, CONDITION, "REQUIRES"),
        (EMPLOYEE, FILING, "HAS_TIMELINE"),
    }
    rules = await load_rules(index)
    assert rules.requires == {EMPLOYEE: [CONDITION]} and rules.timelines == {EMPLOYEE: [FILING]}


async def _result(change: str, with_rules: bool = True, stated: str = STATED) -> WhatIfResult:
    question = parse_what_if(f"{stated} — {change}")
    assert question.change is not None
    reader = SeedReader()
    rules = await load_rules(reader) if with_rules else None
    return await what_if(reader, question.stated, question.change, rules)


async def test_a_what_if_says_which_credit_cannot_be_told_and_the_fact_it_needs() -> None:
    result = await _result("what if I earned €60,000?")
    assert result.eligibility is not None and len(result.eligibility) == 2
    for column in result.eligibility:
        (credit,) = [e for e in column if e.node_id == EMPLOYEE]
        assert credit.status == "cannot_tell" and credit.missing == ["proprietary_director"]
        assert [c.node_id for c in credit.conditions] == [CONDITION]
    assert {EMPLOYEE, CONDITION} <= set(result.node_ids)  # citable: they join the evidence

    section = prompt_section(result)
    (row,) = [ln for ln in section.splitlines() if ln.startswith("- ELIGIBILITY ")]
    assert CONDITION in row and "cannot tell: missing proprietary_director" in row
    assert "- DEADLINE " not in section  # a PAYE employee's what-if binds no deadline here
    read = read_section(section)
    assert read is not None
    table = markdown_table(*read)
    assert "Who qualifies" in table
    assert (
        "| Employee tax credit (PAYE credit) | cannot tell: missing proprietary_director "
        f"| cannot tell: missing proprietary_director | [{CONDITION}] [{EMPLOYEE}] |"
    ) in table


async def test_self_employment_in_the_what_if_binds_form_11_and_its_deadline() -> None:
    result = await _result("what if I also had €20,000 of self-employed income?")
    assert result.eligibility is not None
    as_stated, changed = result.eligibility
    assert FORM_11 not in {e.node_id for e in as_stated}
    (filing,) = [e for e in changed if e.node_id == FORM_11]
    assert filing.status == "applies"
    assert [(d.node_id, d.end.isoformat() if d.end else None) for d in filing.deadlines] == [
        (FILING, "2026-10-31")
    ]
    read = read_section(prompt_section(result))
    assert read is not None
    meta, rows, gaps = read
    (deadline,) = [d for d in meta["deadlines"] if d["item"].endswith("(Form 11)")]
    assert deadline["dates"] == [None, "2026-10-31"] and deadline["nodes"] == [FILING, FORM_11]
    (item,) = [i for i in meta["eligibility"] if i["node"] == FORM_11]
    assert item["statuses"] == ["not relevant", "applies"] and item["changed"] is True
    table = markdown_table(meta, rows, gaps)
    assert "Deadlines that bind" in table
    assert f"| — | due 2026-10-31 | [{FILING}] [{FORM_11}] |" in table


async def test_a_relief_whose_condition_fails_does_not_apply_and_names_the_condition() -> None:
    stated = (
        "I'm 40, single, and earn €50,000 as a PAYE employee in 2025. I sold shares on "
        "3 March 2025 for €30,000, which I bought on 1 June 2015 for €10,000."
    )
    result = await _result("What if I earned €60,000?", stated=stated)
    assert result.eligibility is not None
    (relief,) = [e for e in result.eligibility[0] if e.node_id == "IE:RELIEF:RETIREMENT_RELIEF"]
    assert relief.status == "does_not_apply" and relief.about == "shares"
    failed = {c.node_id for c in relief.conditions if c.status == "not_met"}
    assert failed == {"IE:CONDITION:RR_AGE_55", "IE:CONDITION:RR_OWNERSHIP_10_YEARS"}  # 9 years
    read = read_section(prompt_section(result))
    assert read is not None
    (item,) = [i for i in read[0]["eligibility"] if i["node"] == "IE:RELIEF:RETIREMENT_RELIEF"]
    assert item["item"] == "CGT retirement relief (shares)"
    assert item["statuses"][0].startswith("does not apply: not met: ")
    assert "[IE:CONDITION:RR_AGE_55]" in item["statuses"][0]
    # the payment date follows the disposal (sold in March: due 15 December 2025)
    (payment,) = [
        d for d in read[0]["deadlines"] if d["nodes"][0] == "IE:TIMELINE:CGT_PAYMENT_15_DEC"
    ]
    assert payment["dates"] == ["2025-12-15", "2025-12-15"]


async def test_without_rules_the_what_if_gives_amounts_only() -> None:
    result = await _result("what if I earned €60,000?", with_rules=False)
    assert result.eligibility is None and result.comparison is not None
    assert EMPLOYEE not in result.node_ids
    section = prompt_section(result)
    assert "- ELIGIBILITY " not in section and "- ROW " in section
