"""VAT rate history from both public tables: each source's claim kept, the disagreement recorded."""

import pytest

from egress.pii import build_ingress_detector
from engine.rate_history import (
    IBERICODE,
    KDELDYCKE,
    find_conflicts,
    history_writes,
    load_history,
    parse_ibericode,
    parse_kdeldycke,
)
from graph.ingress_guard import IngressGuard
from graph.schema import load_schema

pytestmark = pytest.mark.unit


def test_both_tables_keep_their_own_claims_for_ireland():
    claims = load_history()
    standard = {(c.source.key, c.valid_from): c for c in claims
                if c.jurisdiction == "IE" and c.kind == "standard"}  # fmt: skip
    temporary = standard[(IBERICODE.key, "2020-09-01")]
    assert (temporary.value, temporary.valid_to) == (21.0, "2021-02-28")
    kdeldycke = standard[(KDELDYCKE.key, "2012-01-01")]
    assert (kdeldycke.value, kdeldycke.valid_to) == (23.0, None)  # runs straight across it
    # ibericode's "0000-01-01" says the value predates the table: its start is not stated.
    assert standard[(IBERICODE.key, None)].valid_to == "2020-08-31"


def test_ireland_2020_21_is_the_one_conflict_and_kdeldycke_omits_the_change():
    conflicts = find_conflicts(load_history())
    assert [(c.id, c.valid_from, c.valid_to) for c in conflicts] == [
        ("IE:CONFLICT:VAT_STANDARD:2020_09_01", "2020-09-01", "2021-02-28")
    ]
    (conflict,) = conflicts
    assert conflict.category == "omitted_change"
    assert [s.key for s in conflict.omitting] == [KDELDYCKE.key]
    assert sorted(c.value for c in conflict.claims) == [21.0, 23.0]


def test_sources_that_agree_or_date_nothing_make_no_conflict():
    ibericode = parse_ibericode(
        {"items": {"IE": [{"effective_from": "0000-01-01", "rates": {"standard": 20}},
                          {"effective_from": "2010-01-01", "rates": {"standard": 21}}]}}
    )  # fmt: skip
    row = {"territory_codes": "IE", "rate_type": "standard", "stop_date": ""}
    kdeldycke = parse_kdeldycke([{**row, "start_date": "2010-01-01", "rate": "0.21"}])
    assert find_conflicts(ibericode + kdeldycke) == []
    # A different value for a period both date is a conflict of another kind.
    other = parse_kdeldycke([{**row, "start_date": "2010-01-01", "rate": "0.22"}])
    (conflict,) = find_conflicts(ibericode + other)
    assert (conflict.category, conflict.valid_from, conflict.valid_to) == (
        "different_value", "2010-01-01", None,
    )  # fmt: skip


def test_the_history_passes_the_ingress_guard():
    claims = load_history()
    nodes, edges = history_writes(claims, find_conflicts(claims))
    guard = IngressGuard(load_schema(), build_ingress_detector())
    assert len(guard.check_nodes(nodes)) == len(nodes) == len({n.id for n in nodes})
    assert len(guard.check_edges(edges)) == len(edges)
    conflict = next(n for n in nodes if n.label == "SourceConflict")
    assert "omits" in str(conflict.properties["description"])
    assert {e.target_id for e in edges if e.type == "DISPUTES"} == {
        "IE:RATE:VAT_STANDARD:IBERICODE:2020_09_01",
        "IE:RATE:VAT_STANDARD:KDELDYCKE:2012_01_01",
    }
