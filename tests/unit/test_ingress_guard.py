import pytest

from errors import PiiInGraphWrite, SchemaViolation
from graph.ingress_guard import IngressGuard
from graph.models import EdgeWrite, NodeWrite
from graph.schema import load_schema
from tests.support.fakes import EmailOnlyScanner

pytestmark = pytest.mark.unit


@pytest.fixture
def guard():
    return IngressGuard(load_schema(), EmailOnlyScanner())


def node(**overrides):
    data = {"id": "IE:REGIME:VAT", "label": "Regime", "properties": {"name": "VAT"}}
    data.update(overrides)
    return NodeWrite(**data)


def test_a_valid_node_passes_and_ints_widen_to_float(guard):
    [checked] = guard.check_nodes(
        [NodeWrite(id="IE:RATE:X", label="Rate", properties={"value": 23})]
    )
    assert checked.properties == {"value": 23.0}
    assert isinstance(checked.properties["value"], float)


@pytest.mark.parametrize(
    ("write", "reason"),
    [
        (node(label="Person"), "unknown label"),
        (node(label="Regime) DETACH DELETE (n"), "unknown label"),
        (node(properties={"tenant_id": "acme"}), "not allowed"),
        (node(properties={"name`}) DETACH DELETE n //": "x"}), "not allowed"),
        (node(properties={"name": 42}), "expected a string"),
        (node(properties={"verified": "yes"}), "expected a boolean"),
        (node(properties={"source_urls": "https://x"}), "expected a list"),
        (node(properties={"name": "x" * 5000}), "too long"),
        (node(properties={"name": "bad\x00byte"}), "control characters"),
        (node(id="IE:X' }) MATCH (n) DETACH DELETE n //"), "id must be"),
        (node(id=""), "id must be"),
        (NodeWrite(id="IE:T:X", label="Timeline", properties={"duration_value": 1.5}), "integer"),
    ],
)
def test_schema_violations_are_rejected_and_recorded(guard, write, reason):
    with pytest.raises(SchemaViolation, match=reason):
        guard.check_nodes([write])
    assert guard.rejections.entries[-1].code == "graph_schema_violation"


def test_pii_is_rejected_and_recorded_without_the_value(guard):
    write = node(properties={"description": "Ask mary.murphy@example.ie about it"})
    with pytest.raises(PiiInGraphWrite) as caught:
        guard.check_nodes([write])
    rejection = guard.rejections.entries[-1]
    assert rejection.entity_types == ("EMAIL_ADDRESS",)
    assert rejection.property == "description"
    assert "mary.murphy" not in str(caught.value) and "mary.murphy" not in repr(rejection)


def test_pii_in_a_list_item_or_an_id_is_rejected(guard):
    with pytest.raises(PiiInGraphWrite):
        guard.check_nodes([node(properties={"source_urls": ["https://x.ie", "a@b.ie"]})])
    with pytest.raises(PiiInGraphWrite):
        guard.check_nodes([node(id="LABEL:a@b.ie")])
    assert "a@b.ie" not in repr(guard.rejections.entries[-1])


def test_edges_are_checked_against_the_allowed_endpoints(guard):
    ok = EdgeWrite(
        type="IN_JURISDICTION",
        source_id="IE:REGIME:VAT",
        source_label="Regime",
        target_id="IE",
        target_label="Jurisdiction",
        properties={"weight": 1},
    )
    assert guard.check_edges([ok])[0].properties == {"weight": 1.0}
    with pytest.raises(SchemaViolation, match="not allowed from"):
        guard.check_edges([ok.model_copy(update={"target_label": "Rate"})])
    with pytest.raises(SchemaViolation, match="unknown relationship"):
        guard.check_edges([ok.model_copy(update={"type": "KNOWS"})])


def test_batches_are_bounded(guard):
    with pytest.raises(SchemaViolation, match="batch"):
        guard.check_nodes([node()] * 2001)
