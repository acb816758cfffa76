"""ADR 0083: letters close to a label's (character trigrams weighed over every label) make a
review candidate, never a join; a label naming two jurisdictions is one exact form however each
is spelled ("United Kingdom" and "UK"), and a jurisdiction's code is never read as a word."""

import pytest

from engine.lexicon_entry import LexiconEntry
from engine.matching import MERGING, FoundBy, ReviewedConcepts, decide, label_forms

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
        entry("PENSIONS:IE:STATE_PENSION_CONTRIBUTORY", "State Pension (Contributory)"),
        entry("TAX:IE:DTC", "Ireland-UK double taxation convention", "Ireland UK tax treaty"),
        entry("SOCIAL_INSURANCE:UK:NATIONAL_INSURANCE", "National Insurance", "NI contributions"),
        entry("TAX:UK:VAT", "Value Added Tax (United Kingdom)", "UK VAT"),
        entry("TAX:IE:VAT", "Value-Added Tax (Ireland)", "VAT"),
    ]
)


def found(kind: str, where: str | None, *labels: str, suggest: bool = True) -> dict[str, FoundBy]:
    return {
        c.id: c.found_by
        for c in VOCABULARY.candidates("X", kind, list(labels), where, suggest=suggest)
    }


def test_letters_alone_make_a_candidate_never_a_join() -> None:
    got = VOCABULARY.candidates("PENSIONS", "CSP", ["contributry stat penshun"], "IE")
    assert [(c.id, c.found_by) for c in got] == [
        ("PENSIONS:IE:STATE_PENSION_CONTRIBUTORY", FoundBy.CHAR_NGRAMS)
    ]
    assert FoundBy.CHAR_NGRAMS not in MERGING and decide("IE", got) is None
    assert 0 < got[0].score < 1
    # nothing by letters when the capture's jurisdiction is another one
    assert found("CSP", "UK", "contributry stat penshun") == {}
    # jurisdiction words say where, not what: "Irish" brings no Irish concept near
    assert "TAX:IE:VAT" not in found("IRISH_THING", "IE", "Irish widget levy")


def test_a_label_naming_two_jurisdictions_is_one_form_however_each_is_spelled() -> None:
    def joins(label: str) -> dict[str, FoundBy]:
        return found("DOUBLE_TAX_TREATY", "IE", label, suggest=False)

    assert joins("Ireland–United Kingdom Double Taxation Convention") == {
        "TAX:IE:DTC": FoundBy.LABEL
    }
    assert joins("Irish-British double taxation convention") == {"TAX:IE:DTC": FoundBy.LABEL}
    assert joins("Ireland France double taxation convention") == {}


def test_a_jurisdiction_code_is_never_a_word() -> None:
    # "NI contributions" is National Insurance; "Northern Ireland contributions" is not
    assert found("NIC", "UK", "Northern Ireland contributions", suggest=False) == {}
    assert found("NIC", "UK", "NI contributions", suggest=False) == {
        "SOCIAL_INSURANCE:UK:NATIONAL_INSURANCE": FoundBy.LABEL
    }
    forms = {f.form for f in label_forms("Northern Ireland contributions")}
    assert "nicontribution" not in forms and "@nicontribution" in forms
    # the same jurisdiction spelled two ways is one concept, the other jurisdiction another
    british = found("BRITISH_SALES_TAX", "UK", "British VAT", suggest=False)
    assert british == {"TAX:UK:VAT": FoundBy.LABEL}
