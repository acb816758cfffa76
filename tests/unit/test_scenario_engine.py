"""The scenario engine: impossible facts refused, values read from the graph, gaps, compare."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from scenarios import Disposal, Facts, ScenarioInput, Snapshot, compare, evaluate, evaluate_snapshot
from tests.unit.test_scenario_support import SeedReader

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


def _snapshot(label: str = "now", **facts: Any) -> Snapshot:
    base: dict[str, Any] = {"tax_year": 2025, "jurisdiction": "IE", "age": 35}
    return Snapshot(label=label, as_at=date(2025, 6, 1), facts=Facts(**{**base, **facts}))


@pytest.mark.parametrize(
    ("facts", "message"),
    [
        ({"paye_income": "-1"}, "greater than or equal to 0"),
        ({"jurisdiction": "FR"}, "'IE', 'UK' or 'NI'"),
        ({"spouse_paye_income": "100"}, "spouse"),
        (
            {"disposals": [{"asset": "shares", "acquired_on": "2025-05-01",
                            "disposed_on": "2025-03-01", "cost": "1", "proceeds": "2"}]},
            "before its acquisition",
        ),
    ],
)  # fmt: skip
def test_impossible_facts_are_refused(facts: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Facts.model_validate({"tax_year": 2025, "jurisdiction": "IE", **facts})


async def test_every_amount_comes_from_the_graph_so_a_changed_node_changes_it() -> None:
    snapshot = _snapshot(paye_income="50000")
    before = await evaluate_snapshot(SeedReader(), snapshot)
    changed = SeedReader({"IE:RATE:IT_HIGHER:2025": {"value": 41}})
    after = await evaluate_snapshot(changed, snapshot)
    # €6,000 above the €44,000 band: one point more on it is €60 (8,800 + 2,400 - 4,000).
    diff = after.total("income_tax") - before.total("income_tax")  # type: ignore[operator]
    assert diff == Decimal("60.00")
    assert before.total("income_tax") == Decimal("7200.00")
    assert all(line.node_ids for line in before.lines)
    assert (before.period_from, before.period_to) == (date(2025, 1, 1), date(2025, 12, 31))
    assert all(
        date(2025, 1, 1) <= p.valid_from <= p.valid_to <= date(2025, 12, 31)
        for p in before.parameters
    )


async def test_a_missing_parameter_is_a_gap_not_a_guess() -> None:
    reader = SeedReader({"IE:THRESHOLD:USC_BAND_2_CEILING:2025": None})
    result = await evaluate_snapshot(reader, _snapshot(paye_income="50000"))
    assert result.total("usc") is None
    assert not [line for line in result.lines if line.tax == "usc"]
    (gap,) = [g for g in result.gaps if g.tax == "usc"]
    assert gap.missing == "IE:THRESHOLD:USC_BAND_2_CEILING:2025"
    assert result.total("income_tax") == Decimal("7200.00")  # the other taxes still computed


async def test_a_node_not_in_force_for_the_year_is_a_gap() -> None:
    reader = SeedReader({"IE:RATE:IT_STANDARD:2025": {"valid_from": "2025-03-01"}})
    result = await evaluate_snapshot(reader, _snapshot(paye_income="30000"))
    assert result.total("income_tax") is None
    assert any("not the whole of the 2025 tax year" in g.reason for g in result.gaps)


async def test_prsi_periods_that_do_not_tile_the_year_are_a_gap() -> None:
    reader = SeedReader({"IE:RATE:PRSI_A_EMPLOYEE:2025:P2": {"valid_from": "2025-11-01"}})
    result = await evaluate_snapshot(reader, _snapshot(paye_income="30000"))
    assert result.total("prsi") is None
    assert any(g.tax == "prsi" and "expected 2025-10-01" in g.reason for g in result.gaps)


async def test_low_pay_prsi_exempt_and_tapered_credit() -> None:
    exempt = await evaluate_snapshot(SeedReader(), _snapshot(paye_income="18000"))
    assert exempt.total("prsi") == Decimal("0.00")  # €346.15 a week, within €352
    # €390 a week (€20,280): €12 less (390 - 352.01) / 6 = €6.33, €5.67 a week (welfare.ie's table).
    tapered = await evaluate_snapshot(SeedReader(), _snapshot(paye_income="20280"))
    credit = next(ln for ln in tapered.lines if ln.key == "class_a_credit")
    assert credit.amount == Decimal("-294.84")
    assert "IE:THRESHOLD:PRSI_CREDIT_CEILING_WEEKLY:2025" in credit.node_ids


async def test_joint_assessment_widens_the_band_by_the_lower_income_up_to_its_maximum() -> None:
    result = await evaluate_snapshot(
        SeedReader(),
        _snapshot(status="married", assessment="joint", spouse_age=35,
                  paye_income="70000", spouse_paye_income="20000"),
    )  # fmt: skip
    standard = next(ln for ln in result.lines if ln.key == "standard_rate")
    assert standard.base == Decimal("73000")  # €53,000 + €20,000
    assert "IE:THRESHOLD:SRB_MARRIED_INCREASE_MAX:2025" in standard.node_ids
    # 73,000 x 20% + 17,000 x 40% - 4,000 - 2,000 - 2,000
    assert result.total("income_tax", "couple") == Decimal("13400.00")


async def test_unknown_years_and_scottish_rates_are_gaps() -> None:
    old = await evaluate_snapshot(SeedReader(), _snapshot(tax_year=2019, paye_income="1"))
    assert old.totals == [] and old.gaps
    scot = _snapshot(jurisdiction="UK", scottish_taxpayer=True, paye_income="40000")
    result = await evaluate_snapshot(SeedReader(), scot)
    assert result.total("income_tax") is None
    assert any(g.missing == "scottish_taxpayer" for g in result.gaps)
    assert result.total("ni") == Decimal("2194.40")  # (40,000 - 12,570) x 8%


async def test_uk_tax_year_runs_from_6_april_and_the_allowance_tapers() -> None:
    # £110,000: the allowance loses £5,000 (half of the £10,000 over £100,000): £7,570 left.
    result = await evaluate_snapshot(
        SeedReader(), _snapshot(jurisdiction="NI", tax_year=2025, paye_income="110000")
    )
    allowance = next(ln for ln in result.lines if ln.key == "personal_allowance")
    assert allowance.base == Decimal("7570")
    assert "UK:RATE:PA_TAPER:2025" in allowance.node_ids
    assert (result.period_from, result.period_to) == (date(2025, 4, 6), date(2026, 4, 5))
    # 37,700 x 20% + (102,430 - 37,700) x 40% = 7,540 + 25,892
    assert result.total("income_tax") == Decimal("33432.00")
    # (50,270 - 12,570) x 8% + (110,000 - 50,270) x 2% = 3,016 + 1,194.60
    assert result.total("ni") == Decimal("4210.60")


async def test_compare_gives_each_line_and_total_difference_with_its_nodes() -> None:
    reader = SeedReader()
    low = ScenarioInput(label="50k", snapshots=[_snapshot(paye_income="50000")])
    high = ScenarioInput(label="60k", snapshots=[_snapshot(paye_income="60000")])
    result = compare(["50k", "60k"], [await evaluate(reader, low), await evaluate(reader, high)])
    (snap,) = result.snapshots
    totals = {(d.tax, d.person): d for d in snap.totals}
    assert totals[("income_tax", "you")].amounts == [Decimal("7200.00"), Decimal("11200.00")]
    assert totals[("income_tax", "you")].difference == Decimal("4000.00")
    assert totals[("usc", "you")].difference == Decimal("300.00")  # €10,000 at 3%
    higher = next(d for d in snap.lines if d.key == "higher_rate")
    assert higher.difference == Decimal("4000.00")
    assert "IE:RATE:IT_HIGHER:2025" in higher.node_ids
    # each column's own base: the label is not the first scenario's alone
    assert higher.description.startswith("€6,000.00 at the higher rate")
    assert " → €16,000.00 at the higher rate" in higher.description
    standard = next(d for d in snap.lines if d.key == "standard_rate")
    assert "→" not in standard.description  # the same in both: said once


async def test_irish_cgt_nets_the_years_gains_takes_the_exemption_and_says_what_it_leaves_out():
    disposals = [
        {"asset": "shares A", "acquired_on": "2020-01-01", "disposed_on": "2025-03-01",
         "cost": "5000", "proceeds": "12000"},
        {"asset": "shares B", "acquired_on": "2021-01-01", "disposed_on": "2025-05-01",
         "cost": "4000", "proceeds": "3000"},
        {"asset": "land", "acquired_on": "2010-01-01", "disposed_on": "2024-05-01",
         "cost": "1", "proceeds": "2"},
    ]  # fmt: skip
    result = await evaluate_snapshot(SeedReader(), _snapshot(disposals=disposals))
    # 7,000 - 1,000 = 6,000 net; less 1,270 = 4,730 at 33% = 1,560.90
    assert result.total("cgt") == Decimal("1560.90")
    charge = next(ln for ln in result.lines if ln.key == "charge")
    assert charge.node_ids == [
        "IE:RATE:CGT_STANDARD:2025",
        "IE:THRESHOLD:CGT_ANNUAL_EXEMPTION:2025",
    ]
    (total,) = [t for t in result.totals if t.tax == "cgt"]
    assert not total.complete  # reliefs and costs are not built: said, not hidden
    assert any("'land'" in g.reason and "not counted" in g.reason for g in result.gaps)


def _uk_sale(disposed_on: str, **extra: Any) -> Snapshot:
    sale = {"asset": "shares", "acquired_on": "2019-05-01", "disposed_on": disposed_on,
            "cost": "10000", "proceeds": "22600", **extra}  # fmt: skip
    return Snapshot(
        label="sale",
        as_at=date(2025, 4, 5),
        facts=Facts(
            tax_year=2024, jurisdiction="UK", age=40, paye_income="32570", disposals=[sale]
        ),
    )


async def test_uk_cgt_takes_the_rate_in_force_on_the_disposals_day() -> None:
    before = await evaluate_snapshot(
        SeedReader(), _uk_sale("2024-10-29", residential_property=False)
    )
    after = await evaluate_snapshot(SeedReader(), _uk_sale("2024-10-30"))
    assert before.total("cgt") == Decimal("960.00")  # £9,600 at 10%
    assert after.total("cgt") == Decimal("1728.00")  # at 18%
    cited = {n for line in after.lines if line.tax == "cgt" for n in line.node_ids}
    assert "UK:RATE:CGT_LOWER:2024:P2" in cited and "UK:THRESHOLD:CGT_ANNUAL_EXEMPT:2024" in cited
    # the rate is the graph's: change the node and the tax follows
    changed = SeedReader({"UK:RATE:CGT_LOWER:2024:P2": {"value": 20}})
    other = _uk_sale("2024-10-30", residential_property=False)
    assert (await evaluate_snapshot(changed, other)).total("cgt") == Decimal("1920.00")


async def test_uk_cgt_asks_whether_residential_where_it_decides_the_rate() -> None:
    result = await evaluate_snapshot(SeedReader(), _uk_sale("2024-08-15"))
    assert result.total("cgt") is None
    assert any(g.missing == "residential_property" for g in result.gaps)
    two = _uk_sale("2024-08-15", residential_property=False)
    later = {"asset": "fund", "acquired_on": "2020-01-01", "disposed_on": "2024-12-01",
             "cost": "1", "proceeds": "2"}  # fmt: skip
    disposals = [*two.facts.disposals, Disposal(**later)]
    mixed = Snapshot(label="x", as_at=two.as_at,
                     facts=two.facts.model_copy(update={"disposals": disposals}))  # fmt: skip
    assert (await evaluate_snapshot(SeedReader(), mixed)).total("cgt") is None
