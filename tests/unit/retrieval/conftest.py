"""A small synthetic graph in the shape ``corpus.graph_writes`` writes, plus seeded rule nodes."""

from __future__ import annotations

import pytest

from graph.models import GraphEdge, GraphNode

ACT = "EU:REG_2099_1"
OTHER = "EU:REG_2098_7"


def provision(node_id: str, label: str, text: str, title: str | None = None) -> GraphNode:
    props: dict[str, object] = {"text": text, "instrument": node_id.rsplit(":", 1)[0]}
    if title:
        props["title"] = title
    return GraphNode(id=node_id, label=label, properties=props)


def part_of(child: str, parent: str) -> GraphEdge:
    return GraphEdge(source=child, target=parent, type="PART_OF")


@pytest.fixture
def small_graph() -> tuple[list[GraphNode], list[GraphEdge]]:
    """Two acts ("Widget Act" and "Gadget Regulation"), a recital, an annex, rule nodes."""
    nodes = [
        GraphNode(
            id=ACT,
            label="EURegulation",
            properties={
                "name": "Regulation (EU) 2099/1 (Widget Act)",
                "title": "Regulation (EU) 2099/1 on widgets (Widget Safety Act)",
                "number": "2099/1",
            },
        ),
        GraphNode(
            id=OTHER,
            label="EURegulation",
            properties={"name": "Regulation (EU) 2098/7 (Gadget Regulation)", "number": "2098/7"},
        ),
        provision(f"{ACT}:CHAPTER_II", "Chapter", "", "PROHIBITED WIDGET PRACTICES"),
        provision(
            f"{ACT}:ART_5",
            "Article",
            "1. The following widget practices shall be prohibited: glowing widgets.\n"
            "2. Member States may lay down penalties in accordance with Article 9.",
            "Prohibited practices",
        ),
        provision(
            f"{ACT}:ART_5_1",
            "Paragraph",
            "1. The following widget practices shall be prohibited: glowing widgets.",
        ),
        provision(
            f"{ACT}:ART_5_2",
            "Paragraph",
            "2. Member States may lay down penalties in accordance with Article 9.",
        ),
        provision(
            f"{ACT}:ART_9",
            "Article",
            "Administrative fines of up to EUR 35 000 000 shall apply to infringements.",
            "Penalties",
        ),
        provision(
            f"{ACT}:ART_12",
            "Article",
            "Providers shall register every widget in the Union database before sale.",
            "Registration",
        ),
        provision(f"{ACT}:REC_3", "Recital", "Glowing widgets harm sleep and should be banned."),
        provision(
            f"{ACT}:ANNEX_III",
            "Annex",
            "1. Widgets used in hospitals.\n2. Widgets used in schools.",
            "High-risk widgets",
        ),
        provision(
            f"{OTHER}:ART_17",
            "Article",
            "The data subject shall have the right to erasure of gadget data.",
            "Right to erasure",
        ),
        GraphNode(
            id="IE:RATE:VAT_STANDARD",
            label="Rate",
            properties={
                "name": "Standard rate of VAT (Ireland)",
                "value": 23.0,
                "unit": "%",
                "description": "The standard VAT rate on most goods and services in Ireland.",
            },
        ),
        GraphNode(
            id="UK:RATE:VAT_STANDARD",
            label="Rate",
            properties={
                "name": "Standard rate of VAT (United Kingdom)",
                "value": 20.0,
                "unit": "%",
                "description": "The standard VAT rate in the United Kingdom.",
            },
        ),
        GraphNode(
            id="TAX:IE:VAT",
            label="Concept",
            properties={
                "pref_label": "Value-Added Tax (Ireland)",
                "status": "confirmed",
                "jurisdiction": "IE",
            },
        ),
        GraphNode(id="LABEL:vat", label="Label", properties={"text": "VAT"}),
    ]
    edges = [
        part_of(f"{ACT}:ART_5", f"{ACT}:CHAPTER_II"),
        part_of(f"{ACT}:ART_5_1", f"{ACT}:ART_5"),
        part_of(f"{ACT}:ART_5_2", f"{ACT}:ART_5"),
        part_of(f"{ACT}:CHAPTER_II", ACT),
        GraphEdge(source=f"{ACT}:ART_5_2", target=f"{ACT}:ART_9", type="CITES"),
        GraphEdge(source="TAX:IE:VAT", target="IE:RATE:VAT_STANDARD", type="ALIGNS_WITH"),
        GraphEdge(source="TAX:IE:VAT", target="LABEL:vat", type="HAS_ALT_LABEL"),
    ]
    return nodes, edges
