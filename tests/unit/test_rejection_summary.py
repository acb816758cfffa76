"""The guard's rejection log as operators see it: counted by code beyond the bounded log, the
latest first, redacted to code, property, entity types and time (never target or reason)."""

import dataclasses

import pytest

from errors import PiiInGraphWrite, SchemaViolation
from graph.ingress_guard import GuardRejection, IngressGuard, RedactedRejection, RejectionLog
from graph.models import NodeWrite
from graph.schema import load_schema
from tests.support.fakes import EmailOnlyScanner

pytestmark = pytest.mark.unit


def test_counts_outlive_the_bounded_log_and_the_latest_come_first():
    log = RejectionLog(limit=2)
    for i, code in enumerate(["graph_pii_rejected", "graph_schema_violation"] * 3):
        log.record(GuardRejection(code, f"Rate:IE:R{i}", "name", f"reason {i}", at=f"t{i}"))
    summary = log.summary(recent=10)
    assert summary.counts == {"graph_pii_rejected": 3, "graph_schema_violation": 3}
    assert summary.total == 6 and len(log.entries) == 2
    assert [r.at for r in summary.recent] == ["t5", "t4"]
    assert log.summary(recent=1).recent == (
        RedactedRejection("graph_schema_violation", "name", (), "t5"),
    )
    assert log.summary(recent=0).recent == ()


def test_a_real_rejection_is_timestamped_and_its_summary_holds_no_value():
    guard = IngressGuard(load_schema(), EmailOnlyScanner())
    leaked = "mary.murphy@example.ie"
    with pytest.raises(PiiInGraphWrite):
        guard.check_nodes(
            [NodeWrite(id="IE:REGIME:X", label="Regime", properties={"description": leaked})]
        )
    with pytest.raises(SchemaViolation):
        guard.check_nodes([NodeWrite(id="IE:REGIME:Y", label="Person", properties={})])
    summary = guard.rejections.summary()
    assert summary.counts == {"graph_pii_rejected": 1, "graph_schema_violation": 1}
    pii = summary.recent[1]
    assert (pii.code, pii.property, pii.entity_types) == (
        "graph_pii_rejected",
        "description",
        ("EMAIL_ADDRESS",),
    )
    assert pii.at >= summary.since and pii.at.endswith("Z")
    assert {f.name for f in dataclasses.fields(RedactedRejection)} == {
        "code",
        "property",
        "entity_types",
        "at",
    }
    shown = repr(summary)
    for hidden in (leaked, "example.ie", "IE:REGIME", "Person"):
        assert hidden not in shown
