"""Issue 25, session 7 (tuned on ``bench/data/pii_dev7.json``, values here are the test's own):
two name words in a person's place in lower case or capitals even when the trigram model reads
them as English ("sold by MATEUSZ THORNBERRY"), a word that is a name after a strong cue, a name
before "from accounts told me", a title-case name the model reads as a word before what only a
person does, and an e-mail address with "at the"; the same shapes in law text and chat without
a person stay text."""

from __future__ import annotations

import pytest

from egress.pii import PiiDetector
from egress.pii.findings import EMAIL_ADDRESS, PERSON

pytestmark = pytest.mark.unit


def _found(detector: PiiDetector, text: str, kind: str) -> list[str]:
    return [text[f.start : f.end] for f in detector.detect(text) if f.entity_type == kind]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("the van was sold by MATEUSZ THORNBERRY in may", "MATEUSZ THORNBERRY"),
        ("i gave WENDELIN STOCKBRIDGE the deposit", "WENDELIN STOCKBRIDGE"),
        ("gulnara stockham is the director of the firm", "gulnara stockham"),
        ("does jovita thornbury need to register", "jovita thornbury"),
        ("i work for ladislav kettleworth two days a week", "ladislav kettleworth"),
        ("MY NAME IS PRUDENCE STOCKBRIDGE AND I OWE CGT", "PRUDENCE STOCKBRIDGE"),
        ("my name is honour vasquez, i rent a flat", "honour vasquez"),
    ],
)
def test_a_pair_of_name_words_in_a_person_place_is_a_name(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert name in _found(detector, text, PERSON)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("zbigniew from payroll told me to ask here", "zbigniew"),
        ("SANDEEP AND I WANT TO FILE JOINTLY", "SANDEEP"),
        ("sumati and me bought the house", "sumati"),
        ("Has Rogatien missed the deadline?", "Rogatien"),
        ("Would Pompilio qualify for the home carer credit?", "Pompilio"),
    ],
)
def test_a_lone_name_before_what_a_person_does_is_a_name(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert name in _found(detector, text, PERSON)


@pytest.mark.parametrize(
    "text",
    [
        "The authorised CBAM declarant shall inform the competent authority.",
        "the undertaking was sold by tender in 2023",
        "we bought from wholesalers abroad",
        "DETAILED PLANS OF SUBASSEMBLIES USED FOR THE MANUFACTURE",
        "Re-identification of data subjects from anonymised datasets should be prohibited.",
        "THE AUTHORISED CBAM DECLARANT HAS CEASED ITS ACTIVITY",
        "detailed plans of subassemblies used for the manufacture",
        "does mifid need a prospectus",
        "Does Revolut charge fees on transfers?",
        "Can Tesco deliver on Sunday?",
        "my name is missing from the deed",
        "MY NAME IS ON THE LEASE",
        "the shares were sold by public auction in 2023",
        "is the gift from abroad taxable",
        "the verifier has confirmed the report",
        "tax and i are old enemies",
        "the commission and i disagree",
    ],
)
def test_the_same_places_without_a_person_stay_text(detector: PiiDetector, text: str) -> None:
    assert _found(detector, text, PERSON) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("reply to olek.b at the gmail dot com address", "olek.b at the gmail dot com"),
        ("is tkowal88 at the eircom dot net address right", "tkowal88 at the eircom dot net"),
    ],
)
def test_an_address_with_at_the_is_one_finding(detector: PiiDetector, text: str, value: str):
    assert _found(detector, text, EMAIL_ADDRESS) == [value]


@pytest.mark.parametrize(
    "text",
    [
        "we met at the revenue dot ie office",
        "i was at the gmail.com help page",
        "look it up at the citizens information dot ie site",
    ],
)
def test_at_the_in_prose_is_no_address(detector: PiiDetector, text: str) -> None:
    assert _found(detector, text, EMAIL_ADDRESS) == []
