"""A rule's value in its searchable text reads as people write it (issue 23): ``:g`` had
written a million as ``1e+06``, which no question ever says."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.retrieval.amounts import amount
from engine.retrieval.documents import document_of
from engine.retrieval.tokenise import tokenise
from graph.models import GraphNode

pytestmark = pytest.mark.unit


def _rule(value: float | int, unit: str = "EUR") -> GraphNode:
    return GraphNode(
        id="IE:RULE:TEST_THRESHOLD",
        label="Threshold",
        properties={"name": "Test threshold", "value": value, "unit": unit},
    )


@pytest.mark.parametrize(
    ("value", "written"),
    [(1e6, "1,000,000 EUR"), (1000000, "1,000,000 EUR"), (40000, "40,000 EUR"),
     (12.5, "12.5 EUR"), (2.5e7, "25,000,000 EUR"), (1234.5, "1,234.5 EUR")],
)  # fmt: skip
def test_a_rules_value_is_written_with_thousands_separators(value: float, written: str) -> None:
    doc = document_of(_rule(value))
    assert doc is not None
    assert written in doc.body
    assert "e+" not in doc.body


def test_the_question_finds_the_value_however_it_writes_it() -> None:
    doc = document_of(_rule(1e6))
    assert doc is not None
    for asked in ("€1,000,000", "1000000", "1 000 000"):
        assert set(tokenise(asked)) <= set(tokenise(doc.text))


def test_amount_reads_as_written_and_leaves_non_numbers_alone() -> None:
    assert amount(1e6) == "1000000" and amount(1e6, grouped=True) == "1,000,000"
    assert amount(0.1 + 0.2) == "0.3" and amount(1e-7) == "0.0000001"
    assert amount(12345678901234567) == "12345678901234567"  # an int is exact however long
    assert amount("n/a") == "n/a" and amount(True) == "True"


@given(st.floats(min_value=-1e15, max_value=1e15, allow_nan=False) | st.integers())
def test_amount_never_writes_an_exponent(value: float) -> None:
    for grouped in (False, True):
        written = amount(value, grouped=grouped)
        assert "e" not in written.lower()
        assert float(written.replace(",", "")) == pytest.approx(value, rel=1e-11, abs=1e-12)
