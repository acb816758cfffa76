"""Concept lexicon: matching rules (normalisation: test_normalise; EuroVoc: test_eurovoc)."""

from __future__ import annotations

import pytest

from engine.label_policy import label_policy
from engine.lexicon import ConceptLexicon
from engine.lexicon_entry import LexiconEntry, LexiconHit
from engine.normalise import kind_from_label, normalise_label, tokenise

pytestmark = pytest.mark.unit


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


def test_overlaps_of_equal_token_count_prefer_more_characters_then_the_earlier() -> None:
    lexicon = ConceptLexicon(
        [
            graph_entry("TAX:IE:PAY_RELATED", "pay related"),
            graph_entry("TAX:IE:RELATED_INSURANCE", "related insurance"),
            graph_entry("TAX:IE:AB", "ab cd"),
            graph_entry("TAX:IE:CD", "cd ef"),
        ]
    )
    [hit] = lexicon.match("pay related insurance")
    assert (hit.entry.key, hit.matched, hit.start, hit.end) == (
        "TAX:IE:RELATED_INSURANCE", "related insurance", 4, 21,
    )  # fmt: skip
    assert keys(lexicon.match("ab cd ef")) == ["TAX:IE:AB"]


def test_remove_keeps_other_entries_on_the_same_label() -> None:
    lexicon = ConceptLexicon(
        [
            graph_entry("TAX:IE:VAT", "VAT", jurisdiction="IE"),
            graph_entry("TAX:UK:VAT", "VAT", jurisdiction="UK"),
        ]
    )
    lexicon.remove("TAX:IE:VAT")
    assert "TAX:IE:VAT" not in lexicon
    assert keys(lexicon.match("VAT?")) == ["TAX:UK:VAT"]
    assert [e.key for e in lexicon.lookup("vat")] == ["TAX:UK:VAT"]


@pytest.mark.parametrize(
    ("scheme", "domain", "label", "policy"),
    [
        ("graph", "TAX", "VAT", "any"),
        ("graph", "TAX", "a", "skip"),  # one character
        ("graph", "TAX", "2024", "skip"),  # digits only
        ("graph", "TAX", "--", "skip"),  # no token
        ("eurovoc", "TAX", "VAT", "any"),
        ("eurovoc", "TAX", "Impôt", "skip"),  # generic
        ("eurovoc", "HEALTH", "AIDS", "upper_only"),
        ("eurovoc", "FAMILY", "child", "skip"),
        ("eurovoc", "FAMILY", "child benefit", "any"),
    ],
)
def test_label_policy(scheme: str, domain: str, label: str, policy: str) -> None:
    entry = LexiconEntry(
        key="k", pref_label=label, alt_labels=(), domain=domain, kind="K", jurisdiction=None,
        definition=None, source_urls=(), scheme=scheme, notation=None,
    )  # fmt: skip
    assert label_policy(entry, label, tokenise(label).texts) == policy
