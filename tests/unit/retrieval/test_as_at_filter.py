"""The as-at filter: only what was in force in the window is evidence (ADR 0032)."""

from __future__ import annotations

import pytest

from engine.retrieval import Retriever
from graph.models import GraphEdge, GraphNode
from tests.unit.retrieval.conftest import ACT

pytestmark = pytest.mark.unit


def rate(node_id: str, value: float, start: str | None, end: str | None) -> GraphNode:
    props: dict[str, object] = {
        "name": "VAT standard rate (Ireland)",
        "value": value,
        "unit": "percent",
        "description": "The standard rate of VAT",
    }
    if start:
        props["valid_from"] = start
    if end:
        props["valid_to"] = end
    return GraphNode(id=node_id, label="Rate", properties=props)


RATES = [
    rate("IE:RATE:A", 23.0, None, "2020-08-31"),
    rate("IE:RATE:B", 21.0, "2020-09-01", "2021-02-28"),
    rate("IE:RATE:C", 23.0, "2021-03-01", None),
    rate("IE:RATE:UNDATED", 13.5, None, None),
]
QUESTION = "What is the standard rate of VAT?"


@pytest.mark.parametrize(
    ("window", "expected"),
    [
        (("2020-12-01", "2020-12-01"), {"IE:RATE:B", "IE:RATE:UNDATED"}),
        (("2022-12-01", "2022-12-01"), {"IE:RATE:C", "IE:RATE:UNDATED"}),
        (("2019-06-01", "2019-06-01"), {"IE:RATE:A", "IE:RATE:UNDATED"}),
        # A window in force on some of its days: August to September 2020 holds A and B.
        (("2020-08-15", "2020-09-15"), {"IE:RATE:A", "IE:RATE:B", "IE:RATE:UNDATED"}),
        # The first and last days are inside the window.
        (("2021-02-28", "2021-02-28"), {"IE:RATE:B", "IE:RATE:UNDATED"}),
        (("2021-03-01", "2021-03-01"), {"IE:RATE:C", "IE:RATE:UNDATED"}),
    ],
)
def test_only_what_was_in_force_in_the_window_is_evidence(window, expected):
    result = Retriever(RATES).search(QUESTION, 10, as_at=window)
    assert set(result.ids) == expected


def test_without_a_window_nothing_is_filtered():
    assert set(Retriever(RATES).search(QUESTION, 10).ids) == {n.id for n in RATES}


def test_a_provision_inherits_its_acts_dates_unless_it_has_its_own(
    small_graph: tuple[list[GraphNode], list[GraphEdge]],
) -> None:
    nodes, edges = small_graph
    dated = [
        GraphNode(id=n.id, label=n.label, properties={**n.properties, "valid_from": "2030-01-01"})
        if n.id == ACT else n
        for n in nodes
    ]  # fmt: skip
    retriever = Retriever(dated, edges)
    before = retriever.search(
        "Are glowing widgets prohibited?", 10, as_at=("2029-12-31", "2029-12-31")
    )
    after = retriever.search(
        "Are glowing widgets prohibited?", 10, as_at=("2030-01-01", "2030-01-01")
    )
    assert not [i for i in before.ids if i.startswith(ACT)]
    assert [i for i in after.ids if i.startswith(ACT)]


def test_an_upserted_node_is_filtered_by_its_new_dates():
    retriever = Retriever(RATES)
    retriever.upsert([rate("IE:RATE:B", 21.0, "2020-09-01", "2020-09-30")])
    window = ("2020-12-01", "2020-12-01")
    assert "IE:RATE:B" not in retriever.search(QUESTION, 10, as_at=window).ids
    retriever.upsert([rate("IE:RATE:NEW", 9.0, "2020-11-01", None)])
    assert "IE:RATE:NEW" in retriever.search(QUESTION, 10, as_at=window).ids
