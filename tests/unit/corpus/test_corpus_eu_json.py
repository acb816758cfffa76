"""The fourth input format: EU acts as structured JSON (``corpus.eu_json``, issue 22)."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from corpus import ProvisionKind, SourceFormat, parse_act, shipped_acts, to_graph_writes
from corpus.eu_json import parse_eu_json
from corpus.graph_writes import label_for_id
from corpus.parse import SHIPPED_ACTS_DIR, detect_format, prefer_official_journal
from errors import InvalidInput

pytestmark = pytest.mark.unit

JSON_DIR = SHIPPED_ACTS_DIR / "json"


def act_json(**overrides: Any) -> bytes:
    raw: dict[str, Any] = {
        "id": "DORA",
        "full_name": "Digital Operational Resilience Act",
        "celex_id": "32022R2554",
        "effective_date": "2025-01-17",
        "eur_lex_url": "https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:32022R2554",
        "articles": [
            {
                "number": "3",
                "title": "Definitions",
                "chapter": "I",
                "text": "For the purposes of this Regulation:\n\n(1)\n\n‘ICT risk’ means a risk;",
            },
            {
                "number": "19",
                "title": "Reporting",
                "chapter": "III",
                "text": "1.   Financial entities shall report incidents.\n\n(a)\n\nan initial "
                "notification;\n\n2.   They may notify threats, as referred to in "
                "Article 6(1) of Directive (EU) 2022/2555.\n\n5.   Not a paragraph.",
            },
            {
                "number": "20",
                "chapter": "III",
                "text": "Harmonisation of reporting\n\nThe ESAs shall develop standards.",
            },
        ],
        "recitals": [
            {"recital_number": 1, "text": "In the digital age ..."},
            {"recital_number": 2, "text": "Second."},
            {"recital_number": 2, "text": "Second."},
        ],
        "definitions": [{"term": "ICT risk", "definition": "a risk;", "article": "3"}],
    }
    raw.update(overrides)
    return json.dumps(raw).encode()


def test_articles_paragraphs_points_recitals_definitions_chapters() -> None:
    act = parse_eu_json(act_json())
    ids = [p.id for p in act.provisions]
    assert act.source_format is SourceFormat.EU_JSON
    assert act.instrument.id == "EU:REG_2022_2554"
    assert act.instrument.short_name == "DORA"
    assert act.instrument.applies_from == "2025-01-17"
    assert "EU:REG_2022_2554:ART_19_1" in ids and "EU:REG_2022_2554:ART_19_2" in ids
    assert "EU:REG_2022_2554:ART_19_5" not in ids  # 5 does not follow 2: text, not a paragraph
    paragraph = act.by_id["EU:REG_2022_2554:ART_19_1"]
    assert (
        paragraph.text
        == "1. Financial entities shall report incidents.\n(a) an initial notification;"
    )
    assert [p.number for p in act.of_kind(ProvisionKind.RECITAL)] == ["1", "2"]
    assert act.by_id["EU:REG_2022_2554:ART_19"].parent_id == "EU:REG_2022_2554:CHAPTER_III"
    assert act.by_id["EU:REG_2022_2554:ART_20"].heading == "Harmonisation of reporting"
    definition = act.by_id["EU:REG_2022_2554:ART_3_DEF_ICT_RISK"]
    assert definition.kind is ProvisionKind.DEFINITION
    assert definition.parent_id == "EU:REG_2022_2554:ART_3"
    assert definition.text == "‘ICT risk’ means a risk;"


def test_graph_writes_label_definitions_and_cite_across_acts() -> None:
    nodes, edges = to_graph_writes(parse_eu_json(act_json()))
    labels = {n.id: n.label for n in nodes}
    assert labels["EU:REG_2022_2554:ART_3_DEF_ICT_RISK"] == "Definition"
    assert label_for_id("EU:REG_2022_2554:ART_3_DEF_ICT_RISK") == "Definition"
    assert label_for_id("EU:UNECE_R155:ART_2") == "Article"
    cites = {(e.source_id, e.target_id) for e in edges if e.type == "CITES"}
    assert ("EU:REG_2022_2554:ART_19_2", "EU:DIR_2022_2555:ART_6_1") in cites
    part_of = {(e.source_id, e.target_id) for e in edges if e.type == "PART_OF"}
    assert ("EU:REG_2022_2554:ART_3_DEF_ICT_RISK", "EU:REG_2022_2554:ART_3") in part_of


def test_consolidated_version_keeps_its_date_and_un_regulations_get_their_own_ids() -> None:
    consolidated = parse_eu_json(act_json(celex_id="02014R0910-20241018", full_name="eIDAS"))
    assert consolidated.instrument.id == "EU:REG_2014_910"
    assert consolidated.instrument.celex == "32014R0910"
    assert consolidated.instrument.citation == "Regulation (EU) No 910/2014"
    assert consolidated.instrument.valid_from == "2024-10-18"
    nodes, _ = to_graph_writes(consolidated)
    assert {n.properties.get("valid_from") for n in nodes if n.label == "Article"} == {"2024-10-18"}
    un = parse_eu_json(act_json(celex_id="42021X0387", full_name="UN Regulation No 155 - Cyber"))
    assert un.instrument.id == "EU:UNECE_R155"


def test_bad_input_is_invalid() -> None:
    with pytest.raises(InvalidInput):
        parse_eu_json(b"[1, 2]")
    with pytest.raises(InvalidInput):
        parse_eu_json(act_json(celex_id="52021PC0206"))


def test_every_shipped_json_act_parses_with_the_counts_of_its_file() -> None:
    paths = sorted(JSON_DIR.glob("*.json.gz"))
    assert len(paths) == 49
    for path in paths:
        raw = json.loads(gzip.decompress(path.read_bytes()))
        assert detect_format(path) is SourceFormat.EU_JSON
        act = parse_act(path)
        kinds = Counter(p.kind for p in act.provisions)
        assert kinds[ProvisionKind.ARTICLE] == len(raw["articles"]), path.name
        recitals = {r["recital_number"] for r in raw.get("recitals") or []}
        assert kinds[ProvisionKind.RECITAL] == len(recitals), path.name


def test_the_official_journal_wins_over_the_json_for_the_same_act() -> None:
    paths = shipped_acts()
    assert Path(JSON_DIR / "gdpr.json.gz") in paths
    ours = [
        p for p in paths if p.name in {"gdpr.json.gz", "dora.json.gz"} or "32016R0679" in p.name
    ]
    kept = prefer_official_journal([parse_act(p) for p in ours])
    assert {a.instrument.id: a.source_format for a in kept} == {
        "EU:REG_2016_679": SourceFormat.EURLEX_XHTML,
        "EU:REG_2022_2554": SourceFormat.EU_JSON,
    }
