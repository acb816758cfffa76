"""Seed facts that answer advisers (issue 23): a node holds what its name says, and an undated
node agrees with the dated periods of the same fact on the day it says it starts."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.timeline import TimelineRule

pytestmark = pytest.mark.unit

SEEDS_DIR = Path(__file__).resolve().parents[2] / "seeds" / "rules"
_DATED = re.compile(r"^(?P<base>.+):(?P<year>\d{4})(?::P\d+)?$")
_SURCHARGE = re.compile(r"surcharge of (\d+(?:\.\d+)?)\s*%|(\d+(?:\.\d+)?)\s*% (?:\w+ )?surcharge")


def _nodes() -> dict[str, dict[str, Any]]:
    nodes: dict[str, dict[str, Any]] = {}
    for path in sorted(SEEDS_DIR.glob("*.yaml")):
        for node in yaml.safe_load(path.read_text()).get("nodes") or []:
            nodes[node["id"]] = {"label": node["label"], **(node.get("properties") or {})}
    return nodes


def _day(value: object) -> date | None:
    return date.fromisoformat(str(value)) if value else None


def test_a_surcharge_rate_holds_the_surcharge_not_the_combined_rate():
    # Round 3: IE:RATE:USC_SURCHARGE held 11 (8% plus the 3% surcharge) under the surcharge's
    # name; "what is the USC surcharge?" answered 11 percent.
    surcharges = {
        node_id: props
        for node_id, props in _nodes().items()
        if props["label"] == "Rate" and "surcharge" in str(props.get("name", "")).lower()
    }
    assert "IE:RATE:USC_SURCHARGE" in surcharges
    for node_id, props in surcharges.items():
        stated = _SURCHARGE.search(str(props.get("description", "")))
        assert stated is not None, node_id
        assert float(props["value"]) == float(stated[1] or stated[2]), node_id


def test_an_undated_fact_agrees_with_its_dated_periods_on_the_day_it_starts():
    # Round 3: the Class S minimum (EUR 650) said it started on 2024-01-01, when the dated
    # periods (gov.ie, Revenue) hold EUR 500 to 30 September 2024 and EUR 650 from 1 October.
    nodes = _nodes()
    checked = 0
    for node_id, props in nodes.items():
        if "value" not in props or _DATED.match(node_id):
            continue
        start = _day(props.get("valid_from") or props.get("effective_from"))
        if start is None:
            continue
        for dated_id, dated in nodes.items():
            found = _DATED.match(dated_id)
            if found is None or found["base"] != node_id:
                continue
            first, last = _day(dated.get("valid_from")), _day(dated.get("valid_to"))
            if first and last and first <= start <= last:
                checked += 1
                assert float(dated["value"]) == float(props["value"]), (node_id, dated_id)
    assert checked >= 1  # the check ran on at least one fact that has dated periods


def _seed_rule(node_id: str) -> TimelineRule:
    made = TimelineRule.from_node(node_id, _nodes()[node_id])
    assert made is not None, node_id
    return made


def test_seeded_deadlines_count_from_what_their_words_say():
    # Round 3: "Form 12 deadline for 2025?" got the R&D credit's "12 months" counted from
    # 1 January 2025 (its duration_unit said "months", not from the end of which period) and no
    # Form 12 date.
    from engine.timeline import Asked, when

    today = date(2026, 11, 28)
    year = Asked(date(2025, 1, 1), date(2025, 12, 31), "year")
    assert when(_seed_rule("IE:TIMELINE:RD_CLAIM_12_MONTHS"), year, today) is None
    form_12 = when(_seed_rule("IE:TIMELINE:FORM_12_DUE_31_OCT"), year, today)
    assert form_12 is not None and form_12.end == date(2026, 10, 31)
    period_end = Asked(date(2025, 3, 31), date(2025, 3, 31), "day", ends_period=True)
    computed = when(_seed_rule("IE:TIMELINE:RD_CLAIM_12_MONTHS"), period_end, today)
    assert computed is not None and computed.end == date(2026, 3, 31), computed
