"""Rates, bands and credits read from the graph, never held here (ADR 0053).

The seeds hold one node per value and period (``IE:THRESHOLD:SRB_SINGLE:2025``, value 44000,
valid 2025-01-01..2025-12-31). This module knows only the *names* of those nodes: an annual
parameter is ``<base>:<year>``; a value that changes within the year is a series
``<base>:<year>:P1``, ``P2`` … whose periods must tile the year. A node that is missing, has no
numeric value or is not in force for the whole of its period is a :class:`Gap` — the engine
never falls back to a number of its own.

``ParameterReader`` is the narrow read port: one ``get_nodes`` call per snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from graph.models import GraphNode

__all__ = [
    "ANNUAL",
    "IRELAND",
    "SERIES",
    "UK_ANNUAL",
    "UK_SERIES",
    "UNITED_KINGDOM",
    "Catalogue",
    "Gap",
    "Param",
    "ParameterReader",
    "ParameterSet",
    "load_parameters",
]

# Annual parameters of the Irish computations, by the base of their node id.
ANNUAL: tuple[str, ...] = (
    "IE:RATE:IT_STANDARD",
    "IE:RATE:IT_HIGHER",
    "IE:THRESHOLD:SRB_SINGLE",
    "IE:THRESHOLD:SRB_ONE_PARENT",
    "IE:THRESHOLD:SRB_MARRIED_ONE_INCOME",
    "IE:THRESHOLD:SRB_MARRIED_INCREASE_MAX",
    "IE:RELIEF:PERSONAL_TAX_CREDIT_SINGLE",
    "IE:RELIEF:PERSONAL_TAX_CREDIT_MARRIED",
    "IE:RELIEF:EMPLOYEE_TAX_CREDIT",
    "IE:RELIEF:EARNED_INCOME_CREDIT",
    "IE:RELIEF:AGE_TAX_CREDIT_SINGLE",
    "IE:RELIEF:AGE_TAX_CREDIT_MARRIED",
    # credits and reliefs of some households only (seeds/rules/ie_credits.yaml)
    "IE:RELIEF:SPCCC",
    "IE:RELIEF:RENT_TAX_CREDIT_SINGLE",
    "IE:RELIEF:RENT_TAX_CREDIT_COUPLE",
    "IE:RELIEF:WIDOWED_PERSON_CREDIT",
    "IE:RELIEF:WIDOWED_PARENT_CREDIT_Y1",
    "IE:RELIEF:WIDOWED_PARENT_CREDIT_Y2",
    "IE:RELIEF:WIDOWED_PARENT_CREDIT_Y3",
    "IE:RELIEF:WIDOWED_PARENT_CREDIT_Y4",
    "IE:RELIEF:WIDOWED_PARENT_CREDIT_Y5",
    "IE:THRESHOLD:PENSION_EARNINGS_LIMIT",
    "IE:RATE:PENSION_RELIEF_UNDER_30",
    "IE:RATE:PENSION_RELIEF_30_39",
    "IE:RATE:PENSION_RELIEF_40_49",
    "IE:RATE:PENSION_RELIEF_50_54",
    "IE:RATE:PENSION_RELIEF_55_59",
    "IE:RATE:PENSION_RELIEF_60_PLUS",
    "IE:THRESHOLD:USC_EXEMPTION",
    "IE:RATE:USC_BAND_1",
    "IE:THRESHOLD:USC_BAND_1_CEILING",
    "IE:RATE:USC_BAND_2",
    "IE:THRESHOLD:USC_BAND_2_CEILING",
    "IE:RATE:USC_BAND_3",
    "IE:THRESHOLD:USC_BAND_3_CEILING",
    "IE:RATE:USC_BAND_4",
    "IE:RATE:USC_SURCHARGE",
    "IE:THRESHOLD:USC_SURCHARGE",
    "IE:THRESHOLD:PRSI_A_WEEKLY_EXEMPT",
    "IE:THRESHOLD:PRSI_CREDIT_MAX_WEEKLY",
    "IE:THRESHOLD:PRSI_CREDIT_CEILING_WEEKLY",
    "IE:THRESHOLD:PRSI_CLASS_S_INCOME",
    "IE:RATE:CGT_STANDARD",
    "IE:THRESHOLD:CGT_ANNUAL_EXEMPTION",
    # read where a relief node names them (cgt_rate, cgt_lifetime_limit; ADR 0086)
    "IE:RATE:CGT_ENTREPRENEUR",
    "IE:THRESHOLD:ER_LIFETIME_LIMIT",
    "IE:THRESHOLD:RR_LIMIT",
    "IE:THRESHOLD:RR_LIMIT_OLDER",
    "IE:THRESHOLD:RR_OLDER_AGE",
    "IE:RATE:RR_MARGINAL",
)
# Values that change within a year: a series of periods.
SERIES: tuple[str, ...] = (
    "IE:RATE:PRSI_A_EMPLOYEE",
    "IE:RATE:PRSI_CLASS_S",
    "IE:THRESHOLD:PRSI_CLASS_S_MINIMUM",
)
# The UK's (England, Wales and Northern Ireland) annual parameters; its tax year starts 6 April.
UK_ANNUAL: tuple[str, ...] = (
    "UK:THRESHOLD:PERSONAL_ALLOWANCE",
    "UK:THRESHOLD:PA_TAPER_INCOME",
    "UK:RATE:PA_TAPER",
    "UK:THRESHOLD:BASIC_RATE_BAND",
    "UK:THRESHOLD:ADDITIONAL_RATE_THRESHOLD",
    "UK:RATE:IT_BASIC",
    "UK:RATE:IT_HIGHER",
    "UK:RATE:IT_ADDITIONAL",
    "UK:THRESHOLD:NI_PRIMARY_THRESHOLD",
    "UK:THRESHOLD:NI_UPPER_EARNINGS_LIMIT",
    "UK:RATE:NI_CLASS_1_MAIN",
    "UK:RATE:NI_CLASS_1_ADDITIONAL",
    "UK:THRESHOLD:NI_LOWER_PROFITS_LIMIT",
    "UK:THRESHOLD:NI_UPPER_PROFITS_LIMIT",
    "UK:RATE:NI_CLASS_4_MAIN",
    "UK:RATE:NI_CLASS_4_ADDITIONAL",
    "UK:THRESHOLD:CGT_ANNUAL_EXEMPT",
    "UK:RATE:BADR",
    "UK:THRESHOLD:BADR_LIFETIME",
    "UK:THRESHOLD:MARRIAGE_ALLOWANCE",
)
# The UK's CGT rates: a disposal pays the rate in force on its day (2024-25's changed on
# 30 October 2024), so their periods may start on any day.
UK_SERIES: tuple[str, ...] = (
    "UK:RATE:CGT_LOWER",
    "UK:RATE:CGT_HIGHER",
    "UK:RATE:CGT_RESIDENTIAL_LOWER",
    "UK:RATE:CGT_RESIDENTIAL_HIGHER",
)
# Sections of law whose rule (not a value) a computation follows, cited on its lines: the
# order in which capital losses and the annual exemption are set against gains.
RULES: tuple[str, ...] = ("IE:TCA_1997:S_31",)
UK_RULES: tuple[str, ...] = ("UK:TCGA_1992:S_3",)
MAX_PERIODS = 4


@dataclass(frozen=True)
class Catalogue:
    """The parameter names of one tax system and the day its tax year starts."""

    annual: tuple[str, ...]
    series: tuple[str, ...]
    starts: tuple[int, int]  # (month, day): Ireland 1 January, the UK 6 April
    # series applied by a transaction's day, never apportioned by month: any start day
    by_day: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()  # node ids read as they are (no year), cited when present

    def window(self, tax_year: int) -> tuple[date, date]:
        """The first and last day of ``tax_year`` (the UK's 2025: 6 April 2025 to 5 April 2026)."""
        first = date(tax_year, *self.starts)
        following = date(tax_year + 1, *self.starts)
        return first, date.fromordinal(following.toordinal() - 1)


IRELAND = Catalogue(ANNUAL, SERIES, (1, 1), rules=RULES)
UNITED_KINGDOM = Catalogue(UK_ANNUAL, UK_SERIES, (4, 6), by_day=UK_SERIES, rules=UK_RULES)


class Gap(BaseModel):
    """Something the engine could not compute, and why: never a guess in its place."""

    model_config = ConfigDict(frozen=True)

    tax: str
    reason: str
    missing: str | None = None  # the parameter (node id) or fact that is missing
    person: str | None = None


class Param(BaseModel):
    """One value read from a graph node, with the period it is in force and its source."""

    model_config = ConfigDict(frozen=True)

    node_id: str
    value: Decimal
    unit: str
    valid_from: date
    valid_to: date
    verified: bool
    source: str | None = None

    @property
    def fraction(self) -> Decimal:
        """A percent as a fraction (20 → 0.20)."""
        return self.value / Decimal(100)


class ParameterReader(Protocol):
    """The one read the scenario engine makes: nodes by id."""

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]: ...


@dataclass
class ParameterSet:
    """The parameters of one tax year, and the ones that could not be read."""

    tax_year: int
    first: date
    last: date
    annual: dict[str, Param] = field(default_factory=dict)
    series: dict[str, list[Param]] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)  # base → why it is unusable
    rules: frozenset[str] = frozenset()  # the catalogue's rule nodes the graph holds

    def get(self, base: str) -> Param | None:
        return self.annual.get(base)

    def periods(self, base: str) -> list[Param] | None:
        return self.series.get(base)

    def gap(self, tax: str, base: str, person: str | None = None) -> Gap:
        reason = self.problems.get(base, f"no parameter {base} for {self.tax_year} in the graph")
        return Gap(tax=tax, reason=reason, missing=f"{base}:{self.tax_year}", person=person)


def _ids(year: int, catalogue: Catalogue) -> list[str]:
    ids = [f"{base}:{year}" for base in catalogue.annual]
    ids += [f"{base}:{year}:P{n}" for base in catalogue.series for n in range(1, MAX_PERIODS + 1)]
    return ids + list(catalogue.rules)


def _param(node: GraphNode) -> Param | str:
    """The node as a parameter, or why it cannot be one."""
    props = node.properties
    value = props.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{node.id} has no numeric value"
    try:
        valid_from = date.fromisoformat(str(props.get("valid_from") or ""))
        valid_to = date.fromisoformat(str(props.get("valid_to") or ""))
    except ValueError:
        return f"{node.id} does not state the period it is in force"
    source = props.get("source")
    return Param(
        node_id=node.id,
        value=Decimal(str(value)),  # 4.1 stays 4.1, not its binary neighbour
        unit=str(props.get("unit") or ""),
        valid_from=valid_from,
        valid_to=valid_to,
        verified=props.get("verified") is True,
        source=str(source) if source else None,
    )


async def load_parameters(
    reader: ParameterReader, tax_year: int, catalogue: Catalogue = IRELAND
) -> ParameterSet:
    """Read every parameter of ``tax_year`` in one call; unusable ones land in ``problems``."""
    nodes = {node.id: node for node in await reader.get_nodes(_ids(tax_year, catalogue))}
    first, last = catalogue.window(tax_year)
    params = ParameterSet(tax_year=tax_year, first=first, last=last)
    params.rules = frozenset(rule for rule in catalogue.rules if rule in nodes)
    for base in catalogue.annual:
        node = nodes.get(f"{base}:{tax_year}")
        if node is None:
            continue
        parsed = _param(node)
        if isinstance(parsed, str):
            params.problems[base] = parsed
        elif parsed.valid_from > first or parsed.valid_to < last:
            params.problems[base] = (
                f"{parsed.node_id} is in force {parsed.valid_from}..{parsed.valid_to}, "
                f"not the whole of the {tax_year} tax year ({first}..{last})"
            )
        else:
            params.annual[base] = parsed
    for base in catalogue.series:
        found: list[Param] = []
        for n in range(1, MAX_PERIODS + 1):
            node = nodes.get(f"{base}:{tax_year}:P{n}")
            if node is None:
                break
            parsed = _param(node)
            if isinstance(parsed, str):
                params.problems[base] = parsed
                break
            found.append(parsed)
        if base in params.problems or not found:
            continue
        if problem := _tiling_problem(found, first, last, base not in catalogue.by_day):
            params.problems[base] = problem
        else:
            params.series[base] = found
    return params


def _tiling_problem(
    periods: list[Param], first: date, last: date, whole_months: bool = True
) -> str | None:
    """Why ``periods`` do not cover ``first..last`` without gap or overlap (in whole months
    where ``whole_months``), if so."""
    expected = first
    for period in periods:
        late = period.valid_from > expected
        if late or (period.valid_from < expected and period is not periods[0]):
            return f"{period.node_id} starts {period.valid_from}, expected {expected}"
        if whole_months and period.valid_from.day != 1 and period.valid_from != first:
            return f"{period.node_id} does not start on the first day of a month"
        if period.valid_to >= last:
            return None
        expected = date.fromordinal(period.valid_to.toordinal() + 1)
        if whole_months and expected.day != 1:
            return f"{periods[0].node_id}: the periods do not end at a month's end"
    return f"the periods of {periods[0].node_id} end before {last}"
