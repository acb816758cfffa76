"""The citation grammar (tables) and cross-references in the real acts."""

from __future__ import annotations

import pytest

from corpus import CrossReference, cited_ids, find_act_citations, find_references
from corpus.references import resolve

pytestmark = pytest.mark.unit

AI = "EU:REG_2024_1689"
GDPR = "EU:REG_2016_679"


@pytest.mark.parametrize(
    ("citation", "expected"),
    [
        ("Regulation (EU) 2016/679", ["EU:REG_2016_679"]),
        ("Directive (EU) 2016/680", ["EU:DIR_2016_680"]),
        # With "No" the number comes first; without it the year does.
        ("Regulation (EC) No 765/2008", ["EU:REG_2008_765"]),
        ("Regulation (EU) No 1025/2012", ["EU:REG_2012_1025"]),
        ("Regulation (EEC) No 339/93", ["EU:REG_1993_339"]),
        ("Decision No 768/2008/EC", ["EU:DEC_2008_768"]),
        ("Council Decision 93/465/EEC", ["EU:DEC_1993_465"]),
        ("Directive 95/46/EC", ["EU:DIR_1995_46"]),
        ("Directive 2014/92/EU", ["EU:DIR_2014_92"]),
        ("Regulation (EU, Euratom) 2018/1046", ["EU:REG_2018_1046"]),
        ("Regulations (EU) 2017/745 and (EU) 2017/746", ["EU:REG_2017_745", "EU:REG_2017_746"]),
        ("Directives 2006/48/EC and 2006/49/EC", ["EU:DIR_2006_48", "EU:DIR_2006_49"]),
        ("the regulation 2016/679 in lower case is no citation", []),
    ],
)
def test_act_citations(citation, expected):
    assert [a.instrument_id for m in find_act_citations(citation) for a in m.acts] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("referred to in Article 6(2)", [f"{AI}:ART_6_2"]),
        ("Articles 9 and 10", [f"{AI}:ART_9", f"{AI}:ART_10"]),
        ("Articles 9, 10 and 11", [f"{AI}:ART_9", f"{AI}:ART_10", f"{AI}:ART_11"]),
        ("Articles 102 to 104", [f"{AI}:ART_102", f"{AI}:ART_103", f"{AI}:ART_104"]),
        ("Article 5(1), point (c)", [f"{AI}:ART_5_1"]),
        ("Article 5(1), first subparagraph, point (h)", [f"{AI}:ART_5_1"]),
        (
            "point (a) of Article 6(1), or point (a) of Article 9(2)",
            [f"{AI}:ART_6_1", f"{AI}:ART_9_2"],
        ),
        ("Article 6(1) and (2) of this Regulation", [f"{AI}:ART_6_1", f"{AI}:ART_6_2"]),
        ("Article 6(1) to (3)", [f"{AI}:ART_6_1", f"{AI}:ART_6_2", f"{AI}:ART_6_3"]),
        ("Annex III", [f"{AI}:ANNEX_III"]),
        ("Annexes VI and VII", [f"{AI}:ANNEX_VI", f"{AI}:ANNEX_VII"]),
        ("Annex I to Regulation (EU) 2019/1020", ["EU:REG_2019_1020:ANNEX_I"]),
        ("pursuant to Article 6 to the extent necessary", [f"{AI}:ART_6"]),
        ("Chapter III, Section 2", [f"{AI}:CHAPTER_III_SECTION_2"]),
        ("Chapter III Section 4, Chapter V", [f"{AI}:CHAPTER_III_SECTION_4", f"{AI}:CHAPTER_V"]),
        ("as set out in recital (12)", [f"{AI}:REC_12"]),
        ("Article 4 of Regulation (EU) 2016/679", [f"{GDPR}:ART_4"]),
        ("Article 9(1) of Regulation (EU) 2016/679", [f"{GDPR}:ART_9_1"]),
        (
            "Article 42(1) and (2) of Regulation (EU) 2018/1725",
            ["EU:REG_2018_1725:ART_42_1", "EU:REG_2018_1725:ART_42_2"],
        ),
        (
            "as defined in Article 6, point (1), of Directive (EU) 2022/2555 of the Council",
            ["EU:DIR_2022_2555:ART_6"],
        ),
        (
            "Articles 40 and 41 of Regulation (EU) No 1025/2012",
            ["EU:REG_2012_1025:ART_40", "EU:REG_2012_1025:ART_41"],
        ),
        (
            "Regulation (EU) 2019/1020 applies. Article 14 of that Regulation",
            ["EU:REG_2019_1020:ART_14", "EU:REG_2019_1020"],
        ),
        ("Regulation (EU) 2016/679 and Directive (EU) 2016/680", [GDPR, "EU:DIR_2016_680"]),
        ("paragraph 3", [f"{AI}:ART_5_3"]),
        ("paragraphs 1 and 2", [f"{AI}:ART_5_1", f"{AI}:ART_5_2"]),
        ("paragraph 1 of Article 6", [f"{AI}:ART_6_1"]),
        ("paragraph 2 of Article 10 of Regulation (EU) 2016/679", [f"{GDPR}:ART_10_2"]),
        # Not an EU act we can name: the Charter, the Treaties.
        ("Article 8(1) of the Charter", []),
        ("on the basis of Article 16 TFEU", []),
        ("Chapter 4 or Chapter 5 of Title V of Part Three of the TFEU", []),
        (
            "Article 5 and Article 6 of Directive (EU) 2016/680",
            ["EU:DIR_2016_680:ART_5", "EU:DIR_2016_680:ART_6"],
        ),
        ("Article 114 of the Treaty on the Functioning of the European Union", []),
        ("Article 14 of that Regulation", []),  # no regulation cited before it
        ("paragraph 3 of Annex VII", [f"{AI}:ANNEX_VII"]),  # the annex, not ART_5_3
        ("within 15 days", []),
        ("Article 5 and 10 days later", [f"{AI}:ART_5"]),
    ],
)
def test_reference_grammar(text, expected):
    assert cited_ids(text, AI, f"{AI}:ART_5") == expected


def test_paragraph_references_need_an_article():
    assert cited_ids("referred to in paragraph 3", AI, None) == []


@pytest.mark.parametrize(
    ("cited", "expected"),
    [
        (f"{AI}:ART_6_2", f"{AI}:ART_6_2"),  # exists
        (f"{AI}:ART_6_9", f"{AI}:ART_6"),  # no paragraph 9: the article
        (f"{AI}:ART_4_1", f"{AI}:ART_4"),  # Article 4 has no numbered paragraphs
        (f"{AI}:ART_999", AI),  # no such article: the act
        (f"{AI}:CHAPTER_III_SECTION_9", f"{AI}:CHAPTER_III"),
        (f"{GDPR}:ART_4", f"{GDPR}:ART_4"),
        ("EU:REG_2018_1725:ART_42_1", "EU:REG_2018_1725:ART_42_1"),  # act not parsed: as cited
    ],
)
def test_resolution(ai_act, gdpr, cited, expected):
    known = {p.id for act in (ai_act, gdpr) for p in act.provisions} | {AI, GDPR}
    assert resolve(cited, known) == expected


def test_article_6_2_in_the_ai_act_lands_on_the_paragraph(ai_act, gdpr):
    references = find_references(ai_act, [gdpr])
    assert CrossReference(f"{AI}:ANNEX_III", f"{AI}:ART_6_2") in references
    assert CrossReference(f"{AI}:ART_6_3", f"{AI}:ART_6_2") in references


def test_gdpr_references_from_the_ai_act_land_on_the_gdpr(ai_act, gdpr):
    references = find_references(ai_act, [gdpr])
    to_gdpr = {r for r in references if r.target_id.startswith(GDPR)}
    assert CrossReference(f"{AI}:REC_10", GDPR) in to_gdpr
    assert CrossReference(f"{AI}:REC_14", f"{GDPR}:ART_4") in to_gdpr
    assert {r.target_id for r in to_gdpr} <= {GDPR} | {p.id for p in gdpr.provisions}


def test_references_resolve_inside_the_act_and_keep_unknown_acts(ai_act, gdpr):
    references = find_references(ai_act, [gdpr])
    known = {AI, GDPR} | {p.id for act in (ai_act, gdpr) for p in act.provisions}
    internal = [r for r in references if r.target_id.startswith(AI + ":")]
    assert internal and all(r.target_id in known for r in internal)
    assert all(r.source_id in ai_act.by_id for r in references)
    assert all(r.target_id not in {r.source_id, AI} for r in references)
    assert any(r.target_id == "EU:REG_2008_765" for r in references)  # not parsed: kept
    assert len(references) == len(set(references))
