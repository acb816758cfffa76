"""The resolution rules (engine/matching.py), one by one, on a small reviewed vocabulary."""

import pytest

from engine.lexicon_entry import LexiconEntry
from engine.matching import (
    Candidate,
    FoundBy,
    ReviewedConcepts,
    decide,
    label_variants,
)

pytestmark = pytest.mark.unit


def entry(key: str, pref: str, *alts: str) -> LexiconEntry:
    domain, jurisdiction, kind = key.split(":")
    return LexiconEntry(
        key=key, pref_label=pref, alt_labels=alts, domain=domain, kind=kind,
        jurisdiction=jurisdiction, definition=None, source_urls=(), scheme="graph",
        notation=None,
    )  # fmt: skip


VOCABULARY = ReviewedConcepts(
    [
        entry("TAX:IE:VAT", "Value-Added Tax (Ireland)", "VAT", "Irish VAT"),
        entry("TAX:UK:VAT", "Value Added Tax (United Kingdom)", "UK VAT"),
        entry("VEHICLE_REG:IE:VRT", "Vehicle Registration Tax", "VRT"),
        entry("TAX:IE:CGT", "Capital gains tax (Ireland)", "CGT"),
        entry("TAX:IE:CAT", "Capital acquisitions tax", "CAT", "inheritance tax"),
        entry("TAX:IE:INCOME_TAX", "Income tax (Ireland)", "Irish income tax"),
        entry("TAX:UK:INCOME_TAX", "Income tax (United Kingdom)", "UK income tax"),
        entry("TAX:IE:PAYE", "Pay As You Earn (Ireland)", "PAYE"),
        entry("TAX:IE:CORPORATION_TAX", "Corporation tax (Ireland)", "CT"),
        entry("EU_LAW:EU:AI_ACT", "Artificial Intelligence Act", "AI Act"),
        entry("EU_LAW:EU:COMMON_SYSTEM_OF_VAT", "Common system of VAT", "EU VAT"),
        entry("TAX:IE:SMALL_BENEFIT", "Small benefit", "small benefit"),
        entry("TAX:IE:ENTREPRENEUR_RELIEF", "Revised entrepreneur relief", "entrepreneur relief"),
        entry("TAX:IE:RETIREMENT_RELIEF", "Retirement relief", "section 598 relief"),
        entry("TAX:IE:HOME_CARER_CREDIT", "Home carer tax credit"),
        entry("TAX:IE:LOCAL_PROPERTY_TAX", "Local property tax"),
        entry("TAX:UK:BADR", "BADR"),
    ]
)


def resolve(domain, kind, jurisdiction, *labels, stated=True):
    where = jurisdiction if stated else None
    candidates = VOCABULARY.candidates(domain, kind, list(labels), where)
    best = decide(jurisdiction, candidates, stated=stated)
    return (best.id, best.found_by) if best else None


def test_label_variants_fold_case_accents_qualifiers_plurals_and_ampersands():
    variants, _ = label_variants("Income tax (Ireland)")
    assert "income tax" in variants and "income tax ireland" in variants
    assert "social insurance contribution" in label_variants("Social insurance contributions")[0]
    assert "r and d tax credit" in label_variants("R&D tax credit")[0]
    assert "vat" in label_variants("Irish VAT")[0]
    assert label_variants("pay as you earn")[1] == {"~paye"}
    assert label_variants("PAYE")[1] == {"=paye"}


def test_an_eu_level_concept_resolves_to_the_eu_node_whatever_member_state_is_captured():
    assert resolve("EU_LAW", "AI_ACT", "IE", "AI Act") == ("EU_LAW:EU:AI_ACT", FoundBy.LABEL)
    assert resolve("DATA", "AI_REGULATION", "UK", "Artificial Intelligence Act")[0] == (
        "EU_LAW:EU:AI_ACT"
    )


def test_the_same_name_in_two_member_states_is_two_concepts():
    assert resolve("TAX", "INCOME_TAX", "IE", "income tax")[0] == "TAX:IE:INCOME_TAX"
    assert resolve("TAX", "INCOME_TAX", "UK", "income tax")[0] == "TAX:UK:INCOME_TAX"
    assert resolve("TAX", "INHERITANCE_TAX", "UK", "inheritance tax") is None  # Irish CAT only


def test_near_misses_stay_apart():
    assert resolve("TAX", "VRT", "IE", "VRT")[0] == "VEHICLE_REG:IE:VRT"
    assert resolve("TAX", "CGT", "IE", "CGT")[0] == "TAX:IE:CGT"
    assert resolve("TAX", "CAT", "IE", "CAT")[0] == "TAX:IE:CAT"
    assert resolve("TAX", "VAT_REDUCED_RATE", "IE", "reduced rate of VAT") is None
    assert resolve("TAX", "SECTION_597_RELIEF", "IE", "section 597 relief") is None
    assert resolve("TAX", "SINGLE_PERSON_CHILD_CARER_CREDIT", "IE", "child carer credit") is None


def test_acronyms_meet_their_expansion_but_two_phrases_with_the_same_initials_do_not():
    assert resolve("TAX", "LPT", "IE", "LPT") == ("TAX:IE:LOCAL_PROPERTY_TAX", FoundBy.ACRONYM)
    assert (
        resolve("TAX", "BUSINESS_ASSET_DISPOSAL_RELIEF", "UK", "business asset disposal relief")[0]
        == "TAX:UK:BADR"
    )
    # "rent a room relief" and "retirement relief" share initials; "carbon tax" is not "CT".
    assert resolve("TAX", "RENT_A_ROOM_RELIEF", "IE", "rent a room relief") is None
    assert resolve("TAX", "CARBON_TAX", "IE", "carbon tax") is None


def test_a_kind_spelled_with_a_generic_word_more_is_the_same_concept():
    got = resolve("TAX", "SMALL_BENEFIT_EXEMPTION", "IE", "small benefit exemption")
    assert got == ("TAX:IE:SMALL_BENEFIT", FoundBy.KIND_VARIANT)


def test_one_typo_in_a_long_label_is_forgiven_but_not_a_different_number():
    got = resolve("TAX", "ENTREPENEUR_RELIEF", "IE", "entrepeneur relief")
    assert got == ("TAX:IE:ENTREPRENEUR_RELIEF", FoundBy.FUZZY)
    assert resolve("TAX", "SECTION_599_RELIEF", "IE", "section 599 relief") is None


def test_an_eu_qualified_label_is_not_a_bare_name_elsewhere():
    """ "EU VAT" names the EU's VAT system in the EU; a bare "VAT" in Northern Ireland is not it."""
    assert resolve("TAX", "VAT", "NI", "VAT") is None
    assert resolve("EU_LAW", "VAT", "EU", "VAT")[0] == "EU_LAW:EU:COMMON_SYSTEM_OF_VAT"
    assert resolve("TAX", "VAT", "IE", "VAT")[0] == "TAX:IE:VAT"  # its own before the EU's


def test_a_guessed_jurisdiction_resolves_only_an_unambiguous_name():
    assert resolve("TAX", "PAYE", "IE", "PAYE", stated=False)[0] == "TAX:IE:PAYE"
    assert resolve("TAX", "VAT", "IE", "VAT", stated=False) is None  # Ireland's or the UK's?


def test_decide_prefers_own_jurisdiction_then_evidence_then_id():
    eu = Candidate("EU_LAW:EU:X", "EU_LAW", "EU", "X", FoundBy.LABEL)
    own_fuzzy = Candidate("TAX:IE:X", "TAX", "IE", "X", FoundBy.FUZZY)
    other = Candidate("TAX:UK:X", "TAX", "UK", "X", FoundBy.KEY)
    assert decide("IE", [eu, own_fuzzy, other]) == own_fuzzy
    assert decide("IE", [eu, other]) == eu
    assert decide("IE", [other]) is None
