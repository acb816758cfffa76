"""PII as people type it (issue 25): names in any case, contact details written out, and spans
that hold the value alone — on every recogniser of both detectors."""

from __future__ import annotations

import re

import pytest

from egress.pii import PiiDetector, build_ingress_detector
from egress.pii.detector import _recognisers
from egress.pii.lexicon import Lexicon, load_lexicon

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def ingress() -> PiiDetector:
    return build_ingress_detector()


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return load_lexicon()


def _found(detector: PiiDetector, text: str) -> list[tuple[str, str]]:
    return [(f.entity_type, text[f.start : f.end]) for f in detector.detect(text)]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("my name is aoife doyle and i want to claim the rent credit", "aoife doyle"),
        ("hi, i'm ciaran lewandowski. do i pay prsi?", "ciaran lewandowski"),
        ("i am feidhlim, how much usc do i pay", "feidhlim"),
        ("for my client siobhan kearney, is the gift exempt?", "siobhan kearney"),
        ("regards, claire costa", "claire costa"),
        ("signed thomas wojcik, director", "thomas wojcik"),
        ("dara here, quick question about usc", "dara"),
        ("does patrick white need to file a form 11", "patrick white"),
        ("my son eoin p. bell starts college", "eoin p. bell"),
        ("please reply to ngozi okafor about the refund", "ngozi okafor"),
        ("does ms o'brien qualify for the carer's allowance", "o'brien"),
        ("MY NAME IS AOIFE DOYLE AND I PAY PAYE", "AOIFE DOYLE"),
        ("HI, I'M SEAN O'BRIEN. DO I NEED TO REGISTER FOR VAT?", "SEAN O'BRIEN"),
        ("Hi, NIALL E. DONNELLY here. What is the VAT rate?", "NIALL E. DONNELLY"),
        ("Client ROISIN BYRNE wants to know about remote working relief.", "ROISIN BYRNE"),
        ("NAME: MAIREAD KOWALSKI\nQuestion: medical expenses", "MAIREAD KOWALSKI"),
        ("When Teresa Costa retires, what happens to the pension?", "Teresa Costa"),
        # A sign-off or a label: the name runs to the end of the line or the punctuation.
        ("kind regards earl emery", "earl emery"),
        ("Regards,\nMOHAMMAD E. SANDS", "MOHAMMAD E. SANDS"),
        ("Taxpayer name ALFONSO SEAMAN; query on the HRI.", "ALFONSO SEAMAN"),
        ("Deceased: NED - who signs the final return?", "NED"),
        # A possessive ends the name; a role or relation is a cue, never part of the name.
        ("i'm gary rivera's carer, can i get the grant", "gary rivera"),
        ("my flatmate leonard isbell sublets a room", "leonard isbell"),
        ("our bookkeeper earl ackerman left in may", "earl ackerman"),
        ("can gerald, my son, claim the refund", "gerald"),
        ("zachary is my name and i'm a foster carer", "zachary"),
        ("Hi team, it's LAVERNE again about PAYE.", "LAVERNE"),
        ("hi its connie, the lpt bill came", "connie"),
        ("talked to adrienne at the revenue office", "adrienne"),
        # Title case after a sentence-initial contraction, a surname that is a word, a month
        # that is a first name, a greeting before a first name that is a word.
        ("Doesn't Lucinda Watson claim the expenses?", "Lucinda Watson"),
        ("Unless Gary Towns earns 40,000 a year?", "Gary Towns"),
        ("Might June Romero qualify for the credit?", "June Romero"),
        ("Cheers Ray!", "Ray"),
        # Third pass (bench/data/pii_dev3.json): names no list holds, side by side and
        # name-like (egress.pii.namelike); particles after a title; sign-offs without a comma
        # or alone on their line; "the ... family"; a surname after "my surname is".
        ("is it true that hui mazur can transfer her credits", "hui mazur"),
        ("PLEASE FORWARD THIS TO BABAJIDE KAZLAUSKIENE IN PAYROLL", "BABAJIDE KAZLAUSKIENE"),
        ("venkatesh kaminski told me the rate went up", "venkatesh kaminski"),
        ("the landlord is florin krishnan and he will not register", "florin krishnan"),
        ("my mate bohdan nic dhonnchadha says the scheme ended", "bohdan nic dhonnchadha"),
        ("dr nic dhonnchadha charged me 80 euro", "nic dhonnchadha"),
        ("MS NÍ BHRIAIN FROM THE TAX OFFICE SAID TO RING BACK", "NÍ BHRIAIN"),
        ("ta\nvenkatesh kaminski", "venkatesh kaminski"),
        ("best wishes florin chukwu", "florin chukwu"),
        ("Regards VENKATESH OBI", "VENKATESH OBI"),
        ("the lewandowska family next door rent out a room", "lewandowska"),
        ("MY SURNAME IS OBI, DO I NEED IT ON THE FORM", "OBI"),
        ("is it true that taras zhou can claim", "taras zhou"),
        ("Ok Mindaugas Almeida claimed the relief last year.", "Mindaugas Almeida"),
        # Fifth pass (bench/data/pii_dev5.json): a word in capitals no list holds, read like a
        # name and in a person's place; in a shouted message the same as in lower case; a
        # surname alone beside a verb of people's lives; a lone title-case word no list holds
        # after a verb or adverb that opens the sentence.
        ("can you check if the payment to OLUWASEUN counts as income", "OLUWASEUN"),
        ("my partner and IFEOMA share the house, who claims", "IFEOMA"),
        ("my mother NKECHI died in march, what about the estate", "NKECHI"),
        ("WE PAID CHIAMAKA OKONKWO FOR THE EXTENSION", "CHIAMAKA OKONKWO"),
        ("KOWALCZYK owns half the rental property", "KOWALCZYK"),
        ("Does Oluwaseun qualify for the help to buy scheme?", "Oluwaseun"),
    ],
)
def test_a_name_in_any_case_is_found_alone(detector: PiiDetector, text: str, name: str) -> None:
    assert ("PERSON", name) in _found(detector, text)
    assert [v for t, v in _found(detector, text) if t == "PERSON"] == [name]


@pytest.mark.parametrize(
    "text",
    [
        "i am self-employed and my name is on the lease, can i claim the rent tax credit",
        "I AM A PAYE WORKER, DO I PAY USC ON MY BONUS?",
        "for my client's company, is vat due on exports to the uk",
        "i signed the contract in may, when is the stamp duty due",
        "dear sir or madam, what is the vat rate on children's clothes",
        "grace period for late filing is five days",
        "will power alone won't file the return",
        "mark the box for the single person child carer credit",
        "frank question: is crypto taxed as cgt or income",
        "bill of costs from the solicitor included vat",
        "DORA APPLIES FROM 17 JANUARY 2025 TO FINANCIAL ENTITIES",
        "look it up at revenue dot ie under paye services",
        "we meet at noon at the tax office",
        "the rate was nine at the start and twenty-three at the end",
        "ref: 2024/0123/45 dated 01/02/2024, lodgement 1,234.56 on 12.03.2024",
        "one, two or three children: does the credit change?",
        "MY EMPLOYER PAYS CLASS A PRSI, WHAT DO I PAY?",
        "VAT is charged at the point of sale. In Ireland the rate is 23%.",
        "the rate at zero point five per cent applies from 05/06/2023",
        "as referred to in point (a) of Article 6(1), at the request of the controller",
        "meet me at the office dot dot dot just kidding",
        "May 2025 is when the new rules start.",
        "it was decided at meetings. In the end nobody paid",
        "forty five thousand is the cut off, twenty-three per cent above it",
        "section four hundred and seventy-two, ninety nine per cent of 12,000",
        "the applicant issuer shall provide its learnable parameters",
        "in vitro tests, ex vivo tests, animal tests",
        "Executive Director, ENISA shall be represented by the Chairperson",
        "Within a specified timeframe, the applicant conformity assessment body shall",
        "the AIF's depositary, auditor and any other service provider",
        # third pass: law text the new rules first flagged (bench/pii_ab.py), and chat
        "as regards depositaries, to specify the criteria",
        "As regards microenterprises and small and medium-sized enterprises",
        "on behalf of issuers, would amount to the activity",
        "the effectiveness of SOG-IS MRA from the point of view",
        "the procedures set out in EN ISO/IEC 30111.",
        "arteriae pulmonales, aorta ascendens, arteria carotis communis, arteria carotis externa",
        "National cybersecurity certification authorities shall cooperate",
        "with regards to the new rules, what changed",
        "is the grace period for filing the form 11 still two weeks",
        "look it up at revenue dot ie, section on deposit interest",
        "the point is that the dot on the form is not a signature",
        "THE DOT COM BOOM LEFT ME WITH LOSSES, CAN I OFFSET THEM",
        # fifth pass: initialisms in a person's place, bodies after a legal opener
        "ask EDPB about the guidelines",
        "the payment to ESMA was late",
        "Where Eurojust considers it necessary, it shall inform the Commission",
        "The Eurojust annual report lists the cases",
        "Does Annex III apply to my system?",
        "Is Galway in the rent pressure zone?",
    ],
)
def test_tax_chat_typed_the_same_ways_has_no_finding(
    detector: PiiDetector, ingress: PiiDetector, text: str
) -> None:
    assert _found(detector, text) == []
    assert _found(ingress, text) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("my email is sean dot power82 at mail dot com", "sean dot power82 at mail dot com"),
        ("send it to khayes [at] hse [dot] ie please", "khayes [at] hse [dot] ie"),
        ("email mairead.kennedy -at- live -dot- ie now", "mairead.kennedy -at- live -dot- ie"),
        ("contact: npower @ live . ie", "npower @ live . ie"),
        ("reply to EMMA.OCALLAGHAN77 AT OUTLOOK DOT COM", "EMMA.OCALLAGHAN77 AT OUTLOOK DOT COM"),
        ("mail x_y12 {at} yahoo {dot} co {dot} uk", "x_y12 {at} yahoo {dot} co {dot} uk"),
        ("(email: dumitru_c _at_ gmail.com)", "dumitru_c _at_ gmail.com"),
        # Any wrapper around a marker, "(a)", "[@]", "[.]", "period"/"point", "@" with a word dot.
        ("email: hollis58 _at_ dcu _dot_ ie", "hollis58 _at_ dcu _dot_ ie"),
        ("i use barrows13 *at* indigo *dot* ie", "barrows13 *at* indigo *dot* ie"),
        ("it is rpitts #at# talktalk #dot# net, ok", "rpitts #at# talktalk #dot# net"),
        ("to l 'dot' ross 'at' law 'dot' co 'dot' uk", "l 'dot' ross 'at' law 'dot' co 'dot' uk"),
        ("mine is andre-moreno (a) aol.com if that helps", "andre-moreno (a) aol.com"),
        ("cc p.leavitt [@] ul [.] ie on it", "p.leavitt [@] ul [.] ie"),
        ("to vhopkins at live period co period uk", "vhopkins at live period co period uk"),
        ("(contact nunez67 at msn point com)", "nunez67 at msn point com"),
        ("drop a line to bessie dot seward@dcu dot ie", "bessie dot seward@dcu dot ie"),
        ("mail ann ~at~ mu ~dot~ ie", "ann ~at~ mu ~dot~ ie"),
        # A dot with a space on both sides is a spelled dot, even after a bare "at".
        ("send to aoife at gmail . com please", "aoife at gmail . com"),
        # Third pass: "at sign", "full stop", "dotcom", separators written out, marker words
        # of other languages, markers in capitals glued to lower-case words.
        ("it is dshevchenko at sign outlook dot ie", "dshevchenko at sign outlook dot ie"),
        ("email: nuria57 (at sign) dublinbakes (dot) ie", "nuria57 (at sign) dublinbakes (dot) ie"),
        ("reply to mhussain @ onet full stop pl please", "mhussain @ onet full stop pl"),
        ("email me: fiachra AT eircom dotcom", "fiachra AT eircom dotcom"),
        (
            "send to meiling underscore goncalves46 at gmail dot com",
            "meiling underscore goncalves46 at gmail dot com",
        ),
        (
            "xiaoming dash ferreira at hotmail dot com is mine",
            "xiaoming dash ferreira at hotmail dot com",
        ),
        ("daithi hyphen nascimento AT yahoo DOT ie", "daithi hyphen nascimento AT yahoo DOT ie"),
        ("reply to marites arroba gmail punto com please", "marites arroba gmail punto com"),
        ("email me: ikrishnan arobase outlook point ie", "ikrishnan arobase outlook point ie"),
        ("to rdelacruz29 malpa yahoo kropka ie", "rdelacruz29 malpa yahoo kropka ie"),
        ("mpetrauskas AT wp punkt pl is my email", "mpetrauskas AT wp punkt pl"),
        ("reach me on deepikaobiATinboxDOTlt if easier", "deepikaobiATinboxDOTlt"),
        ("it is jbreathnach at outlook d o t ie", "jbreathnach at outlook d o t ie"),
        # Fifth pass: prose before the address that the pattern tried first ("me at jane.doe")
        # no longer hides it; a written-out dot before a plain address is one value with it.
        ("contact me at jane.doe at mail.ie thanks", "jane.doe at mail.ie"),
        ("mail me at jane.doe@gmail dot com please", "jane.doe@gmail dot com"),
        ("cc capon dot w@tcd.ie on the answer", "capon dot w@tcd.ie"),
        ("reach my accountant at yuito dot masson23 at nhs dot net", None),
        # Eighth pass: a local part typed with spaces for its separators is one value with the
        # words of the name before it, never with the prose ("email", "to") before them.
        ("can you send the pdf to ilka zust at libero dot it", "ilka zust at libero dot it"),
        ("email address lauinger l at gmail dot com thanks", "lauinger l at gmail dot com"),
        ("old email was reekman u at live dot co dot uk", "reekman u at live dot co dot uk"),
    ],
)
def test_an_e_mail_address_written_out_is_one_finding(
    detector: PiiDetector, text: str, value: str | None
) -> None:
    if value is None:
        value = text[text.index(" at ") + 4 :]  # the address after the prose's "at"
    assert _found(detector, text) == [("EMAIL_ADDRESS", value)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "call me on oh eight seven, one two three, four five six seven",
            "oh eight seven, one two three, four five six seven",
        ),
        ("ring zero eight five double seven nine three eight three four", None),
        ("my number is 0 8 7 1 2 3 4 5 6 7 thanks", "0 8 7 1 2 3 4 5 6 7"),
        ("whatsapp 089.856.7245", "089.856.7245"),
        ("phone 083-851-1591 after six", "083-851-1591"),
        ("mobile: plus three five three eight seven 123 4567", None),
        ("text 0 7 7 0 0 9 0 0 1 2 3", "0 7 7 0 0 9 0 0 1 2 3"),
        ("landline 021 four five six seven eight nine oh", "021 four five six seven eight nine oh"),
        # Another country's number in words, from its country code (valid in its own plan).
        ("tel. plus four eight five one two three double four five six seven", None),
        ("they rang from plus three five one nine one two four two seven two five zero", None),
        # Eight digits from the trunk 0 (a valid IE number), words joined by hyphens.
        ("you can text 022 / 95080", "022 / 95080"),
        ("my mobile is 0 2 2 1 2 2 4 3", "0 2 2 1 2 2 4 3"),
        (
            "office oh-double-two-double-two-five-oh-nine, ask",
            "oh-double-two-double-two-five-oh-nine",
        ),
        # Tens said as one ("oh eighty-seven"), a letter o typed for the trunk zero.
        ("ring oh eighty-seven, one two three, forty five sixty seven", None),
        ("call +353 eighty seven 123 4567 today", "+353 eighty seven 123 4567"),
        ("call O87 1234567 today", "O87 1234567"),
        # Eighth pass: the separator said as a word ("dash", "hyphen").
        (
            "my mobile is oh seven five dash seven seven eight one nine one five seven",
            "oh seven five dash seven seven eight one nine one five seven",
        ),
        (
            "ring oh one hyphen two three four five six seven eight",
            "oh one hyphen two three four five six seven eight",
        ),
    ],
)
def test_a_phone_number_in_words_or_odd_separators_is_one_finding(
    detector: PiiDetector, text: str, value: str | None
) -> None:
    found = _found(detector, text)
    assert [t for t, _ in found] == ["PHONE_NUMBER"]
    if value is not None:
        assert found[0][1] == value
    assert found[0][1].split()[0] not in ("ring", "mobile:", "call")


# Every kind of value, after a sentence-initial function word or verb and before a verb.
VALUES = [
    "Aoife Doyle",
    "aoife doyle",
    "AOIFE DOYLE",
    "Karen McCarthy",
    "aoife.doyle@example.ie",
    "aoife dot doyle at gmail dot com",
    "087 123 4567",
    "oh eight seven one two three four five six seven",
    "5260181E",
    "IE29 AIBK 9311 5212 3456 78",
    "D02 X285",
    "14 Crown Street",
]
FRAMES = [
    "Can {v} be used for the refund?",
    "Will {v} pay the tax?",
    "May {v} claim relief?",
    "Does {v} need to be on the form?",
    "If {v} is wrong, what then?",
    "Tell {v} nothing.",
    "Thanks {v} was on the letter.",
]


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("value", VALUES)
def test_no_recogniser_swallows_the_word_before_or_after_a_value(
    detector: PiiDetector, lexicon: Lexicon, frame: str, value: str
) -> None:
    """Issue 25: "Can Aoife Doyle ..." must not become "[PERSON_1] ...". Every recogniser of
    both detectors on its own: no finding reaches outside the value; and the egress detector
    covers every word of it."""
    if value == "AOIFE DOYLE":
        frame = frame.upper().replace("{V}", "{v}")
    text = frame.format(v=value)
    start = text.index(value)
    end = start + len(value)
    for score in (0.5, 0.8):
        for recogniser in _recognisers(lexicon, name_score=score):
            for f in recogniser.find(text):
                if f.score >= 0.5 and f.end > start and f.start < end:
                    assert start <= f.start and f.end <= end, (
                        type(recogniser).__name__,
                        text[f.start : f.end],
                    )
    inside = [f for f in detector.detect(text) if f.end > start and f.start < end]
    assert all(start <= f.start and f.end <= end for f in inside), _found(detector, text)
    for word in re.finditer(r"\w+", value):
        assert any(
            f.start <= start + word.start() and start + word.end() <= f.end for f in inside
        ), (word.group(), _found(detector, text))


# Eighth pass (ADR 0084): first names Faker lacks come from the broader lists, and a name found
# in a shouted message ends where the shouting words start.
@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("my name is impi montero, do i pay usc", "impi montero"),
        ("IMPI MONTERO SAYS THE P45 IS WRONG", "IMPI MONTERO"),
        ("SIOBHAN MURPHY SAYS THE P45 IS WRONG", "SIOBHAN MURPHY"),
    ],
)
def test_a_name_of_the_broader_lists_is_found_and_ends_before_the_words(
    detector: PiiDetector, text: str, name: str
) -> None:
    assert _found(detector, text) == [("PERSON", name)]


def test_the_broader_name_lists_hold_no_english_word_and_no_acronym_of_the_acts(
    lexicon: Lexicon,
) -> None:
    import gzip
    from importlib import resources

    for name in ("first_names_extra.txt.gz", "surnames_extra.txt.gz"):
        data = resources.files("egress").joinpath("data", name).read_bytes()
        words = set(gzip.decompress(data).decode("utf-8").split())
        assert len(words) > 10_000
        assert not words & lexicon.english_words
        assert not words & lexicon.acronyms
        assert all(len(w) >= 3 and w.isalpha() for w in words)
