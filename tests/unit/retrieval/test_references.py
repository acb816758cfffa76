"""Explicit references and act names in questions."""

from __future__ import annotations

import pytest

from engine.retrieval.acts import ActCatalogue
from engine.retrieval.places import PlaceKind, find_places
from engine.retrieval.references import find_provision_refs, roman, tie_to_acts
from graph.models import GraphNode

pytestmark = pytest.mark.unit

GDPR = "EU:REG_2016_679"
AI_ACT = "EU:REG_2024_1689"


@pytest.fixture
def catalogue() -> ActCatalogue:
    acts = [
        GraphNode(
            id=GDPR,
            label="EURegulation",
            properties={
                "name": "Regulation (EU) 2016/679 (GDPR)",
                "title": "Regulation (EU) 2016/679 on the protection of natural persons "
                "(General Data Protection Regulation)",
                "number": "2016/679",
            },
        ),
        GraphNode(
            id=AI_ACT,
            label="EURegulation",
            properties={
                "name": "Regulation (EU) 2024/1689 (AI Act)",
                "title": "Regulation (EU) 2024/1689 laying down harmonised rules on artificial "
                "intelligence (Artificial Intelligence Act)",
                "number": "2024/1689",
            },
        ),
        GraphNode(
            id="IE:STATUTE:TCA_1997",
            label="Statute",
            properties={"name": "Taxes Consolidation Act 1997"},
        ),
    ]
    return ActCatalogue(acts, [GDPR, AI_ACT])


def refs(question: str, catalogue: ActCatalogue) -> list[tuple[str, str, str | None, str | None]]:
    tied = tie_to_acts(find_provision_refs(question), catalogue.mentions(question), question)
    return [(r.kind, r.number, r.paragraph, r.instrument_id) for r in tied]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What does Article 17 GDPR say?", [("article", "17", None, GDPR)]),
        ("Art. 5(1)(c) of the AI Act", [("article", "5", "1", AI_ACT)]),
        ("explain art 35 gdpr", [("article", "35", None, GDPR)]),
        ("GDPR Article 6 and the AI Act", [("article", "6", None, GDPR)]),
        ("What is in Annex III of the AI Act?", [("annex", "III", None, AI_ACT)]),
        ("Annex 4 of Regulation (EU) 2024/1689", [("annex", "IV", None, AI_ACT)]),
        ("What is recital 47 about?", [("recital", "47", None, None)]),
        ("paragraph 2 of Article 6 of the GDPR", [("article", "6", "2", GDPR)]),
        (
            "Articles 15 to 17 of the General Data Protection Regulation",
            [("article", n, None, GDPR) for n in ("15", "16", "17")],
        ),
        ("Article 9 of the Artificial Intelligence Act", [("article", "9", None, AI_ACT)]),
        ("Chapter III of 2024/1689", [("chapter", "III", None, AI_ACT)]),
        ("What are the rules on consent?", []),
    ],
)
def test_explicit_references(
    question: str, expected: list[tuple[str, str, str | None, str | None]], catalogue: ActCatalogue
) -> None:
    assert refs(question, catalogue) == expected


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("Under the Digital Services Act, what applies?", [("Digital Services Act", None)]),
        ("How fast must a bank report under DORA?", [("DORA", None)]),
        ("Does Directive 2003/88/EC limit hours?", [("Directive 2003/88/EC", None)]),
        (
            "Does the Texas Data Privacy and Security Act apply?",
            [("Texas Data Privacy and Security Act", None)],
        ),
        ("What does the GDPR say about erasure?", [("GDPR", GDPR)]),
        ("Is the EU AI Act in force?", [("AI Act", AI_ACT)]),
        ("Regulation (EU) 2016/679 and the NIS2 Directive", [
            ("Regulation (EU) 2016/679", GDPR), ("NIS2 Directive", None)]),
        ("Section 81 of the Taxes Consolidation Act 1997",
         [("Taxes Consolidation Act 1997", "IE:STATUTE:TCA_1997")]),
    ],
)  # fmt: skip
def test_act_mentions_known_and_unknown(
    question: str, names: list[tuple[str, str | None]], catalogue: ActCatalogue
) -> None:
    found = [(m.name, m.instrument_id) for m in catalogue.mentions(question)]
    assert found == names


def test_roman_numbers() -> None:
    assert [roman(n) for n in ("1", "3", "4", "9", "13", "iii")] == [
        "I", "III", "IV", "IX", "XIII", "III"]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "places"),
    [
        ("the French wealth tax", [("France", PlaceKind.MEMBER_STATE)]),
        ("a US company selling in Germany", [
            ("the United States", PlaceKind.OTHER), ("Germany", PlaceKind.MEMBER_STATE)]),
        ("VAT in Northern Ireland", [("Northern Ireland", PlaceKind.COVERED)]),
        ("the California Consumer Privacy Act", [("California", PlaceKind.OTHER)]),
        ("send us the form", []),
    ],
)  # fmt: skip
def test_places(question: str, places: list[tuple[str, PlaceKind]]) -> None:
    assert [(p.name, p.kind) for p in find_places(question)] == places
