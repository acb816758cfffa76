"""A value that changes within a year, asked without a date: the year's other periods follow
the one in force (issue 23, undated PRSI questions quoted one rate)."""

import pytest

from engine.evidence import Evidence, EvidenceHit
from engine.facts_periods import series_of, with_year_periods
from engine.retrieval import RelevanceVerdict
from graph.models import GraphNode

pytestmark = pytest.mark.unit


def rate(node_id: str, value: float, start: str, end: str) -> GraphNode:
    return GraphNode(id=node_id, label="Rate", properties={
        "name": f"rate {node_id}", "value": value, "unit": "percent",
        "valid_from": start, "valid_to": end})  # fmt: skip


NODES = {
    n.id: n
    for n in (
        rate("IE:RATE:PRSI_A_EMPLOYEE:2026:P1", 4.2, "2026-01-01", "2026-09-30"),
        rate("IE:RATE:PRSI_A_EMPLOYEE:2026:P2", 4.35, "2026-10-01", "2026-12-31"),
        rate("IE:RATE:PRSI_A_EMPLOYEE:2025:P1", 4.1, "2025-01-01", "2025-09-30"),
        rate("IE:RATE:USC_BAND_4", 8, "2025-01-01", "2025-12-31"),
    )
}


def hits(*ids: str) -> Evidence:
    return Evidence(
        hits=[EvidenceHit(node=NODES[i], text=f"text {i}", score=1.0) for i in ids],
        verdict=RelevanceVerdict(answerable=True),
    )


def test_the_years_other_periods_follow_the_one_found_in_its_order():
    found = with_year_periods(hits("IE:RATE:PRSI_A_EMPLOYEE:2026:P2", "IE:RATE:USC_BAND_4"),
                              NODES.get)  # fmt: skip
    assert found.ids() == [
        "IE:RATE:PRSI_A_EMPLOYEE:2026:P2",
        "IE:RATE:PRSI_A_EMPLOYEE:2026:P1",  # 4.2% to 30 September: the same year only
        "IE:RATE:USC_BAND_4",
    ]


def test_a_period_found_already_moves_up_once_and_other_evidence_is_untouched():
    found = with_year_periods(
        hits("IE:RATE:PRSI_A_EMPLOYEE:2026:P1", "IE:RATE:USC_BAND_4",
             "IE:RATE:PRSI_A_EMPLOYEE:2026:P2"), NODES.get)  # fmt: skip
    assert found.ids() == [
        "IE:RATE:PRSI_A_EMPLOYEE:2026:P1",
        "IE:RATE:PRSI_A_EMPLOYEE:2026:P2",
        "IE:RATE:USC_BAND_4",
    ]
    plain = hits("IE:RATE:USC_BAND_4")
    assert with_year_periods(plain, NODES.get) is plain


def test_series_ids():
    assert series_of("IE:RATE:PRSI_A_EMPLOYEE:2026:P2") == ("IE:RATE:PRSI_A_EMPLOYEE", 2026, 2)
    assert series_of("IE:THRESHOLD:SRB_SINGLE:2025") is None
