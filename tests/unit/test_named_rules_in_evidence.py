"""What the question names lends the answer its rule however a search ranks it (issue 23): an
obligation named by what it is about ("the Irish income tax return" is the Form 11 return's),
a rule titled with the group the question names ("Group B")."""

from __future__ import annotations

import re
from typing import cast

import pytest

from engine.evidence import OUTSIDE_EU, EvidenceIndex
from engine.retrieval.tokenise import tokenise
from graph.models import GraphEdge, GraphNode
from graph.port import GraphReader

pytestmark = pytest.mark.unit


def _index() -> EvidenceIndex:
    index = EvidenceIndex(cast(GraphReader, object()))
    index._build(
        [
            GraphNode(id="IE:OBLIGATION:FORM_11_RETURN", label="Obligation",
                      properties={"name": "File an income tax return (Form 11)"}),
            GraphNode(id="IE:OBLIGATION:FORM_12_RETURN", label="Obligation",
                      properties={"name": "File a PAYE income tax return (Form 12)"}),
            GraphNode(id="IE:OBLIGATION:PRELIMINARY_TAX", label="Obligation",
                      properties={"name": "Pay preliminary tax"}),
            GraphNode(id="IE:OBLIGATION:KEEP_RECORDS", label="Obligation",
                      properties={"name": "Keep business records"}),
            GraphNode(id="UK:OBLIGATION:SA_RETURN", label="Obligation",
                      properties={"name": "File a Self Assessment return"}),
            GraphNode(id="IE:TIMELINE:RETURN_31_OCT", label="Timeline",
                      properties={"name": "Pay-and-file deadline 31 October"}),
            GraphNode(id="IE:THRESHOLD:CAT_GROUP_A", label="Threshold",
                      properties={"name": "CAT Group A threshold", "value": 400000}),
            GraphNode(id="IE:THRESHOLD:CAT_GROUP_B", label="Threshold",
                      properties={"name": "CAT Group B threshold", "value": 40000}),
            GraphNode(id="IE:TCA_1997:S_5", label="Section",
                      properties={"title": "Group B relief", "text": "a provision"}),
        ],
        [GraphEdge(source="IE:OBLIGATION:FORM_11_RETURN", target="IE:TIMELINE:RETURN_31_OCT",
                   type="HAS_TIMELINE")],
    )  # fmt: skip
    return index


def test_an_obligation_is_named_by_what_it_is_about_not_by_its_verb():
    index = _index()
    asked = "When is the Irish income tax return for the 2022 tax year due?"
    assert index.obligations_named(asked, ["IE"]) == ["IE:OBLIGATION:FORM_11_RETURN"]
    assert index.obligations_named("When is preliminary tax due?", []) == [
        "IE:OBLIGATION:PRELIMINARY_TAX"
    ]
    # Another jurisdiction's, a different return, or a verb alone name none.
    assert index.obligations_named(asked, ["UK"]) == []
    assert index.obligations_named("When is the PAYE return due?", ["IE"]) == []
    assert index.obligations_named("Must I keep records?", ["IE"]) == []
    named = index.obligations_named(asked, ["IE"])
    assert [n.id for n in index.timelines_of(named)] == ["IE:TIMELINE:RETURN_31_OCT"]


def test_rules_titled_with_a_group_are_the_rules_of_that_group_only():
    index = _index()
    assert [n.id for n in index.rules_titled("group b", ["IE"])] == ["IE:THRESHOLD:CAT_GROUP_B"]
    assert index.rules_titled("group c", ["IE"]) == []
    assert index.rules_titled("group b", ["UK"]) == []


def test_a_designator_is_one_token_so_group_b_is_not_group_a():
    assert "group_b" in tokenise("the CAT Group B threshold")
    assert "group_b" not in tokenise("the CAT Group A threshold")
    assert "class_1" in tokenise("Class 1 National Insurance")
    assert "group_b" not in tokenise("a group-based approach")


def test_rules_titled_reads_remembered_nodes_in_graph_order():
    """rules_titled's rows are kept between calls (a turn's cost, issue 29) and follow what is
    remembered since: a new rule, a rule retitled, a rule hidden, and a node already known that
    becomes a rule — which stays in its place among the nodes, as a fresh index has it."""
    index = _index()
    assert [n.id for n in index.rules_titled("group b", ["IE"])] == ["IE:THRESHOLD:CAT_GROUP_B"]
    index.remember(
        [
            GraphNode(id="IE:THRESHOLD:CAT_GROUP_C", label="Threshold",
                      properties={"name": "CAT Group B-like threshold (group c)"}),
            GraphNode(id="IE:THRESHOLD:CAT_GROUP_A", label="Threshold",
                      properties={"name": "CAT Group B threshold (was A)"}),
            # a Section, never titled, relabelled as a rule: it keeps its place (before C)
            GraphNode(id="IE:TCA_1997:S_5", label="Relief",
                      properties={"name": "Group B relief"}),
        ]
    )  # fmt: skip
    expected = [
        "IE:THRESHOLD:CAT_GROUP_A",
        "IE:THRESHOLD:CAT_GROUP_B",
        "IE:TCA_1997:S_5",
        "IE:THRESHOLD:CAT_GROUP_C",
    ]
    assert [n.id for n in index.rules_titled("group b", ["IE"])] == expected
    fresh = EvidenceIndex(cast(GraphReader, object()))
    fresh._build(list(index._nodes.values()), [])
    assert [n.id for n in fresh.rules_titled("group b", ["IE"])] == expected
    index.remember(
        [GraphNode(id="IE:THRESHOLD:CAT_GROUP_B", label="Threshold",
                   properties={"name": "CAT Group B threshold", "status": "merged"})]
    )  # fmt: skip
    assert "IE:THRESHOLD:CAT_GROUP_B" not in [n.id for n in index.rules_titled("group b", [])]


def _scanned(index: EvidenceIndex, words: str, jurisdictions: list[str]) -> list[str]:
    """What texts_saying answered by scanning every row (before its postings, issue 29)."""
    wanted = [re.compile(rf"\b{re.escape(w)}\b") for w in words.lower().split()]
    where = set(jurisdictions)
    if where - OUTSIDE_EU:
        where.add("EU")
    return [
        text
        for jurisdiction, text, folded in index._saying_rows().values()
        if (not where or jurisdiction in where) and all(w.search(folded) for w in wanted)
    ]


ASKED = ["group b", "Group", "b", "income tax return", "form 11", "(form 11)", "pay-and-file",
         "31 october", "tax", "nothing said", "", "b relief", "a"]  # fmt: skip


def test_texts_saying_from_its_postings_is_what_a_scan_of_every_row_finds():
    index = _index()
    for jurisdictions in ([], ["IE"], ["UK"]):
        for words in ASKED:
            assert index.texts_saying(words, jurisdictions) == _scanned(
                index, words, jurisdictions
            ), (words, jurisdictions)
    built = index._saying_index
    index.remember([GraphNode(id="IE:CONCEPT:X", label="Concept", properties={"name": "tax"})])
    index.texts_saying("tax")
    assert index._saying_index is built  # a concept changes no row: the postings are kept
    index.remember(
        [
            GraphNode(id="IE:THRESHOLD:CAT_GROUP_C", label="Threshold",
                      properties={"name": "CAT Group C threshold", "description": "group b a"}),
            GraphNode(id="IE:OBLIGATION:KEEP_RECORDS", label="Obligation",
                      properties={"name": "Keep income tax records"}),
        ]
    )  # fmt: skip
    for jurisdictions in ([], ["IE"]):
        for words in ASKED:
            assert index.texts_saying(words, jurisdictions) == _scanned(
                index, words, jurisdictions
            ), (words, jurisdictions)
    assert "CAT Group C threshold group b a" in index.texts_saying("group b", ["IE"])


def test_a_form_named_by_its_code_names_its_country():
    # Round 2 (ad hoc): "Form 12 deadline for 2025?" and "CT1 … year end" named no country,
    # and the answer listed UK Self Assessment dates after the Irish one.
    index = EvidenceIndex(cast(GraphReader, object()))
    index._build(
        [
            GraphNode(id="IE:FORM:FORM_12", label="Form",
                      properties={"name": "Form 12", "code": "Form 12"}),
            GraphNode(id="IE:FORM:CT1", label="Form",
                      properties={"name": "Form CT1", "code": "CT1"}),
            GraphNode(id="UK:FORM:SA100", label="Form",
                      properties={"name": "SA100", "code": "SA100"}),
        ],
        [],
    )  # fmt: skip
    assert index.form_jurisdictions("Form 12 deadline for 2025?") == ["IE"]
    assert index.form_jurisdictions("ct1 due for a 31 March 2025 year end") == ["IE"]
    assert index.form_jurisdictions("CT1 or SA100 – which is due first?") == ["IE", "UK"]
    # A code inside another word, or a form number alone, names nothing.
    assert index.form_jurisdictions("Form 121 deadline") == []
    assert index.form_jurisdictions("When is the self assessment return due?") == []
    # The forms are read once per version of the nodes: a form remembered later is found.
    index.remember(
        [GraphNode(id="UK:FORM:CT600", label="Form", properties={"name": "CT600", "code": "CT600"})]
    )
    assert index.form_jurisdictions("CT600 due when?") == ["UK"]
