from __future__ import annotations

import json
from pathlib import Path

import pytest

from egress.pii import PiiDetector, build_ingress_detector

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "pii" / "ie_uk.json"

LEGAL_TEXT = [
    "Section 472 TCA 1997 provides the employee tax credit of €1,875 from 1 January 2024.",
    "See https://www.revenue.ie/en/personal-tax-credits-reliefs-and-exemptions/index.aspx",
    "Regulation (EU) 2024/903 of the European Parliament and of the Council of 13 March 2024",
    "Article 5(1)(c) of Regulation (EU) 2016/679 (General Data Protection Regulation)",
    "The Finance Act 2023 amended Part 15 of the Taxes Consolidation Act 1997.",
    "Capital Gains Tax is charged at 33% on disposals made after 6 December 2012.",
    "Value-Added Tax Consolidation Act 2010, Schedule 3, paragraph 8",
    "Local Property Tax: the band for a property valued at €350,001 to €437,500 is €405.",
    "Universal Social Charge rates for 2024: 0.5%, 2%, 4% and 8%.",
    "Stamp Duty on residential property is 1% up to €1,000,000.",
    "Help to Buy relief under section 477C TCA 1997 is capped at €30,000.",
    "S.I. No. 123 of 2020 was made by the Minister for Finance.",
    "Pay Related Social Insurance (PRSI) Class A1 applies to most employees.",
    "The Court of Justice of the European Union ruled in Case C-311/18 on 16 July 2020.",
    "Council Directive 2006/112/EC of 28 November 2006 on the common system of VAT",
    "The rate is 23% for standard-rated supplies and 13.5% for reduced-rated ones.",
    "Home Carer Tax Credit: €1,800 for 2024, reduced where the carer earns over €7,200.",
]


@pytest.mark.unit
@pytest.mark.parametrize("text", LEGAL_TEXT)
def test_legal_text_is_not_pii(detector: PiiDetector, text: str) -> None:
    assert detector.detect(text) == []


@pytest.mark.unit
@pytest.mark.parametrize("text", LEGAL_TEXT)
def test_ingress_detector_passes_legal_text(text: str) -> None:
    assert build_ingress_detector().detect(text) == []


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "value", "entity_type"),
    [
        ("My PPSN is 1234567TW.", "1234567TW", "PPSN"),
        ("email me at mary.murphy@example.ie", "mary.murphy@example.ie", "EMAIL_ADDRESS"),
        ("call 087 123 4567 after six", "087 123 4567", "PHONE_NUMBER"),
        ("call +353 (0)1 234 5678", "+353 (0)1 234 5678", "PHONE_NUMBER"),
        ("ring 020 7946 0958", "020 7946 0958", "PHONE_NUMBER"),
        ("IBAN IE29 AIBK 9311 5212 3456 78 please", "IE29 AIBK 9311 5212 3456 78", "IBAN_CODE"),
        ("Eircode D02 X285", "D02 X285", "EIRCODE"),
        ("NI number AB123456C", "AB123456C", "UK_NINO"),
        ("card 4111 1111 1111 1111", "4111 1111 1111 1111", "CREDIT_CARD"),
        ("from 192.168.10.20 today", "192.168.10.20", "IP_ADDRESS"),
        (
            "key sk-proj-abcdefghijklmnopqrstuvwx123",
            "sk-proj-abcdefghijklmnopqrstuvwx123",
            "SECRET",
        ),
        ("AWS AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "SECRET"),
        ("password=hunter2!x", "hunter2!x", "SECRET"),
        ("I was born on 3 May 1980.", "3 May 1980", "DATE_OF_BIRTH"),
        ("DOB: 03/05/1980", "03/05/1980", "DATE_OF_BIRTH"),
        ("I live at 12 Harcourt Road, Dublin 2", "12 Harcourt Road, Dublin 2", "STREET_ADDRESS"),
        ("Dear Ms. Siobhán Ní Bhriain,", "Siobhán Ní Bhriain", "PERSON"),
        ("My name is Aoife Kavanagh and I am self-employed.", "Aoife Kavanagh", "PERSON"),
    ],
)
def test_finds(detector: PiiDetector, text: str, value: str, entity_type: str) -> None:
    found = [(text[f.start : f.end], f.entity_type) for f in detector.detect(text)]
    assert (value, entity_type) in found


@pytest.mark.unit
def test_checksum_invalid_ppsn_and_iban_are_not_flagged(detector: PiiDetector) -> None:
    assert detector.detect("ref 1234567A") == []
    assert detector.detect("IBAN IE28 AIBK 9311 5212 3456 78") == []


@pytest.mark.unit
def test_issue9_a_ppsn_with_a_wrong_check_letter_is_flagged_where_it_is_called_a_ppsn(
    detector: PiiDetector,
) -> None:
    [finding] = detector.detect("PPSN 1234567A")
    assert (finding.entity_type, finding.start, finding.end) == ("PPSN", 5, 13)


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "value", "entity_type"),
    [
        ("PPSN 52601\u200d81E", "52601\u200d81E", "PPSN"),
        ("my pps is 9 7 0 3 7 5 8 T A ok", "9 7 0 3 7 5 8 T A", "PPSN"),
        (
            "PPSN \uff15\uff12\uff16\uff10\uff11\uff18\uff11\uff25",
            "\uff15\uff12\uff16\uff10\uff11\uff18\uff11\uff25",
            "PPSN",
        ),
        ("IBAN IE29\u200bAIBK93115212345678", "IE29\u200bAIBK93115212345678", "IBAN_CODE"),
        ("mail mary\uff20example.ie", "mary\uff20example.ie", "EMAIL_ADDRESS"),
        ("write to mary (at) example (dot) ie", "mary (at) example (dot) ie", "EMAIL_ADDRESS"),
        ("write to mary [at] example [dot] ie", "mary [at] example [dot] ie", "EMAIL_ADDRESS"),
        ("the house at d02 x285", "d02 x285", "EIRCODE"),
        ("SIOBHAN MURPHY wants CGT advice", "SIOBHAN MURPHY", "PERSON"),
        ("Dear \u0420\u0435ter Walsh,", "\u0420\u0435ter Walsh", "PERSON"),
        ("my passport number is PA1234567", "PA1234567", "PASSPORT"),
        ("UK passport 123456789 expired", "123456789", "PASSPORT"),
        ("My UTR is 12345 67890", "12345 67890", "UK_UTR"),
        ("VAT no. IE6433435F", "IE6433435F", "VAT_NUMBER"),
        ("supplier GB 980 7806 84", "GB 980 7806 84", "VAT_NUMBER"),
        ("sort code 12-34-56", "12-34-56", "UK_BANK_ACCOUNT"),
        ("account number 12345678", "12345678", "UK_BANK_ACCOUNT"),
    ],
)
def test_issue9_evasions_and_new_identifiers_are_found_on_the_text_as_written(
    detector: PiiDetector, text: str, value: str, entity_type: str
) -> None:
    found = [(text[f.start : f.end], f.entity_type) for f in detector.detect(text)]
    assert (value, entity_type) in found


@pytest.mark.unit
@pytest.mark.parametrize(
    "text",
    [
        "The passport office is open from 9 to 5.",
        "VAT at 23% applies from 1 January 2024.",
        "Regulation (EU) 2016/679 applies to accounts opened after 2018.",
        "Section 481 film relief is capped at 20000000 euros.",
        "Flat-rate farmers charge 4.8% VAT.",
    ],
)
def test_kept_types_and_context_words_alone_are_not_pii(detector: PiiDetector, text: str) -> None:
    assert detector.detect(text) == []


@pytest.mark.unit
def test_ie_uk_fixture_targets(detector: PiiDetector) -> None:
    """Every valid identifier caught with its type; no checksum-invalid PPSN/IBAN flagged."""
    samples = json.loads(FIXTURES.read_text(encoding="utf-8"))
    missed, flagged = [], []
    for sample in samples:
        found = detector.detect(sample["full_text"])
        meta = sample["metadata"]
        if meta["expect"] == "found":
            span = sample["spans"][0]
            if not any(
                f.entity_type == span["entity_type"]
                and f.start <= span["start_position"]
                and f.end >= span["end_position"]
                for f in found
            ):
                missed.append(sample["full_text"])
        elif any(f.entity_type == meta["entity_type"] for f in found):
            flagged.append(sample["full_text"])
    assert len(samples) >= 150
    assert missed == []
    assert flagged == []


@pytest.mark.unit
def test_detector_is_safe_to_share_between_threads(detector: PiiDetector) -> None:
    from concurrent.futures import ThreadPoolExecutor

    text = "Mr. Seán Ó Briain, PPSN 1234567TW, phone 087 123 4567"
    expected = detector.detect(text)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(detector.detect, [text] * 32))
    assert all(r == expected for r in results)
