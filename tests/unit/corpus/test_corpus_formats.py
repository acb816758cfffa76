"""Regulation 2024/903 in Formex and in CELLAR XHTML, and Directive 2014/92 in Akoma Ntoso."""

from __future__ import annotations

import json
from typing import Any

import pytest

from corpus import ProvisionKind, SourceFormat
from corpus.text import squash
from tests.unit.corpus.conftest import IEA_EXPECTED

pytestmark = pytest.mark.unit

IEA = "EU:REG_2024_903"


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(IEA_EXPECTED.read_text(encoding="utf-8"))
    return data


def test_formats_are_detected(iea_formex, iea_xhtml, payment_accounts):
    assert iea_formex.source_format is SourceFormat.FORMEX
    assert iea_xhtml.source_format is SourceFormat.EURLEX_XHTML
    assert payment_accounts.source_format is SourceFormat.AKOMA_NTOSO


def test_formex_instrument(iea_formex):
    instrument = iea_formex.instrument
    assert (instrument.id, instrument.celex) == (IEA, "32024R0903")
    assert instrument.eli == "http://data.europa.eu/eli/reg/2024/903/oj"
    assert instrument.short_name == "Interoperable Europe Act"


def test_formex_articles_match_tulit(iea_formex, expected):
    articles = iea_formex.of_kind(ProvisionKind.ARTICLE)
    assert [a.number for a in articles] == [
        e["num"].replace("\xa0", " ").removeprefix("Article ") for e in expected["articles"]
    ]
    for article, item in zip(articles, expected["articles"], strict=True):
        assert article.heading == item["heading"]
        children = item["children"]
        paragraphs = iea_formex.children(article.id)
        if all("." in c["eId"] for c in children):  # PARAG 001.001...: numbered paragraphs
            assert len(paragraphs) == len(children), article.id
            for paragraph, child in zip(paragraphs, children, strict=True):
                assert squash(paragraph.text) == squash(child["text"]), paragraph.id
        else:  # unnumbered subparagraphs: the article holds them, no paragraph nodes
            assert paragraphs == []
            assert squash(article.text) == squash("".join(c["text"] for c in children))


def test_formex_recitals_match_tulit(iea_formex, expected):
    recitals = iea_formex.of_kind(ProvisionKind.RECITAL)
    assert len(recitals) == len(expected["recitals"]) == 57

    # tulit drops the quotation marks of QUOT.START / QUOT.END inside recitals (it keeps them in
    # articles); the XHTML of the same act prints them, and so do we.
    def unquoted(text: str) -> str:
        return squash(text).replace("‘", "").replace("’", "")

    for recital, item in zip(recitals, expected["recitals"], strict=True):
        assert f"rct_{recital.number}" == item["eId"]
        assert unquoted(recital.text) == unquoted(item["text"])


def test_formex_chapters_match_tulit(iea_formex, expected):
    chapters = iea_formex.of_kind(ProvisionKind.CHAPTER)
    assert [(c.id, c.heading) for c in chapters] == [
        (f"{IEA}:CHAPTER_{e['eId'].removeprefix('cpt_')}", e["heading"])
        for e in expected["chapters"]
    ]


def test_formex_annex(iea_formex):
    annex = iea_formex.by_id[f"{IEA}:ANNEX"]
    assert annex.heading == "COMMON CHECKLIST FOR INTEROPERABILITY ASSESSMENT REPORTS"
    assert annex.text.splitlines()[1:3] == [
        "1. General Information",
        "— Union entity or public sector body providing the report and other relevant information",
    ]


def test_xhtml_and_formex_give_the_same_provisions(iea_formex, iea_xhtml):
    assert iea_xhtml.instrument == iea_formex.instrument
    assert len(iea_xhtml.provisions) == len(iea_formex.provisions) == 182
    for ours, theirs in zip(iea_xhtml.provisions, iea_formex.provisions, strict=True):
        # The one tolerated difference: the XHTML has EUR-Lex anchors, Formex has none.
        assert ours.model_dump(exclude={"url"}) == theirs.model_dump(exclude={"url"})
        assert theirs.url == iea_formex.instrument.source_url
        assert ours.url.startswith(f"{iea_formex.instrument.source_url}#")


def test_akoma_ntoso_directive(payment_accounts):
    act = payment_accounts
    assert act.instrument.id == "EU:DIR_2014_92"
    assert act.instrument.citation == "Directive 2014/92/EU"
    assert [a.number for a in act.of_kind(ProvisionKind.ARTICLE)] == [str(n) for n in range(1, 32)]
    assert len(act.of_kind(ProvisionKind.RECITAL)) == 58
    assert len(act.of_kind(ProvisionKind.CHAPTER)) == 7
    article = act.by_id["EU:DIR_2014_92:ART_1"]
    assert article.heading == "Subject matter and scope"
    assert article.parent_id == "EU:DIR_2014_92:CHAPTER_I"
    assert len(act.children(article.id)) == 7
    assert act.by_id["EU:DIR_2014_92:ART_1_6"].text.splitlines()[:2] == [
        "6. This Directive applies to payment accounts through which consumers are able at least"
        " to:",
        "(a) place funds in a payment account;",
    ]
    assert act.by_id["EU:DIR_2014_92:ART_31"].text == (
        "This Directive is addressed to the Member States in accordance with the Treaties."
    )
    assert "Schulz" not in "\n".join(p.text for p in act.provisions)
