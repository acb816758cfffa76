"""Issue 25, sixth pass: names in capitals by the same lexicon tests as in title case, the acts'
own acronyms as their exceptions, and e-mail domains with the dot glued inside them."""

from __future__ import annotations

import gzip
from importlib import resources

import pytest

from bench.pii_build_acronyms import count_acronyms
from egress.pii import PiiDetector
from egress.pii.lexicon import load_lexicon

pytestmark = pytest.mark.unit


def _found(detector: PiiDetector, text: str) -> list[tuple[str, str]]:
    return [(f.entity_type, text[f.start : f.end]) for f in detector.detect(text)]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        # A first name the lists hold, alone in capitals amid lower case: as "Zoe" would be.
        ("can ZOE claim the home carer credit", "ZOE"),
        ("i told ZOE the deadline was october", "ZOE"),
        ("is the car NUALA uses a benefit in kind", "NUALA"),
        ("the house is in SIOBHAN's name only", "SIOBHAN"),
        # Two words in capitals amid lower case, the second an English word: "Lisa Bouts".
        ("i sent the deposit to LISA BOUTS last week", "LISA BOUTS"),
        ("paid MAIREAD FIELD for the extension", "MAIREAD FIELD"),
        # A word no list holds, in capitals, where a lower-case name would be a name.
        ("hi its NANAHO, i sent the form yesterday", "NANAHO"),
        ("ask WERONIKA about the pension lump sum", "WERONIKA"),
    ],
)
def test_a_name_in_capitals_is_read_as_in_title_case(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert ("PERSON", name) in _found(detector, text)


@pytest.mark.parametrize(
    "text",
    [
        # The acts' own acronyms, wherever a person could stand.
        "the Commission told ENISA about the incident",
        "we paid ESMA the supervisory fee",
        "the ELI of the act is on EUR-Lex",
        "does EMA approve the medicine",
        # An acronym beside another is not a shouted message ("UK ISA").
        "What is the UK ISA allowance?",
        # After a determiner or a possessive a word in capitals is a thing, not a person.
        "What is the ISA allowance for 2025?",
        "can i put the bonus in my ISA",
        # A brand after an opener: its letters are not a name's.
        "Should Airbnb refund the deposit?",
        # An acronym defined in brackets, a code: law text the acts hold once each.
        "security information and event management (SIEM) systems",
        "certification at levels AVA_VAN.4 and AVA_VAN.5. The first",
        # An English word opening a sentence before a body's name.
        "Accordingly Europol should inform the Member States.",
    ],
)
def test_acronyms_things_and_brands_are_not_names(detector: PiiDetector, text: str) -> None:
    assert [e for e, _ in _found(detector, text) if e == "PERSON"] == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        # Any English word that is no name opens a sentence as "Does" or "Can" does.
        ("Remind Emidio filed the return late.", "Emidio"),
        # After an opener, a name-like word and a capitalised English word: "Weronika Field".
        ("Suppose Weronika Field qualifies for the credit?", "Weronika Field"),
        ("Now Cettina Leach is self-employed, what then?", "Cettina Leach"),
    ],
)
def test_a_name_after_any_opening_word(detector: PiiDetector, text: str, name: str) -> None:
    assert ("PERSON", name) in _found(detector, text)


def test_a_shouted_name_never_takes_the_verb_after_it(detector: PiiDetector) -> None:
    assert ("PERSON", "ZOE") in _found(detector, "CAN ZOE CLAIM THE HOME CARER CREDIT")
    assert ("PERSON", "ZOE") in _found(detector, "we told ZOE PAID ME back")


@pytest.mark.parametrize(
    ("text", "email"),
    [
        ("email me at aoife.doyle at gmaildotcom thanks", "aoife.doyle at gmaildotcom"),
        ("my email is jdoe at yahoodotcodotuk", "jdoe at yahoodotcodotuk"),
        ("it's maria71 at virginmediadotcom, not the old one", "maria71 at virginmediadotcom"),
        ("REPLY TO SEAN AT EIRDOTIE", "SEAN AT EIRDOTIE"),
    ],
)
def test_a_domain_with_its_dot_glued_in_words_is_an_e_mail(
    detector: PiiDetector, text: str, email: str
) -> None:
    assert ("EMAIL_ADDRESS", email) in _found(detector, text)


@pytest.mark.parametrize(
    "text",
    [
        "see dotmailer dot com for the newsletter tool",
        "i was at work dot dot dot and forgot the deadline",
        "we met at the office at 10 dot com era style",
    ],
)
def test_dot_inside_a_word_is_no_e_mail(detector: PiiDetector, text: str) -> None:
    assert [e for e, _ in _found(detector, text) if e == "EMAIL_ADDRESS"] == []


def test_acronyms_are_counted_from_prose_not_headings_or_signatures() -> None:
    texts = [
        "the Commission and ENISA may act. ENISA shall assist the AIFMs.",
        "ANNEX III HIGH-RISK AI SYSTEMS",  # a heading in capitals
        "For the Council The President R. METSOLA",  # a signature
        "The President ZSIGMOND B. P.",
    ]
    counts = count_acronyms(iter(texts))
    assert counts["enisa"] == 2 and counts["aifm"] == 1
    assert "metsola" not in counts and "zsigmond" not in counts
    assert "annex" not in counts and "high" not in counts


def test_the_shipped_acronyms_come_from_the_acts() -> None:
    shipped = gzip.decompress(
        resources.files("egress").joinpath("data", "law_acronyms.txt.gz").read_bytes()
    )
    words = set(shipped.decode("utf-8").split())
    assert {"enisa", "aifm", "eli", "esma"} <= words
    assert not words & {"metsola", "sassoli", "schulz", "tajani", "borg"}  # signatories
    assert load_lexicon().acronyms == frozenset(words)
