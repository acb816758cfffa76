"""``REGINTEL_OTLP_ENDPOINT`` takes a base URL or the full traces URL (the OTLP convention)."""

from __future__ import annotations

import pytest

from infra.tracing import traces_url

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("http://collector:4318", "http://collector:4318/v1/traces"),
        ("http://collector:4318/", "http://collector:4318/v1/traces"),
        ("http://collector:4318/v1/traces", "http://collector:4318/v1/traces"),
        ("https://otel.example.com/prefix", "https://otel.example.com/prefix/v1/traces"),
        ("https://otel.example.com/prefix/", "https://otel.example.com/prefix/v1/traces"),
        ("https://otel.example.com/prefix/v1/traces", "https://otel.example.com/prefix/v1/traces"),
    ],
)
def test_base_url_gets_the_signal_path(given: str, expected: str) -> None:
    assert traces_url(given) == expected
