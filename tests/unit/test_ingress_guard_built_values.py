"""Issue 9: the guard scans what it builds (ids part by part, snake case, URLs decoded), with
the real ingress detector, and never repeats a value it rejected (ADR 0016)."""

from __future__ import annotations

import logging

import pytest

from egress.pii import build_ingress_detector
from errors import PiiInGraphWrite, SchemaViolation
from graph.ingress_guard import IngressGuard, id_digest
from graph.models import NodeWrite
from graph.schema import load_schema

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def guard() -> IngressGuard:
    return IngressGuard(load_schema(), build_ingress_detector())


def concept(node_id: str = "TAX:IE:VAT", **props: object) -> NodeWrite:
    base: dict[str, object] = {"domain": "TAX", "kind": "VAT", "jurisdiction": "IE"}
    base.update(props)
    return NodeWrite(id=node_id, label="Concept", properties=base)


@pytest.mark.parametrize(
    "write",
    [
        concept("TAX:IE:PPSN_5260181E"),
        concept(kind="PPSN_5260181E"),
        NodeWrite(id="LABEL:siobhan_murphy", label="Label", properties={"text": "vat"}),
        NodeWrite(id="LABEL:vat", label="Label", properties={"text": "SIOBHAN MURPHY VAT"}),
        NodeWrite(id="LABEL:vat", label="Label", properties={"text": "PPSN 5260\u200b181E"}),
        concept(source_urls=["https://x.ie/u/mary%40example.ie"]),
        concept(source_urls=["https://x.ie/u/mary%2540example.ie"]),
        concept(source_urls=["https://x.ie/pay/IE29AIBK93115212345678"]),
        concept(source_urls=["https://x.ie/q?pps=5260181E"]),
    ],
)
def test_pii_in_built_values_is_rejected(guard: IngressGuard, write: NodeWrite) -> None:
    with pytest.raises(PiiInGraphWrite):
        guard.check_nodes([write])


def test_legal_ids_and_plain_urls_pass(guard: IngressGuard) -> None:
    writes = [
        NodeWrite(id="EU:REG_2024_1689:ART_5_1", label="Paragraph", properties={}),
        NodeWrite(id="EU:REG_2016_679:ART_4", label="Article", properties={}),
        concept(source_urls=["https://www.revenue.ie/en/vat/vat-rates/index.aspx"]),
    ]
    assert len(guard.check_nodes(writes)) == 3


def test_a_pii_rejection_names_neither_the_value_nor_the_id_built_from_it(
    guard: IngressGuard, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    write = concept("TAX:IE:SIOBHAN_MURPHY_VAT", pref_label="Siobhan Murphy VAT")
    with pytest.raises(PiiInGraphWrite) as caught:
        guard.check_nodes([write])
    said = [str(caught.value), repr(caught.value.details), repr(guard.rejections.entries[-1])]
    said += [r.getMessage() for r in caplog.records]
    assert not [s for s in said if "siobhan" in s.lower() or "SIOBHAN" in s]
    assert id_digest(write.id) in str(caught.value)


def test_a_schema_rejection_does_not_echo_what_it_refused(guard: IngressGuard) -> None:
    bad = NodeWrite(id="TAX:IE:VAT", label="Concept", properties={"mary@x.ie": "v"})
    with pytest.raises(SchemaViolation) as caught:
        guard.check_nodes([bad])
    assert "mary" not in str(caught.value) and "mary" not in repr(caught.value.details)
