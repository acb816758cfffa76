"""``to_graph_writes`` against ``schema/graph.yaml`` and the real ingress guard."""

from __future__ import annotations

from collections import Counter

import pytest

from corpus import label_for_id, to_graph_writes
from graph.ingress_guard import IngressGuard, PiiFindingLike
from graph.schema import load_schema

pytestmark = pytest.mark.unit

AI = "EU:REG_2024_1689"


class NoPii:
    """The guard's PII scan is egress's business; here only the schema checks matter."""

    def detect(self, text: str) -> list[PiiFindingLike]:
        return []


@pytest.fixture(scope="module")
def writes(ai_act, gdpr):
    return to_graph_writes(ai_act, [gdpr])


@pytest.fixture(scope="module")
def guard():
    return IngressGuard(load_schema(), NoPii())


def test_every_edge_passes_the_guard(writes, guard):
    _, edges = writes
    limit = load_schema().limits.max_batch
    for start in range(0, len(edges), limit):
        guard.check_edges(edges[start : start + limit])


def test_every_node_passes_the_guard_long_provision_texts_included(writes, guard):
    # Article 3 of the AI Act has ~17,000 characters: ``text`` has its own, larger limit.
    nodes, _ = writes
    limits = load_schema().limits
    assert max(len(str(n.properties.get("text", ""))) for n in nodes) > limits.max_string_chars
    for start in range(0, len(nodes), limits.max_batch):
        guard.check_nodes(nodes[start : start + limits.max_batch])


def test_nodes(writes, ai_act):
    nodes, _ = writes
    by_id = {n.id: n for n in nodes}
    assert len(nodes) == len(ai_act.provisions) + 1
    assert by_id[AI].label == "EURegulation"
    assert by_id[AI].properties["celex"] == "32024R1689"
    article = by_id[f"{AI}:ART_5"]
    assert article.label == "Article"
    assert article.properties["title"] == "Prohibited AI practices"
    assert article.properties["name"] == "AI Act Article 5"
    assert article.properties["source_urls"] == [ai_act.by_id[f"{AI}:ART_5"].url]
    assert by_id[f"{AI}:ART_5_1"].properties["citation"] == "AI Act, Article 5(1)"
    assert by_id[f"{AI}:REC_12"].properties["name"] == "AI Act recital (12)"
    section = by_id[f"{AI}:CHAPTER_III_SECTION_2"]
    assert (section.label, section.properties["category"]) == ("Chapter", "section")
    assert section.properties["name"] == "AI Act Chapter III, Section 2"
    assert Counter(n.label for n in nodes) == {
        "EURegulation": 1,
        "Article": 113,
        "Paragraph": 500,
        "Recital": 180,
        "Annex": 13,
        "Chapter": 29,
    }


def test_part_of_edges_build_the_tree(writes, ai_act):
    nodes, edges = writes
    part_of = {e.source_id: e.target_id for e in edges if e.type == "PART_OF"}
    ids = {n.id for n in nodes}
    assert set(part_of) == ids - {AI}
    assert set(part_of.values()) <= ids
    assert part_of[f"{AI}:ART_5_1"] == f"{AI}:ART_5"
    assert part_of[f"{AI}:ART_5"] == f"{AI}:CHAPTER_II"
    assert part_of[f"{AI}:CHAPTER_III_SECTION_2"] == f"{AI}:CHAPTER_III"
    assert part_of[f"{AI}:CHAPTER_III"] == AI
    assert part_of[f"{AI}:REC_1"] == part_of[f"{AI}:ANNEX_III"] == AI


def test_cites_edges(writes):
    _, edges = writes
    cites = {(e.source_id, e.target_id): e for e in edges if e.type == "CITES"}
    edge = cites[(f"{AI}:ANNEX_III", f"{AI}:ART_6_2")]
    assert (edge.source_label, edge.target_label) == ("Annex", "Paragraph")
    assert cites[(f"{AI}:REC_14", "EU:REG_2016_679:ART_4")].target_label == "Article"
    assert cites[(f"{AI}:REC_10", "EU:REG_2016_679")].target_label == "EURegulation"
    jurisdiction = [e for e in edges if e.type == "IN_JURISDICTION"]
    assert [(e.source_id, e.target_id) for e in jurisdiction] == [(AI, "EU")]


@pytest.mark.parametrize(
    ("node_id", "label"),
    [
        ("EU:REG_2016_679", "EURegulation"),
        ("EU:DIR_2016_680", "EUDirective"),
        ("EU:DEC_2008_768", "EUDecision"),
        ("EU:REG_2016_679:ART_4", "Article"),
        ("EU:REG_2016_679:ART_9_1", "Paragraph"),
        ("EU:REG_2016_679:REC_12", "Recital"),
        ("EU:REG_2024_903:ANNEX", "Annex"),
        ("EU:REG_2024_1689:ANNEX_III", "Annex"),
        ("EU:REG_2024_1689:CHAPTER_III_SECTION_2", "Chapter"),
        ("EU:REG:2016_679", None),  # the seeds' older instrument id shape
        ("IE:STATUTE:TCA_1997", None),
    ],
)
def test_label_for_id(node_id, label):
    assert label_for_id(node_id) == label
