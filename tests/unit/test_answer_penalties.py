"""The fines an act sets, first, for a question asking how large a fine can be (issue 23)."""

import pytest

from engine.answer_penalties import asks_fine_amount, fines_first, sets_fines
from engine.evidence import Evidence, EvidenceHit
from engine.retrieval import RelevanceVerdict
from graph.models import GraphNode

pytestmark = pytest.mark.unit


def article(node_id: str, text: str) -> GraphNode:
    return GraphNode(id=node_id, label="Article",
                     properties={"text": text, "instrument": "EU:REG_2016_679"})  # fmt: skip


ART_25 = article("EU:REG_2016_679:ART_25", "The controller shall implement measures.")
ART_83 = article(
    "EU:REG_2016_679:ART_83",
    "4. Infringements … shall be subject to administrative fines up to 10 000 000 EUR …:",
)
ART_84 = article("EU:REG_2016_679:ART_84", "Member States shall lay down the rules on penalties.")
ARTICLES = {"EU:REG_2016_679": [ART_25, ART_83, ART_84]}


def found(*nodes: GraphNode) -> Evidence:
    return Evidence(
        hits=[EvidenceHit(node=n, text=f"text {n.id}", score=1.0) for n in nodes],
        verdict=RelevanceVerdict(answerable=True),
    )


def first(evidence: Evidence, question: str, acts: list[str]) -> list[str]:
    def hit(node: GraphNode) -> EvidenceHit:
        return EvidenceHit(node=node, text=f"lent {node.id}", score=0.0)

    return fines_first(evidence, question, acts, lambda a: ARTICLES.get(a, []), hit).ids()


def test_the_article_setting_fines_comes_first_though_the_search_ranked_others():
    # Dev (thr-520): "… for infringing the controller's obligations under Articles 25 to 39?"
    # was answered from Articles 25 and 26; Article 83 sets the fine.
    question = "What is the maximum GDPR fine in euro for the obligations under Articles 25 to 39?"
    assert first(found(ART_25), question, ["EU:REG_2016_679"]) == [ART_83.id, ART_25.id]
    assert first(found(ART_25, ART_83), question, ["EU:REG_2016_679"]) == [ART_83.id, ART_25.id]


def test_only_a_fines_amount_asked_of_a_named_act_moves_anything():
    evidence = found(ART_25)
    assert first(evidence, "What does Article 25 require?", ["EU:REG_2016_679"]) == [ART_25.id]
    assert first(evidence, "What is the maximum fine in euro?", []) == [ART_25.id]
    assert asks_fine_amount("How much can the AI Act fine a provider?")
    assert not asks_fine_amount("Who imposes fines under the GDPR?")
    assert sets_fines(ART_83) and not sets_fines(ART_84)
