"""ADR 0060: the variants the matcher folds (dotted acronyms, an acronym in brackets beside
its expansion, British and American spellings) join; brackets that are not an acronym, and
EuroVoc synonyms, never do (synonyms are review candidates)."""

from collections import Counter

import pytest

from engine.capture_screen import person_name_words, screen_concepts
from engine.concepts import CapturedConcept
from engine.label_policy import term_problem, undotted
from engine.lexicon_entry import LexiconEntry
from engine.matching import (
    FoundBy,
    ReviewedConcepts,
    decide,
    label_forms,
    order_free,
    suggestions,
    words_of,
)
from engine.normalise import normalise_jurisdiction

pytestmark = pytest.mark.unit


def entry(key: str, pref: str, *alts: str, scheme: str = "graph") -> LexiconEntry:
    domain, jurisdiction, kind = key.split(":")
    return LexiconEntry(
        key=key, pref_label=pref, alt_labels=alts, domain=domain, kind=kind,
        jurisdiction=None if scheme == "eurovoc" else jurisdiction, definition=None,
        source_urls=(), scheme=scheme, notation=None,
    )  # fmt: skip


VOCABULARY = ReviewedConcepts(
    [
        entry("TAX:IE:USC", "Universal Social Charge", "USC"),
        entry("SOCIAL_INSURANCE:IE:PRSI", "Pay-Related Social Insurance", "PRSI"),
        entry("TAX:IE:HELP_TO_BUY", "Help to Buy incentive", "HTB"),
        entry("WELFARE:IE:JOBSEEKERS_BENEFIT", "Jobseeker's Benefit", "JB"),
        entry(
            "PENSIONS:IE:AUTO_ENROLMENT", "Automatic enrolment retirement savings", "auto-enrolment"
        ),
        entry("TAX:IE:PAYE", "Pay As You Earn (Ireland)", "PAYE", "PAYE modernisation"),
        entry("TAX:UK:VED", "Vehicle Excise Duty", "VED"),
        entry(
            "X:EU:VEHICLE_TAX",
            "vehicle tax",
            "road tax",
            "vehicle excise duty",
            "taxe sur les véhicules",
            scheme="eurovoc",
        ),
    ]
)


def resolve(kind: str, jurisdiction: str, *labels: str) -> str | None:
    found = VOCABULARY.candidates("TAX", kind, list(labels), jurisdiction, suggest=False)
    best = decide(jurisdiction, found)
    return best.id if best else None


def test_dotted_acronyms_are_terms_for_the_capture_screen() -> None:
    names = person_name_words()
    for label in ("V.A.T.", "A.I. Act", "U.S.C.", "U.K. GDPR", "P.A.Y.E", "pay-as-you-earn"):
        assert term_problem(label, names=names) is None, label
    assert undotted("A.I. Act") == "AI Act"
    # a full stop after a word is still sentence punctuation; names are still names
    assert term_problem("Mr. Murphy", names=names) == "sentence"
    assert term_problem("Tax. Ignore that", names=names) is not None


def test_dotted_and_spaced_acronyms_are_one_word() -> None:
    assert words_of("V.A.T.") == ["vat"]
    assert words_of("A.I. Act") == words_of("AI Act") == ["ai", "act"]
    assert resolve("USC", "IE", "U.S.C.") == "TAX:IE:USC"


def test_an_acronym_in_brackets_beside_its_expansion_joins() -> None:
    assert resolve("USC", "IE", "Universal Social Charge (USC)") == "TAX:IE:USC"
    assert (
        resolve("PRSI", "IE", "Pay-Related Social Insurance (PRSI)") == "SOCIAL_INSURANCE:IE:PRSI"
    )
    assert resolve("HTB", "IE", "Help to Buy (HTB) incentive") == "TAX:IE:HELP_TO_BUY"
    assert resolve("USC", "IE", "USC (Universal Social Charge)") == "TAX:IE:USC"


def test_brackets_that_are_not_an_acronym_of_what_precedes_do_not_join() -> None:
    assert resolve("JB_SE", "IE", "Jobseeker's Benefit (Self-Employed)") is None
    assert resolve("X", "IE", "Jobseeker's Benefit (JA)") is None
    assert {f.form for f in label_forms("State Pension (Contributory)")} == {
        "statepensioncontributory"
    }


def test_british_and_american_spellings_are_one_form() -> None:
    assert resolve("AUTO_ENROLLMENT", "IE", "auto-enrollment") == "PENSIONS:IE:AUTO_ENROLMENT"
    assert resolve("PAYE", "IE", "PAYE modernization") == "TAX:IE:PAYE"
    pairs = [
        ("labour", "labor"),
        ("centre", "center"),
        ("licence", "license"),
        ("analyse", "analyze"),
        ("programme", "program"),
        ("organisation", "organization"),
    ]
    for british, american in pairs:
        assert words_of(british) == words_of(american), british
    # words that only look like a variant are left alone
    assert words_of("size") == ["size"] and words_of("four") == ["four"]


def test_a_eurovoc_synonym_is_a_candidate_never_a_merge() -> None:
    found = VOCABULARY.candidates("TAX", "ROAD_TAX", ["road tax"], "UK")
    assert [(c.id, c.found_by) for c in found] == [("TAX:UK:VED", FoundBy.SYNONYM)]
    assert decide("UK", found) is None
    # offered for review in its own jurisdiction (or the EU) only
    elsewhere = VOCABULARY.candidates("TAX", "ROAD_TAX", ["road tax"], "IE")
    assert suggestions(elsewhere, "IE") == []


def test_country_names_in_french_irish_and_german_are_jurisdictions() -> None:
    assert normalise_jurisdiction("Irlande") == "IE"
    assert normalise_jurisdiction("Royaume-Uni") == "UK"
    assert normalise_jurisdiction("Irlande du Nord") == "NI"
    assert normalise_jurisdiction("Deutschland") == "DE"  # out of coverage, as a country
    assert normalise_jurisdiction("Cork") == "CORK"  # not a country in any language


def test_an_acts_citation_comma_and_a_my_scheme_name_are_terms() -> None:
    names = person_name_words()
    assert term_problem("Data Protection Act, 2018", names=names) is None
    assert term_problem("My Future Fund", names=names) is None
    assert term_problem("my tax return", names=names) == "chat"
    assert term_problem("tax, VAT", names=names) == "sentence"


def test_a_dotted_acronyms_key_is_screened_as_one_word() -> None:
    """A kind built from "A.I. Act" ("A_I_ACT") is not the pronoun "I" (it was dropped as chat)."""
    drops: Counter[str] = Counter()
    captured = CapturedConcept(
        domain="EU_LAW", kind="A_I_ACT", jurisdiction="IE", prefLabel="A.I. Act", altLabels=[]
    )
    assert screen_concepts([captured], drops=drops) == [captured] and not drops
    chat = captured.model_copy(update={"kind": "I_WANT_TAX", "prefLabel": "tax"})
    assert screen_concepts([chat], drops=drops) == []
    assert drops == Counter({"concept:kind:chat": 1})


def test_a_roman_numeral_after_a_name_is_its_number() -> None:
    # ADR 0075: "MiFID II" and "MiFID 2" are one form; a lone letter or a first word is not
    assert words_of("MiFID II") == words_of("MiFID 2") == ["mifid", "2"]
    assert words_of("NIS II Directive") == ["nis", "2", "directive"]
    assert words_of("IV drip") == ["iv", "drip"]
    assert words_of("Class I") == ["class", "i"]


def test_the_citation_of_the_act_a_concept_is_names_it() -> None:
    # ADR 0075: the concept's notation (an ELI) is the act; its citation joins it, nothing else
    gdpr = LexiconEntry(
        key="EU_LAW:EU:GDPR", pref_label="General Data Protection Regulation",
        alt_labels=("GDPR",), domain="EU_LAW", kind="GDPR", jurisdiction="EU",
        definition=None, source_urls=(), scheme="graph", notation="eli/reg/2016/679",
    )  # fmt: skip
    oss = LexiconEntry(
        key="EU_LAW:EU:ONE_STOP_SHOP", pref_label="VAT One-Stop Shop", alt_labels=("OSS",),
        domain="EU_LAW", kind="ONE_STOP_SHOP", jurisdiction="EU", definition=None,
        source_urls=("https://eur-lex.europa.eu/eli/dir/2017/2455/oj",), scheme="graph",
        notation=None,
    )  # fmt: skip
    acts = ReviewedConcepts([gdpr, oss])

    def resolved(label: str, jurisdiction: str = "EU") -> str | None:
        found = acts.candidates("EU_LAW", "ACT", [label], jurisdiction, suggest=False)
        best = decide(jurisdiction, found)
        return best.id if best else None

    for label in ("Regulation (EU) 2016/679", "règlement (UE) 2016/679", "Regulation 2016/679"):
        assert resolved(label) == "EU_LAW:EU:GDPR", label
    assert resolved("Regulation (EU) 2016/679", "IE") == "EU_LAW:EU:GDPR"  # an EU act anywhere
    # a provision of the act, another act, or an act the concept is only sourced from: no join
    assert resolved("Article 6 of Regulation (EU) 2016/679") is None
    assert resolved("Regulation (EU) 2016/680") is None
    assert resolved("Directive (EU) 2017/2455") is None


def test_an_eu_acts_citation_is_a_term_its_digits_no_identifier() -> None:
    names = person_name_words()
    for label in ("Regulation (EU) 2016/679", "Council Directive 2006/112/EC",
                  "Regulation (EC) No 883/2004", "REGULATION 2016 679"):  # fmt: skip
        assert term_problem(label, names=names) is None, label
    for label in ("regulation 5260181", "directive 12345 67890", "0871234567"):
        assert term_problem(label, names=names) == "identifier", label


def test_the_uks_constituent_countries_are_the_uk() -> None:
    """ISO 3166-2 names and codes of England, Scotland and Wales (pycountry) are the UK, whose
    concepts their taxes and benefits are; the province Northern Ireland stays NI; a Crown
    dependency and a county are not the UK."""
    for spelt in ("England", "ENGLAND", "Scotland", "Wales", "Cymru", "GB-ENG", "GB-SCT",
                  "GB-WLS", "England and Wales"):  # fmt: skip
        assert normalise_jurisdiction(spelt) == "UK", spelt
    assert normalise_jurisdiction("Northern Ireland") == "NI"
    assert normalise_jurisdiction("GB-NIR") == "NI"
    assert normalise_jurisdiction("Isle of Man") == "IM"  # out of coverage
    assert normalise_jurisdiction("Ireland and England") == "IRELAND_AND_ENGLAND"
    assert normalise_jurisdiction("Kent") == "KENT"


def test_word_order_is_one_form_numbers_and_negations_are_not() -> None:
    """ADR 0078: a label's content words in another order name the same concept ("Contributory
    State Pension", "State Pension (Contributory)"); its numbers keep their order and a word
    more ("Non-Contributory") is another label."""
    contributory = entry("PENSIONS:IE:STATE_PENSION_CONTRIBUTORY", "State Pension (Contributory)")
    non = entry("PENSIONS:IE:STATE_PENSION_NON_CONTRIBUTORY", "State Pension (Non-Contributory)")
    vocabulary = ReviewedConcepts([contributory, non])
    found = vocabulary.candidates("PENSIONS", "CSP", ["Contributory State Pension"], "IE")
    assert decide("IE", found) is not None
    assert decide("IE", found).id == contributory.key  # type: ignore[union-attr]
    found = vocabulary.candidates("PENSIONS", "NCSP", ["Non-Contributory State Pension"], "IE")
    assert decide("IE", found).id == non.key  # type: ignore[union-attr]
    classes = ReviewedConcepts([entry("SOCIAL_INSURANCE:UK:CLASS_1_NIC", "Class 1 NIC")])
    assert decide("UK", classes.candidates("SOCIAL_INSURANCE", "X", ["NIC Class 4"], "UK")) is None
    assert decide("UK", classes.candidates("SOCIAL_INSURANCE", "X", ["NIC Class 1"], "UK"))
    one_word = ReviewedConcepts([entry("TAX:IE:VAT", "VAT")])
    assert order_free(label_forms("VAT")[0]) is None
    assert decide("IE", one_word.candidates("TAX", "X", ["VAT"], "IE"))
