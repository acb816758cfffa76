"""An act asked for by a name made of its own title (issue 26, defect 11).

After ``regintel ingest`` of Directive 2014/92/EU (Akoma Ntoso), "Article 16 of the Payment
Accounts Directive" was refused as an unknown instrument while "Directive 2014/92/EU" worked:
the directive's title has no parenthetical short name, so the catalogue knew it by number only.
The nodes below carry the properties the AKN and JSON ingesters write for the two directives
(titles as the acts print them); no name of either is given to the catalogue.
"""

from __future__ import annotations

import pytest

from engine.retrieval import Retriever
from engine.retrieval.acts import ActCatalogue
from engine.retrieval.gate import RefusalReason
from graph.models import GraphEdge, GraphNode

pytestmark = pytest.mark.unit

PAD = "EU:DIR_2014_92"
PSD2 = "EU:DIR_2015_2366"
ACTS = [
    GraphNode(
        id=PAD,
        label="EUDirective",
        properties={
            "name": "Directive 2014/92/EU",
            "title": "Directive 2014/92/EU on the comparability of fees related to payment "
            "accounts, payment account switching and access to payment accounts with basic "
            "features",
            "number": "2014/92",
        },
    ),
    GraphNode(
        id=PSD2,
        label="EUDirective",
        properties={
            "name": "Directive (EU) 2015/2366",
            "title": "Directive (EU) 2015/2366 on payment services in the internal market, "
            "amending Directives 2002/65/EC, 2009/110/EC and 2013/36/EU and Regulation (EU) No "
            "1093/2010, and repealing Directive 2007/64/EC",
            "number": "2015/2366",
        },
    ),
]


def _article(act: str, number: str, title: str, text: str) -> GraphNode:
    return GraphNode(
        id=f"{act}:ART_{number}",
        label="Article",
        properties={"instrument": act, "number": number, "title": title, "text": text},
    )


@pytest.fixture
def catalogue() -> ActCatalogue:
    return ActCatalogue(ACTS, [PAD, PSD2])


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What does Article 16 of the Payment Accounts Directive require?", PAD),
        ("Article 16(2) of the Payment Account Directive", PAD),  # singular
        ("Annex II to the Payment Accounts Directive", PAD),
        ("Is a fee allowed under the Payment Services Directive?", PSD2),
    ],
)
def test_an_act_is_known_by_a_name_made_of_its_title(
    question: str, expected: str, catalogue: ActCatalogue
) -> None:
    assert [m.instrument_id for m in catalogue.mentions(question)] == [expected]


@pytest.mark.parametrize(
    "question",
    [
        "Article 3 of the Payment Accounts Regulation",  # a directive's words, another kind
        "Under the Payment Directive",  # one word: both titles hold it
        "Does the Payment Switching Directive apply?",  # words of the title, not in a row
        "What does the Civil Code say?",
    ],
)
def test_other_names_stay_unknown(question: str, catalogue: ActCatalogue) -> None:
    assert [m.instrument_id for m in catalogue.mentions(question)] == [None]


def test_the_article_is_found_and_not_refused() -> None:
    nodes = [
        *ACTS,
        _article(
            PAD,
            "16",
            "Right of access to a payment account with basic features",
            "1. Member States shall ensure that payment accounts with basic features are "
            "offered to consumers by all credit institutions or a sufficient number of credit "
            "institutions.",
        ),
        _article(
            PAD,
            "17",
            "Characteristics of a payment account with basic features",
            "1. Member States shall ensure that a payment account with basic features includes "
            "the following services.",
        ),
        _article(
            PSD2,
            "16",
            "Validity of authorisation",
            "The authorisation shall be valid in all Member States.",
        ),
    ]
    edges = [GraphEdge(source=n.id, target=n.properties["instrument"], type="PART_OF")
             for n in nodes[2:]]  # fmt: skip
    retriever = Retriever(nodes, edges)
    result = retriever.search("What does Article 16 of the Payment Accounts Directive say?", 5)
    assert result.verdict.answerable, result.verdict
    assert result.ids[0] == f"{PAD}:ART_16"
    unknown = retriever.search("What does Article 16 of the Payment Accounts Regulation say?", 5)
    assert unknown.verdict.reason is RefusalReason.UNKNOWN_INSTRUMENT


def test_a_name_inside_a_longer_one_in_a_title_is_not_that_act() -> None:
    """The VAT e-commerce directive's title says "distance sales of goods": the Sale of Goods
    Directive (2019/771, not held) is not it (ADR 0087). A name after "related to" still is
    (the Payment Accounts Directive, above)."""
    vat = GraphNode(
        id="EU:DIR_2017_2455",
        label="EUDirective",
        properties={
            "name": "Council Directive (EU) 2017/2455",
            "title": "Council Directive (EU) 2017/2455 amending Directive 2006/112/EC as regards "
            "certain value added tax obligations for supplies of services and distance sales "
            "of goods",
            "number": "2017/2455",
        },
    )
    catalogue = ActCatalogue([vat], [vat.id])
    question = "How long is the guarantee under the Sale of Goods Directive?"
    assert [m.instrument_id for m in catalogue.mentions(question)] == [None]
