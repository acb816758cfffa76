"""EU law is evidence for a member state's question and for Northern Ireland's (the Windsor
Framework keeps EU VAT rules on goods there), not for a question about the UK alone: "the
standard rate of VAT in the UK" was answered from the VAT Directive's Article 97 (issue 23)."""

from __future__ import annotations

import pytest

from graph.models import GraphNode
from tests.support.fakes import built

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

QUESTION = "What is the standard rate of VAT?"


def node(node_id: str, jurisdiction: str, description: str) -> GraphNode:
    return GraphNode(
        id=node_id,
        label="Rate",
        properties={
            "name": "VAT standard rate",
            "jurisdiction": jurisdiction,
            "description": description,
        },
    )


NODES = (
    node("UK:RATE:VAT_STANDARD", "UK", "The UK standard rate of VAT is 20%."),
    node("EU:DIR_2006_112:ART_97", "EU", "The standard rate of VAT must be at least 15%."),
    node("IE:RATE:VAT_STANDARD", "IE", "The Irish standard rate of VAT is 23%."),
)


async def ids(jurisdictions: list[str]) -> set[str]:
    _, index = await built(*NODES)
    return set(index.search(QUESTION, 6, jurisdictions).ids())


async def test_a_question_about_the_uk_alone_is_not_answered_from_eu_law() -> None:
    assert await ids(["UK"]) == {"UK:RATE:VAT_STANDARD"}


async def test_a_member_state_or_northern_ireland_keeps_eu_law_beside_its_own() -> None:
    assert await ids(["IE"]) == {"IE:RATE:VAT_STANDARD", "EU:DIR_2006_112:ART_97"}
    assert "EU:DIR_2006_112:ART_97" in await ids(["NI"])
    assert "EU:DIR_2006_112:ART_97" in await ids(["UK", "IE"])  # a cross-border question
