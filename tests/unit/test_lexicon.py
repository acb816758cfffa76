"""Concept lexicon: EuroVoc data file, normalisation, matching rules."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import engine.lexicon as lexicon_module
from engine.lexicon import (
    ConceptLexicon,
    LexiconEntry,
    LexiconHit,
    kind_from_label,
    normalise_label,
)

pytestmark = pytest.mark.unit

DATA_FILE = Path(lexicon_module.__file__).parent / "data" / "eurovoc_tax_social.json"


@pytest.fixture(scope="module")
def eurovoc() -> ConceptLexicon:
    return ConceptLexicon.from_eurovoc()


def graph_entry(
    key: str,
    pref: str,
    *alts: str,
    domain: str = "TAX",
    kind: str | None = None,
    jurisdiction: str | None = "IE",
) -> LexiconEntry:
    return LexiconEntry(
        key=key,
        pref_label=pref,
        alt_labels=alts,
        domain=domain,
        kind=kind or kind_from_label(pref),
        jurisdiction=jurisdiction,
        definition=None,
        source_urls=(),
        scheme="graph",
        notation=None,
    )


def keys(hits: list[LexiconHit]) -> list[str]:
    return [h.entry.key for h in hits]


# ---------------------------------------------------------------- data file


def test_data_file_is_compact_and_attributed() -> None:
    assert DATA_FILE.stat().st_size < 1_000_000
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    attribution = data["attribution"]
    assert "European Union" in attribution["copyright"]
    assert "CC BY 4.0" in attribution["licence"]
    assert attribution["release"] == "2021-06-04"
    assert set(data["microthesauri"]) == {
        "2446",
        "2806",
        "2811",
        "2816",
        "2821",
        "2826",
        "2831",
        "2836",
        "2841",
        "2846",
    }
    assert data["concept_count"] == len(data["concepts"]) == 731


def test_loads_real_eurovoc_entries(eurovoc: ConceptLexicon) -> None:
    assert len(eurovoc) == 731
    vat = eurovoc.get("eurovoc:4585")
    assert vat is not None
    assert vat.pref_label == "VAT"
    assert {"TVA", "value added tax", "taxe sur la valeur ajoutée"} <= set(vat.alt_labels)
    assert vat.domain == "TAX"
    assert vat.kind == "VAT"
    assert vat.scheme == "eurovoc"
    assert vat.jurisdiction is None
    assert vat.source_urls == ("http://eurovoc.europa.eu/4585",)
    assert vat.notation == "4585"
    assert vat.broader == ("eurovoc:1321",)
    assert vat.microthesaurus == "2446"
    for entry in eurovoc:
        assert re.fullmatch(r"[A-Z0-9_]{1,64}", entry.kind), entry
        assert re.fullmatch(r"[A-Z_]+", entry.domain), entry


def test_domain_mapping(eurovoc: ConceptLexicon) -> None:
    def domain(cid: str) -> str:
        entry = eurovoc.get(f"eurovoc:{cid}")
        assert entry is not None
        return entry.domain

    assert domain("1326") == "TAX"  # tax on income (2446)
    assert domain("4050") == "WELFARE"  # social security (2836)
    assert domain("3751") == "PENSIONS"  # pension scheme subtree
    assert domain("3362") == "PENSIONS"  # supplementary pension, narrower of 3751
    assert domain("1695") == "HOUSING"  # subsidised housing (2846)


# ---------------------------------------------------------------- normalisation


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Taxe sur la valeur ajoutée", "taxe sur la valeur ajoutee"),
        ("taxe sur la valeur ajoutee", "taxe sur la valeur ajoutee"),
        ("  VALUE-ADDED   tax ", "value added tax"),
        ("taxe à l'importation", "taxe a l importation"),
        ("taxation de l’économie numérique", "taxation de l economie numerique"),
        ("widow's pension", "widow s pension"),
        ("Straße", "strasse"),
        ("Œuvre", "oeuvre"),
        ("COVID-19", "covid 19"),
        ("Te\u0301le\u0301travail", "teletravail"),  # decomposed accents
        ("ﬁscal", "fiscal"),  # ligature
        ("tax_free/allowance", "tax free allowance"),
        ("", ""),
        (" ,;- ", ""),
    ],
)
def test_normalise_label(raw: str, expected: str) -> None:
    assert normalise_label(raw) == expected
    assert normalise_label(expected) == expected  # idempotent


@pytest.mark.parametrize(
    ("label", "kind"),
    [
        ("value added tax", "VALUE_ADDED_TAX"),
        ("VAT", "VAT"),
        ("survivor's benefit", "SURVIVOR_S_BENEFIT"),
        ("taxe à l'importation", "TAXE_A_L_IMPORTATION"),
        ("tax-free allowance", "TAX_FREE_ALLOWANCE"),
    ],
)
def test_kind_from_label(label: str, kind: str) -> None:
    assert kind_from_label(label) == kind


def test_kind_from_label_is_bounded() -> None:
    kind = kind_from_label(" ".join(["contribution"] * 20))
    assert len(kind) <= 64
    assert re.fullmatch(r"[A-Z0-9_]+", kind)
    assert not kind.endswith("_")
    with pytest.raises(ValueError):
        kind_from_label("--")


# ---------------------------------------------------------------- matching


@pytest.mark.parametrize(
    "question",
    [
        "How is value added tax charged on books?",
        "Quel est le régime de la taxe sur la valeur ajoutée ?",
        "quel est le regime de la TAXE SUR LA VALEUR AJOUTEE ?",
        "Quel est le régime de la taxe sur la valeur ajoutee ?",
        "Faut-il payer la TVA ?",
    ],
)
def test_matches_english_and_french_labels(eurovoc: ConceptLexicon, question: str) -> None:
    hits = eurovoc.match(question)
    assert keys(hits) == ["eurovoc:4585"]
    hit = hits[0]
    assert question[hit.start : hit.end] == hit.matched
    assert normalise_label(hit.matched) in {normalise_label(x) for x in hit.entry.labels}


def test_hit_offsets_point_into_the_original_text(eurovoc: ConceptLexicon) -> None:
    question = (
        "Ist die  Taxe   sur la Valeur Ajoutée — oder die « retraite complémentaire » fällig?"
    )
    hits = eurovoc.match(question)
    assert keys(hits) == ["eurovoc:4585", "eurovoc:3362"]
    assert [h.matched for h in hits] == [
        "Taxe   sur la Valeur Ajoutée",
        "retraite complémentaire",
    ]
    for hit in hits:
        assert question[hit.start : hit.end] == hit.matched


def test_longest_match_wins(eurovoc: ConceptLexicon) -> None:
    # "VAT rate" beats "VAT"; "capital gains tax" beats any shorter label inside it
    assert keys(eurovoc.match("What is the VAT rate?")) == ["eurovoc:4392"]
    assert keys(eurovoc.match("Is capital gains tax due?")) == ["eurovoc:1323"]
    assert keys(eurovoc.match("Quel est le taux de TVA ?")) == ["eurovoc:4392"]


def test_longest_match_wins_across_overlaps() -> None:
    lexicon = ConceptLexicon(
        [
            graph_entry("TAX:IE:INCOME_TAX", "income tax"),
            graph_entry("TAX:IE:RELIEF_AT_SOURCE", "tax relief at source"),
        ]
    )
    hits = lexicon.match("Is income tax relief at source available?")
    assert keys(hits) == ["TAX:IE:RELIEF_AT_SOURCE"]
    assert hits[0].matched == "tax relief at source"


def test_whole_words_only() -> None:
    lexicon = ConceptLexicon([graph_entry("TAX:IE:TAX", "tax"), graph_entry("TAX:IE:VAT", "VAT")])
    assert lexicon.match("I drive a taxi and own a vatted cask; syntax") == []
    assert keys(lexicon.match("tax-free? VAT-registered.")) == ["TAX:IE:TAX", "TAX:IE:VAT"]


def test_generic_eurovoc_single_words_do_not_flood(eurovoc: ConceptLexicon) -> None:
    question = (
        "As a taxpayer, do I pay tax on welfare for my child, wife and house? "
        "La fiscalité, l'impôt, the family, health, music and travel."
    )
    assert eurovoc.match(question) == []
    # they are still known to exact lookups (the concept resolver uses those)
    assert [e.key for e in eurovoc.lookup("Tax")] == ["eurovoc:1310"]


def test_eurovoc_acronyms_outside_core_domains_need_capitals(eurovoc: ConceptLexicon) -> None:
    assert eurovoc.match("hearing aids; est-ce que") == []
    assert keys(eurovoc.match("research on AIDS")) == ["eurovoc:5172"]


def test_graph_entries_win_and_acronyms_match_in_any_case(eurovoc: ConceptLexicon) -> None:
    lexicon = ConceptLexicon.from_eurovoc()
    lexicon.add(graph_entry("TAX:IE:VAT", "VAT", "value added tax", "value-added tax"))
    lexicon.add(graph_entry("SOCIAL:IE:PRSI", "PRSI", "Pay Related Social Insurance"))
    for question in ("Do I charge VAT?", "do i charge vat?", "What about value added tax?"):
        assert keys(lexicon.match(question)) == ["TAX:IE:VAT"], question
    assert keys(lexicon.match("prsi and usc")) == ["SOCIAL:IE:PRSI"]
    # EuroVoc still wins with a longer label, and EuroVoc-only labels keep matching
    assert keys(lexicon.match("the VAT rate and la TVA")) == ["eurovoc:4392", "eurovoc:4585"]
    # the module-wide EuroVoc lexicon is untouched
    assert keys(eurovoc.match("do i charge vat?")) == ["eurovoc:4585"]


def test_add_replaces_same_key_and_remove_forgets() -> None:
    lexicon = ConceptLexicon([graph_entry("TAX:IE:USC", "USC")])
    lexicon.add(graph_entry("TAX:IE:USC", "Universal Social Charge"))
    assert len(lexicon) == 1
    assert lexicon.match("usc") == []
    assert keys(lexicon.match("the universal social charge")) == ["TAX:IE:USC"]
    lexicon.remove("TAX:IE:USC")
    assert len(lexicon) == 0
    assert lexicon.match("the universal social charge") == []
    assert lexicon.lookup("universal social charge") == []


def test_jurisdiction_preference_between_graph_entries() -> None:
    lexicon = ConceptLexicon(
        [
            graph_entry("TAX:IE:VAT", "VAT", jurisdiction="IE"),
            graph_entry("TAX:UK:VAT", "VAT", jurisdiction="UK"),
        ]
    )
    assert keys(lexicon.match("VAT?")) == ["TAX:IE:VAT"]  # first added
    assert keys(lexicon.match("VAT?", jurisdiction="UK")) == ["TAX:UK:VAT"]


def test_each_entry_reported_once_at_first_mention() -> None:
    lexicon = ConceptLexicon([graph_entry("TAX:IE:VAT", "VAT", "value added tax")])
    hits = lexicon.match("VAT here, value added tax there, vat again")
    assert len(hits) == 1
    assert (hits[0].start, hits[0].end, hits[0].matched) == (0, 3, "VAT")


def test_limit_keeps_position_order_and_prefers_graph(eurovoc: ConceptLexicon) -> None:
    question = (
        "income tax, capital gains tax, stamp duty, excise duty, child benefit, "
        "maternity leave, sick leave, parental leave, pension scheme, home help, "
        "unemployment insurance, health insurance"
    )
    all_hits = eurovoc.match(question, limit=100)
    assert len(all_hits) == 12
    assert [h.start for h in all_hits] == sorted(h.start for h in all_hits)
    limited = eurovoc.match(question, limit=3)
    assert len(limited) == 3
    assert [h.start for h in limited] == sorted(h.start for h in limited)
    assert eurovoc.match(question, limit=0) == []

    lexicon = ConceptLexicon.from_eurovoc()
    lexicon.add(graph_entry("WELFARE:IE:JOBSEEKERS", "unemployment insurance", domain="WELFARE"))
    limited = lexicon.match(question, limit=2)
    assert "WELFARE:IE:JOBSEEKERS" in keys(limited)
    assert [h.start for h in limited] == sorted(h.start for h in limited)


def test_empty_and_punctuation_only_text(eurovoc: ConceptLexicon) -> None:
    assert eurovoc.match("") == []
    assert eurovoc.match("?!… — «»") == []
