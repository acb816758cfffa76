import pytest
import yaml

from errors import PiiInGraphWrite, SchemaViolation
from graph.ingress_guard import IngressGuard
from graph.models import EdgeWrite, NodeWrite
from graph.schema import DEFAULT_SCHEMA_PATH, Limits, SchemaFileError, load_schema
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


def _paragraph(**properties):
    return NodeWrite(id="EU:REG_2024_1689:ART_3_1", label="Paragraph", properties=properties)


def test_text_has_its_own_larger_limit(guard):
    # A provision's wording (AI Act Article 3: 17,079 characters) is over the 4,000 of other
    # strings but within `max_text_chars`.
    limits = load_schema().limits
    assert limits.max_text_chars > limits.max_string_chars
    wording = "(1) ‘AI system’ means a machine-based system. " * 400
    assert limits.max_string_chars < len(wording) <= limits.max_text_chars
    [checked] = guard.check_nodes([_paragraph(text=wording)])
    assert checked.properties["text"] == wording


def test_every_other_string_keeps_the_smaller_limit(guard):
    long = "x" * (load_schema().limits.max_string_chars + 1)
    with pytest.raises(SchemaViolation, match="too long") as caught:
        guard.check_nodes([_paragraph(text="short", citation=long)])
    assert caught.value.details == {"property": "citation"}
    with pytest.raises(SchemaViolation, match="too long"):
        guard.check_nodes([_paragraph(source_urls=[long])])


def test_text_over_its_limit_is_rejected(guard):
    too_long = "x" * (load_schema().limits.max_text_chars + 1)
    with pytest.raises(SchemaViolation, match="too long"):
        guard.check_nodes([_paragraph(text=too_long)])
    assert guard.rejections.entries[-1].property == "text"


def test_a_long_text_is_still_scanned_to_its_end(guard):
    wording = "The provider shall keep the logs. " * 3000 + "Write to a@b.ie."
    with pytest.raises(PiiInGraphWrite):
        guard.check_nodes([_paragraph(text=wording)])
    assert guard.rejections.entries[-1].property == "text"


def test_limits_name_the_bound_of_each_property():
    limits = Limits(max_string_chars=10, max_text_chars=100)
    assert limits.max_chars("text") == 100
    assert limits.max_chars("title") == limits.max_chars("description") == 10


def test_a_text_limit_below_the_string_limit_is_a_schema_file_error(tmp_path):
    raw = yaml.safe_load(DEFAULT_SCHEMA_PATH.read_text(encoding="utf-8"))
    raw["limits"]["max_text_chars"] = raw["limits"]["max_string_chars"] - 1
    path = tmp_path / "graph.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    with pytest.raises(SchemaFileError, match="max_text_chars"):
        load_schema(path)
