"""The retriever over the AI Act as shipped (``seeds/legal``) and mapped by ``corpus``."""

from __future__ import annotations

import pytest

from corpus import parse_act, shipped_acts, to_graph_writes
from engine.retrieval import HitReason, Retriever
from graph.models import GraphEdge, GraphNode

pytestmark = pytest.mark.unit

AI_ACT = "EU:REG_2024_1689"


@pytest.fixture(scope="module")
def ai_act() -> Retriever:
    [path] = [p for p in shipped_acts() if "32024R1689" in p.name]
    writes, links = to_graph_writes(parse_act(path))
    nodes = [GraphNode(id=w.id, label=w.label, properties=dict(w.properties)) for w in writes]
    edges = [GraphEdge(source=e.source_id, target=e.target_id, type=e.type) for e in links]
    return Retriever(nodes, edges)


def test_article_6_2_resolves_to_its_paragraph(ai_act: Retriever) -> None:
    hits = ai_act.search("What does Article 6(2) of the AI Act say?").hits
    assert (hits[0].node.id, hits[0].why) == (f"{AI_ACT}:ART_6_2", HitReason.EXPLICIT)
    assert hits[1].node.id == f"{AI_ACT}:ART_6"


def test_prohibited_practices_rank_article_5_in_the_top_five(ai_act: Retriever) -> None:
    result = ai_act.search("Which AI practices are prohibited?")
    assert f"{AI_ACT}:ART_5" in result.ids[:5]
    assert result.verdict.answerable


def test_annex_iii_by_name(ai_act: Retriever) -> None:
    assert ai_act.search("What is in Annex III of the AI Act?").ids[0] == f"{AI_ACT}:ANNEX_III"
