"""The price table and the quota's reset of ``api.usage`` (ADR 0050)."""

from datetime import date

import pytest

from api.usage import PriceTable, _next_month

pytestmark = pytest.mark.unit


def test_a_turn_costs_its_tokens_at_the_most_specific_price() -> None:
    table = PriceTable({"openai/gpt-4o-mini": (0.15, 0.6), "gpt-4o-mini": (1.0, 1.0)})
    # per million tokens, so tokens x price is millionths: 1,000 x 0.15 + 500 x 0.6 = 450
    assert table.cost_micros("openai", "gpt-4o-mini", 1000, 500) == 450
    assert table.cost_micros("azure", "gpt-4o-mini", 1000, 500) == 1500  # by model alone
    assert table.cost_micros("extractive", "extractive-v1", 1000, 500) == 0  # not named: free


def test_a_quota_resets_on_the_first_of_the_next_month() -> None:
    assert _next_month(date(2026, 11, 1)) == date(2026, 12, 1)
    assert _next_month(date(2026, 12, 1)) == date(2027, 1, 1)
