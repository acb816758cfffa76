"""The AI Act (2024 EUR-Lex markup) and the GDPR (2016 markup), read from ``seeds/legal/``."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import time
from typing import Any

import pytest

from corpus import ParsedAct, ProvisionKind, parse_act
from corpus.parse import read_source
from corpus.text import clean
from tests.unit.corpus.conftest import AI_ACT_PATH, GDPR_EXPECTED, GDPR_PATH

pytestmark = pytest.mark.unit

ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII"]
# The uncompressed documents as EUR-Lex served them (seeds/legal/README.md).
SHIPPED_SHA256 = {
    AI_ACT_PATH.name: "10fe70f257415dfead1f3c35a72e0df587b44cceea8d663ca3d86f193f1e12b3",
    GDPR_PATH.name: "be3ded5bcf85ececf3a4b6db24040f2a4b7bafa1151d51b03503d15e6d5ef74a",
}


def numbers(act: ParsedAct, kind: ProvisionKind) -> list[str]:
    return [p.number for p in act.of_kind(kind)]


@pytest.mark.parametrize("path", [AI_ACT_PATH, GDPR_PATH], ids=lambda p: p.name)
def test_shipped_copy_is_the_eurlex_document(path):
    assert (
        hashlib.sha256(gzip.decompress(path.read_bytes())).hexdigest() == SHIPPED_SHA256[path.name]
    )


def test_ai_act_counts(ai_act):
    assert ai_act.instrument.id == "EU:REG_2024_1689"
    assert numbers(ai_act, ProvisionKind.ARTICLE) == [str(n) for n in range(1, 114)]
    assert numbers(ai_act, ProvisionKind.RECITAL) == [str(n) for n in range(1, 181)]
    assert numbers(ai_act, ProvisionKind.ANNEX) == ROMAN
    assert numbers(ai_act, ProvisionKind.CHAPTER) == ROMAN


def test_gdpr_counts(gdpr):
    assert gdpr.instrument.id == "EU:REG_2016_679"
    assert numbers(gdpr, ProvisionKind.ARTICLE) == [str(n) for n in range(1, 100)]
    assert numbers(gdpr, ProvisionKind.RECITAL) == [str(n) for n in range(1, 174)]
    assert numbers(gdpr, ProvisionKind.CHAPTER) == ROMAN[:11]
    assert gdpr.of_kind(ProvisionKind.ANNEX) == []


def test_instrument_metadata(ai_act, gdpr):
    assert ai_act.instrument.celex == "32024R1689"
    assert ai_act.instrument.eli == "http://data.europa.eu/eli/reg/2024/1689/oj"
    assert ai_act.instrument.short_name == "AI Act"
    assert ai_act.instrument.year == 2024 and ai_act.instrument.number == 1689
    assert ai_act.instrument.title.endswith("(Artificial Intelligence Act)")
    assert gdpr.instrument.short_name == "GDPR"
    assert gdpr.instrument.citation == "Regulation (EU) 2016/679"
    assert gdpr.instrument.source_url.endswith("?uri=CELEX:32016R0679")


def test_paragraph_counts_match_the_source(ai_act, gdpr):
    raw = read_source(AI_ACT_PATH).decode()
    article_5 = raw[raw.index('id="art_5"') : raw.index('id="art_6"')]
    in_source = sorted(set(re.findall(r'id="(005\.\d{3})"', article_5)))
    art5 = ai_act.children("EU:REG_2024_1689:ART_5")
    assert len(art5) == len(in_source) == 8
    assert [p.number for p in art5] == [f"5({n})" for n in range(1, 9)]
    art17 = gdpr.children("EU:REG_2016_679:ART_17")
    assert [p.id for p in art17] == [f"EU:REG_2016_679:ART_17_{n}" for n in (1, 2, 3)]


def test_points_stay_inside_their_paragraph(ai_act, gdpr):
    text = ai_act.by_id["EU:REG_2024_1689:ART_5_1"].text
    assert text.startswith("1. The following AI practices shall be prohibited:\n(a) the placing")
    assert "\n(c) the placing" in text and "\n(i) detrimental" in text and "\n(h) the use" in text
    assert (
        "\n(f) the personal data have been collected" in gdpr.by_id["EU:REG_2016_679:ART_17_1"].text
    )


def test_article_text_is_the_whole_article(ai_act):
    article = ai_act.by_id["EU:REG_2024_1689:ART_5"]
    paragraphs = ai_act.children(article.id)
    assert article.heading == "Prohibited AI practices"
    assert article.text == "\n".join(p.text for p in paragraphs)


def test_unnumbered_articles_hold_the_text_without_paragraph_nodes(ai_act, gdpr):
    for act, article_id in ((ai_act, "EU:REG_2024_1689:ART_4"), (gdpr, "EU:REG_2016_679:ART_16")):
        assert act.children(article_id) == []
        assert act.by_id[article_id].text.startswith(
            ("Providers and deployers", "The data subject")
        )


def test_quoted_amendments_are_not_paragraphs(ai_act):
    article = ai_act.by_id["EU:REG_2024_1689:ART_105"]
    assert ai_act.children(article.id) == []
    assert "\n‘5. For Artificial Intelligence systems" in article.text


def test_hierarchy(ai_act, gdpr):
    assert ai_act.by_id["EU:REG_2024_1689:ART_5"].parent_id == "EU:REG_2024_1689:CHAPTER_II"
    assert ai_act.by_id["EU:REG_2024_1689:ART_9"].parent_id == (
        "EU:REG_2024_1689:CHAPTER_III_SECTION_2"
    )
    section = ai_act.by_id["EU:REG_2024_1689:CHAPTER_III_SECTION_2"]
    assert section.parent_id == "EU:REG_2024_1689:CHAPTER_III"
    assert section.heading == "Requirements for high-risk AI systems"
    assert ai_act.by_id["EU:REG_2024_1689:ANNEX_III"].heading == (
        "High-risk AI systems referred to in Article 6(2)"
    )
    assert gdpr.by_id["EU:REG_2016_679:ART_17"].parent_id == "EU:REG_2016_679:CHAPTER_III_SECTION_3"
    assert [p.order for p in ai_act.provisions] == list(range(len(ai_act.provisions)))


def test_deep_links_use_anchors_of_the_source(ai_act, gdpr):
    base = "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:32024R1689"
    assert ai_act.by_id["EU:REG_2024_1689:ART_5"].url == f"{base}#art_5"
    assert ai_act.by_id["EU:REG_2024_1689:ART_5_1"].url == f"{base}#005.001"
    assert ai_act.by_id["EU:REG_2024_1689:REC_12"].url == f"{base}#rct_12"
    assert ai_act.by_id["EU:REG_2024_1689:ANNEX_III"].url == f"{base}#anx_III"
    assert ai_act.by_id["EU:REG_2024_1689:CHAPTER_III_SECTION_2"].url == f"{base}#cpt_III.sct_2"
    ids = set(re.findall(r'id="([^"]+)"', read_source(AI_ACT_PATH).decode()))
    fragments = {p.url.partition("#")[2] for p in ai_act.provisions}
    assert "" not in fragments  # every provision of the 2024 markup has an anchor
    assert fragments <= ids
    # The 2016 markup has no structural ids: every link is the act, never a made-up anchor.
    assert {p.url for p in gdpr.provisions} == {gdpr.instrument.source_url}


def test_signatures_final_formula_and_footnotes_are_not_provisions(ai_act, gdpr):
    for act in (ai_act, gdpr):
        text = "\n".join(p.text for p in act.provisions)
        assert "shall be binding in its entirety" not in text
        assert "Done at Brussels" not in text
        assert "For the European Parliament" not in text
        assert not re.search(r"of the Council \(\d+\)", text)  # footnote calls dropped
    assert "METSOLA" not in "\n".join(p.text for p in ai_act.provisions)


def test_gdpr_matches_the_gdprtext_structure(gdpr):
    expected = json.loads(GDPR_EXPECTED.read_text(encoding="utf-8"))
    articles: list[tuple[str, dict[str, Any]]] = []

    def walk(node: dict[str, Any], parent: str) -> None:
        for child in node.get("contents", []):
            if child["type"] == "article":
                articles.append((parent, child))
            else:
                walk(child, f"{parent}_{child['type'].upper()}_{child['number']}")

    for chapter in expected["chapters"]:
        walk(chapter, f"EU:REG_2016_679:CHAPTER_{chapter['number']}")
    assert len(articles) == 99
    for parent, item in articles:
        article = gdpr.article(item["number"])
        assert article.heading == clean(item["title"])
        assert article.parent_id == parent
        contents = item["contents"]
        numbered = [c for c in contents if c["type"] == "point" and (c["number"] or "").isdigit()]
        paragraphs = numbered if contents and contents[0]["type"] == "point" else []
        assert len(gdpr.children(article.id)) == len(paragraphs), item["number"]


# GDPRtEXT keeps footnote calls (" (4)") in recitals, and recital 71 has the wording of the
# 2018 corrigendum; the shipped text is the OJ of 4.5.2016.
FOOTNOTE_CALL = re.compile(r" \(\d{1,2}\)(?=[\s,.;:]|$)")
KNOWN_WORDING_DIFFERENCES = {"71"}


def test_gdpr_recitals_match_gdprtext(gdpr):
    expected = json.loads(GDPR_EXPECTED.read_text(encoding="utf-8"))["recitals"]
    assert len(expected) == 173
    differ = {
        r["number"]
        for r in expected
        # A recital of several paragraphs has one line each here, one string there.
        if clean(gdpr.by_id[f"EU:REG_2016_679:REC_{r['number']}"].text)
        != clean(FOOTNOTE_CALL.sub("", r["text"]))
    }
    assert differ == KNOWN_WORDING_DIFFERENCES


def test_parsing_the_ai_act_takes_well_under_a_few_seconds():
    started = time.perf_counter()
    parse_act(AI_ACT_PATH)
    assert time.perf_counter() - started < 3.0
