import pytest

from engine.concepts import CAPTURE_TOOL, concept_id, label_id, parse_capture_payload
from engine.normalise import normalise_label, upper_snake
from errors import MalformedToolPayload

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Value-Added Tax", "value added tax"),
        ("  Taxe sur la valeur ajoutée ", "taxe sur la valeur ajoutee"),
        ("P.R.S.I.", "p r s i"),
        ("USC (2024)", "usc 2024"),
        ("", ""),
    ],
)
def test_normalise_label(text, expected):
    assert normalise_label(text) == expected


def test_concept_id_is_upper_snake_of_the_key():
    assert concept_id("tax", "ie", "value added tax") == "TAX:IE:VALUE_ADDED_TAX"
    assert upper_snake("Impôt sur le revenu") == "IMPOT_SUR_LE_REVENU"
    assert label_id("value added tax") == "LABEL:value_added_tax"


def test_valid_payload_is_parsed_and_keyed():
    [concept] = parse_capture_payload(
        {
            "concepts": [
                {
                    "domain": "tax",
                    "kind": "vat",
                    "jurisdiction": "ie",
                    "prefLabel": "VAT",
                    "altLabels": ["value added tax", " "],
                    "sourceUrls": ["https://revenue.ie"],
                }
            ]
        }
    )
    assert concept.id == "TAX:IE:VAT"
    assert concept.normalised_labels() == ["vat", "value added tax"]


def test_payload_as_json_text_is_accepted():
    payload = (
        '{"concepts": [{"domain": "TAX", "kind": "USC", "jurisdiction": "IE", "prefLabel": "USC"}]}'
    )
    assert parse_capture_payload(payload)[0].id == "TAX:IE:USC"


@pytest.mark.parametrize(
    "payload",
    [
        None,
        "not json",
        {"concepts": "VAT"},
        {"concepts": [{"domain": "TAX", "kind": "VAT", "jurisdiction": "IE"}]},  # no prefLabel
        {"concepts": [{"domain": "!!", "kind": "VAT", "jurisdiction": "IE", "prefLabel": "x"}]},
        {
            "concepts": [
                {
                    "domain": "TAX",
                    "kind": "VAT",
                    "jurisdiction": "IE",
                    "prefLabel": "x",
                    "sourceUrls": ["javascript:alert(1)"],
                }
            ]
        },
        {"concepts": [{"domain": "T", "kind": "K", "jurisdiction": "IE", "prefLabel": "x"}] * 11},
    ],
)
def test_malformed_payloads_raise_a_clear_error(payload):
    with pytest.raises(MalformedToolPayload, match="capture_concepts payload is malformed"):
        parse_capture_payload(payload)


def test_tool_schema_requires_the_four_key_fields():
    item = CAPTURE_TOOL.parameters["properties"]["concepts"]["items"]
    assert item["required"] == ["domain", "kind", "jurisdiction", "prefLabel"]


def test_a_jurisdiction_is_read_as_written_and_kept_as_the_projects_code():
    from engine.concepts import CapturedConcept

    def where(written: str) -> str:
        return CapturedConcept(
            domain="TAX", kind="X", jurisdiction=written, prefLabel="x"
        ).jurisdiction

    assert where("Republic of Ireland") == "IE"  # 19 letters: refused before ADR 0075
    assert where("United Kingdom of Great Britain and Northern Ireland") == "UK"
    assert where("IRL") == "IE" and where("Deutschland") == "DE"
