"""EuroVoc loader: the shipped data file and how its concepts become lexicon entries."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import engine.eurovoc as eurovoc_module
from engine.eurovoc import EUROVOC_DATA_FILE, EurovocConcept, load_eurovoc
from engine.lexicon import ConceptLexicon

pytestmark = pytest.mark.unit

DATA_FILE = Path(eurovoc_module.__file__).parent / "data" / EUROVOC_DATA_FILE


@pytest.fixture(scope="module")
def shipped() -> dict[str, EurovocConcept]:
    return {concept.entry.key: concept for concept in load_eurovoc()}


def write_file(tmp_path: Path, concepts: list[dict[str, Any]], fmt: int = 1) -> Path:
    path = tmp_path / "eurovoc.json"
    path.write_text(json.dumps({"format": fmt, "concepts": concepts}), encoding="utf-8")
    return path


# ---------------------------------------------------------------- the shipped file


def test_data_file_is_compact_and_attributed() -> None:
    assert DATA_FILE.stat().st_size < 1_000_000
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    attribution = data["attribution"]
    assert "European Union" in attribution["copyright"]
    assert "CC BY 4.0" in attribution["licence"]
    assert attribution["release"] == "2021-06-04"
    assert set(data["microthesauri"]) == {
        "2446",
        "2806",
        "2811",
        "2816",
        "2821",
        "2826",
        "2831",
        "2836",
        "2841",
        "2846",
    }
    assert data["concept_count"] == len(data["concepts"]) == 731


def test_loads_real_eurovoc_entries(shipped: dict[str, EurovocConcept]) -> None:
    assert len(shipped) == 731
    assert len(ConceptLexicon.from_eurovoc()) == 731
    vat = shipped["eurovoc:4585"].entry
    assert vat.pref_label == "VAT"
    assert {"TVA", "value added tax", "taxe sur la valeur ajoutée"} <= set(vat.alt_labels)
    assert vat.domain == "TAX"
    assert vat.kind == "VAT"
    assert vat.scheme == "eurovoc"
    assert vat.jurisdiction is None
    assert vat.source_urls == ("http://eurovoc.europa.eu/4585",)
    assert vat.notation == "4585"
    assert vat.broader == ("eurovoc:1321",)
    assert vat.microthesaurus == "2446"
    # both languages' preferred labels rank as preferred, though "TVA" is an alt label
    assert shipped["eurovoc:4585"].preferred_labels == {"vat", "tva"}
    for concept in shipped.values():
        assert re.fullmatch(r"[A-Z0-9_]{1,64}", concept.entry.kind), concept
        assert re.fullmatch(r"[A-Z_]+", concept.entry.domain), concept


def test_domain_mapping(shipped: dict[str, EurovocConcept]) -> None:
    def domain(cid: str) -> str:
        return shipped[f"eurovoc:{cid}"].entry.domain

    assert domain("1326") == "TAX"  # tax on income (2446)
    assert domain("4050") == "WELFARE"  # social security (2836)
    assert domain("3751") == "PENSIONS"  # pension scheme subtree
    assert domain("3362") == "PENSIONS"  # supplementary pension, narrower of 3751
    assert domain("1695") == "HOUSING"  # subsidised housing (2846)


# ---------------------------------------------------------------- loading rules


def test_labels_definitions_and_domains_from_a_small_file(tmp_path: Path) -> None:
    path = write_file(
        tmp_path,
        [
            {
                "id": "3751",
                "mt": ["2836"],
                "pref": {"en": "pension scheme", "fr": "régime de retraite"},
                "scope_note": {"en": "Use for any scheme."},
            },
            {
                "id": "9001",
                "mt": ["2836"],
                "pref": {"en": "top-up pension", "fr": "retraite complémentaire"},
                "alt": {
                    "en": ["top-up pension", "extra pension"],
                    "fr": ["retraite complémentaire"],
                },
                "broader": ["3751"],
                "scope_note": {"en": "Paid on top of the State pension."},
                "notation": "9001",
            },
            {"id": "9002", "mt": ["9999"], "pref": {"fr": "allocation"}, "definition": {"en": "D"}},
        ],
    )
    scheme, top_up, allocation = load_eurovoc(path)

    assert scheme.entry.domain == "PENSIONS"  # the subtree root itself
    assert scheme.entry.definition is None  # a usage note is no definition
    assert scheme.entry.notation is None

    assert top_up.entry.domain == "PENSIONS"  # below the subtree root, though 2836 is WELFARE
    assert top_up.entry.pref_label == "top-up pension"
    assert top_up.entry.alt_labels == ("retraite complémentaire", "extra pension")  # no repeats
    assert top_up.entry.kind == "TOP_UP_PENSION"
    assert top_up.entry.definition == "Paid on top of the State pension."
    assert top_up.entry.broader == ("eurovoc:3751",)
    assert top_up.entry.microthesaurus == "2836"
    assert top_up.preferred_labels == {"top up pension", "retraite complementaire"}

    assert allocation.entry.pref_label == "allocation"  # French when there is no English
    assert allocation.entry.domain == "SOCIAL"  # unknown microthesaurus: the default
    assert allocation.entry.definition == "D"


def test_french_preferred_label_outranks_another_concepts_alt_label(tmp_path: Path) -> None:
    path = write_file(
        tmp_path,
        [
            {"id": "1", "mt": ["2446"], "pref": {"en": "turnover tax"}, "alt": {"fr": ["TVA"]}},
            {"id": "2", "mt": ["2446"], "pref": {"en": "VAT", "fr": "TVA"}},
        ],
    )
    lexicon = ConceptLexicon.from_eurovoc(path)
    assert [e.key for e in lexicon.lookup("tva")] == ["eurovoc:2", "eurovoc:1"]
    assert [h.entry.key for h in lexicon.match("la TVA")] == ["eurovoc:2"]


def test_unknown_format_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="format"):
        load_eurovoc(write_file(tmp_path, [], fmt=2))
