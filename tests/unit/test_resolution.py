"""The resolution rules (engine/matching.py), one by one, on a small reviewed vocabulary."""

import pytest

from engine.lexicon_entry import LexiconEntry
from engine.matching import (
    MERGING,
    Candidate,
    FoundBy,
    ReviewedConcepts,
    Suggestion,
    decide,
    label_forms,
    suggestions,
)
from engine.normalise import normalise_jurisdiction

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


def near(domain, kind, jurisdiction, *labels):
    """The suggestions a capture that created a concept carries to review: {id: reason}."""
    found = VOCABULARY.candidates(domain, kind, list(labels), jurisdiction)
    return {s.id: s.reason for s in suggestions(found, jurisdiction)}


def forms(text):
    return {(f.form, tuple(sorted(f.named))) for f in label_forms(text)}


def test_the_normaliser_folds_case_accents_hyphens_compounds_possessives_plurals_and_ampersands():
    assert ("incometaxireland", ()) in forms("Income tax (Ireland)")
    assert ("incometax", ("IE",)) in forms("Income tax (Ireland)")
    same = {
        "autoenrolment",
        *(f for f, _ in forms("auto-enrolment")),
        *(f for f, _ in forms("Auto Enrolment")),
    }
    assert same == {"autoenrolment"}
    assert (
        forms("Jobseeker's Benefit") == forms("Jobseekers' Benefit") == forms("jobseekers benefit")
    )
    assert forms("R&D tax credit") == forms("R and D tax credits")
    assert forms("V.A.T.") == forms("VAT") == forms("ＶＡＴ")
    assert forms("capital gains taxes") == forms("Capital-Gains Tax")
    assert forms("impôt sur le revenu") == forms("IMPOT SUR LE REVENU")
    assert ("vat", ("UK",)) in forms("VAT (United Kingdom)")
    assert ("windsorframeworkvat", ("NI",)) in forms("Northern Ireland Windsor Framework VAT")


def test_jurisdictions_are_normalised_with_iso_names_and_the_projects_codes():
    spellings = [
        ("IRL", "IE"), ("IRELAND", "IE"), ("GBR", "UK"), ("GB", "UK"), ("UNITED_KINGDOM", "UK"),
        ("U_K", "UK"), ("GB_NIR", "NI"), ("NORTHERN_IRELAND", "NI"), ("EUROPEAN_UNION", "EU"),
        ("E_U", "EU"), ("IE", "IE"), ("UK", "UK"), ("NI", "NI"), ("EU", "EU"), ("ROI", "IE"),
        ("DEU", "DE"), ("GERMANY", "DE"), ("FRANCE", "FR"), ("USA", "US"),
    ]  # fmt: skip
    for raw, code in spellings:
        assert normalise_jurisdiction(raw) == code, raw
    assert normalise_jurisdiction("ATLANTIS") == "ATLANTIS"  # unknown: stays, out of coverage


def test_surface_variants_of_a_held_label_join_it():
    assert resolve("TAX", "V_A_T", "IE", "V.A.T.") == ("TAX:IE:VAT", FoundBy.LABEL)
    assert resolve("TAX", "CAPITAL_GAINS_TAXES", "IE", "Capital-Gains Taxes")[0] == "TAX:IE:CGT"
    assert resolve("TAX", "HOMECARER_CREDIT", "IE", "home-carer's tax credits")[0] == (
        "TAX:IE:HOME_CARER_CREDIT"
    )


def test_an_eu_level_concept_resolves_to_the_eu_node_whatever_member_state_is_captured():
    assert resolve("EU_LAW", "AI_ACT", "IE", "AI Act") == ("EU_LAW:EU:AI_ACT", FoundBy.LABEL)
    assert resolve("DATA", "AI_REGULATION", "UK", "Artificial Intelligence Act")[0] == (
        "EU_LAW:EU:AI_ACT"
    )


def test_a_national_law_named_after_an_eu_law_is_not_it_but_is_suggested():
    assert resolve("EU_LAW", "IRISH_AI_ACT", "IE", "Irish AI Act") is None
    assert near("EU_LAW", "IRISH_AI_ACT", "IE", "Irish AI Act") == {
        "EU_LAW:EU:AI_ACT": "other_jurisdiction"
    }
    assert resolve("TAX", "IRISH_VAT", "IE", "Irish VAT")[0] == "TAX:IE:VAT"  # its own words


def test_the_same_name_in_two_member_states_is_two_concepts():
    assert resolve("TAX", "INCOME_TAX", "IE", "income tax")[0] == "TAX:IE:INCOME_TAX"
    assert resolve("TAX", "INCOME_TAX", "UK", "income tax")[0] == "TAX:UK:INCOME_TAX"
    assert resolve("TAX", "INHERITANCE_TAX", "UK", "inheritance tax") is None  # Irish CAT only
    assert near("TAX", "INHERITANCE_TAX", "UK", "inheritance tax") == {}


def test_near_misses_stay_apart():
    assert resolve("TAX", "VRT", "IE", "VRT")[0] == "VEHICLE_REG:IE:VRT"
    assert resolve("TAX", "CGT", "IE", "CGT")[0] == "TAX:IE:CGT"
    assert resolve("TAX", "CAT", "IE", "CAT")[0] == "TAX:IE:CAT"
    assert resolve("TAX", "VAT_REDUCED_RATE", "IE", "reduced rate of VAT") is None
    assert resolve("TAX", "SECTION_597_RELIEF", "IE", "section 597 relief") is None
    assert resolve("TAX", "SINGLE_PERSON_CHILD_CARER_CREDIT", "IE", "child carer credit") is None


def test_initials_are_only_suggested_an_acronym_joins_as_a_label():
    assert resolve("TAX", "BADR", "UK", "BADR") == ("TAX:UK:BADR", FoundBy.LABEL)
    # the initials of "business asset disposal relief" are the graph's "BADR": suggested only
    assert resolve("TAX", "BAD_RELIEF", "UK", "business asset disposal relief") is None
    assert near("TAX", "BAD_RELIEF", "UK", "business asset disposal relief") == {
        "TAX:UK:BADR": "acronym"
    }
    assert resolve("TAX", "CAT_GROUP_THRESHOLD", "IE", "CAT group threshold") is None
    # "LPT" is not a label of local property tax: suggested, not joined
    assert resolve("TAX", "LPT", "IE", "LPT") is None
    assert near("TAX", "LPT", "IE", "LPT") == {"TAX:IE:LOCAL_PROPERTY_TAX": "initials"}
    # an acronym that takes letters from inside a word is suggested too, never joined
    assert resolve("TAX", "IHT", "IE", "IHT") is None
    assert near("TAX", "IHT", "IE", "IHT") == {"TAX:IE:CAT": "abbreviation"}
    # "rent a room relief" and "retirement relief" share initials; "carbon tax" is not "CT".
    assert resolve("TAX", "RENT_A_ROOM_RELIEF", "IE", "rent a room relief") is None
    assert resolve("TAX", "CARBON_TAX", "IE", "carbon tax") is None


def test_a_parent_or_child_is_suggested_never_joined():
    assert resolve("TAX", "SMALL_BENEFIT_EXEMPTION", "IE", "small benefit exemption") is None
    assert near("TAX", "SMALL_BENEFIT_EXEMPTION", "IE", "small benefit exemption") == {
        "TAX:IE:SMALL_BENEFIT": "parent_child"
    }
    assert resolve("TAX", "VAT_RATE", "IE", "VAT rate") is None
    assert "TAX:IE:VAT" in near("TAX", "VAT_RATE", "IE", "VAT rate")


def test_a_typo_or_a_letter_is_suggested_never_joined():
    assert resolve("TAX", "ENTREPENEUR_RELIEF", "IE", "entrepeneur relief") is None
    assert near("TAX", "ENTREPENEUR_RELIEF", "IE", "entrepeneur relief")[
        "TAX:IE:ENTREPRENEUR_RELIEF"
    ] in {"edit_distance", "token_overlap"}
    assert resolve("TAX", "SECTION_599_RELIEF", "IE", "section 599 relief") is None
    assert "TAX:IE:RETIREMENT_RELIEF" in near(
        "TAX", "SECTION_599_RELIEF", "IE", "section 599 relief"
    )


def test_an_eu_qualified_label_is_not_a_bare_name_elsewhere():
    """ "EU VAT" names the EU's VAT system in the EU; a bare "VAT" in Northern Ireland is not it."""
    assert resolve("TAX", "VAT", "NI", "VAT") is None
    assert resolve("EU_LAW", "VAT", "EU", "VAT")[0] == "EU_LAW:EU:COMMON_SYSTEM_OF_VAT"
    assert resolve("TAX", "VAT", "IE", "VAT")[0] == "TAX:IE:VAT"  # its own before the EU's


def test_a_guessed_jurisdiction_resolves_only_an_unambiguous_name():
    assert resolve("TAX", "PAYE", "IE", "PAYE", stated=False)[0] == "TAX:IE:PAYE"
    assert resolve("TAX", "VAT", "IE", "VAT", stated=False) is None  # Ireland's or the UK's?


def test_decide_prefers_own_jurisdiction_and_merges_only_exact_matches():
    eu = Candidate("EU_LAW:EU:X", "EU_LAW", "EU", "X", FoundBy.LABEL)
    own = Candidate("TAX:IE:X", "TAX", "IE", "X", FoundBy.LABEL)
    own_near = Candidate("TAX:IE:Y", "TAX", "IE", "Y", FoundBy.EDIT_DISTANCE, 0.9)
    other = Candidate("TAX:UK:X", "TAX", "UK", "X", FoundBy.KEY)
    assert decide("IE", [eu, own, other]) == own
    assert decide("IE", [eu, other]) == eu
    assert decide("IE", [other]) is None
    assert decide("IE", [own_near]) is None
    assert decide("IE", [own_near, eu]) == eu
    twin = Candidate("TAX:IE:Z", "TAX", "IE", "Z", FoundBy.LABEL)
    assert decide("IE", [own, twin]) is None  # two as strong in one place: ambiguous
    assert {FoundBy.KEY, FoundBy.LABEL} == MERGING


def test_suggestions_round_trip_as_stored():
    s = Suggestion("TAX:IE:VAT", "edit_distance", 0.91)
    assert s.encode() == "TAX:IE:VAT|edit_distance|0.91"
    assert Suggestion.decode(s.encode()) == s
    assert Suggestion.decode("broken") is None
