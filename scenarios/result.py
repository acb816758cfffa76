"""What an evaluation returns: lines that cite their nodes, totals, gaps, and comparisons."""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from pydantic import BaseModel, ConfigDict, Field

from scenarios.eligibility import Eligibility
from scenarios.parameters import Gap, Param

__all__ = [
    "CENT",
    "Comparison",
    "Difference",
    "EligibilityDifference",
    "Line",
    "SnapshotComparison",
    "SnapshotResult",
    "Total",
    "cents",
]

CENT = Decimal("0.01")


def cents(amount: Decimal) -> Decimal:
    """Round half up to the cent, as the published examples do (1,583.625 → 1,583.63)."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


class Line(BaseModel):
    """One step of a computation: an amount and the graph nodes it came from."""

    model_config = ConfigDict(frozen=True)

    tax: str  # income_tax | usc | prsi
    person: str  # you | spouse | couple
    key: str  # stable within a tax, for comparisons: "standard_rate", "band_2", "credit_personal"
    description: str
    base: Decimal | None = None  # the income the rate is applied to, where there is one
    amount: Decimal  # positive: a charge; negative: a credit or reduction
    node_ids: list[str]
    valid_from: date
    valid_to: date


class Total(BaseModel):
    model_config = ConfigDict(frozen=True)

    tax: str
    person: str
    amount: Decimal
    node_ids: list[str]
    # False when a gap of this tax and person means the amount leaves something out.
    complete: bool = True


class SnapshotResult(BaseModel):
    """The evaluation of one snapshot, as at its date."""

    model_config = ConfigDict(frozen=True)

    label: str
    as_at: date
    tax_year: int
    jurisdiction: str
    # The span of the periods the parameters used are in force (each line gives its own: a
    # PRSI rate that changed on 1 October cites the months it covers).
    period_from: date
    period_to: date
    lines: list[Line] = Field(default_factory=list)
    totals: list[Total] = Field(default_factory=list)
    gaps: list[Gap] = Field(default_factory=list)
    parameters: list[Param] = Field(default_factory=list)
    # Which reliefs, credits, benefits and obligations the graph's conditions make relevant, with
    # their deadlines (ADR 0071); None: not assessed (no rules were read).
    eligibility: list[Eligibility] | None = None

    def total(self, tax: str, person: str = "you") -> Decimal | None:
        for total in self.totals:
            if total.tax == tax and total.person == person:
                return total.amount
        return None


class Difference(BaseModel):
    model_config = ConfigDict(frozen=True)

    tax: str
    person: str
    key: str
    description: str
    amounts: list[Decimal | None]  # one per scenario compared, None where it has no such line
    difference: Decimal  # last minus first (None counted as 0)
    node_ids: list[str]


class EligibilityDifference(BaseModel):
    """One item across the scenarios compared: its status and due dates in each (``None``:
    not relevant there), and whether anything changed."""

    model_config = ConfigDict(frozen=True)

    node_id: str
    name: str
    about: str | None = None
    statuses: list[str | None]
    # each deadline's end date per scenario, by timeline node id
    deadlines: dict[str, list[date | None]] = Field(default_factory=dict)
    changed: bool
    node_ids: list[str]


class SnapshotComparison(BaseModel):
    model_config = ConfigDict(frozen=True)

    label: str  # the snapshot label, or its position when the labels differ
    lines: list[Difference]
    totals: list[Difference]
    gaps: list[list[Gap]]  # each scenario's gaps for this snapshot
    # eligibility gained or lost and deadlines moved (ADR 0071); empty when not assessed
    eligibility: list[EligibilityDifference] = Field(default_factory=list)


class Comparison(BaseModel):
    model_config = ConfigDict(frozen=True)

    scenarios: list[str]  # labels (or ids) in the order compared
    snapshots: list[SnapshotComparison]
