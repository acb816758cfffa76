"""A scenario: a label and dated snapshots of one household's facts (issue 28).

The schema refuses impossible facts with a ``ValueError`` inside pydantic validation, so the API
answers 422 like any other invalid body: a negative amount, a disposal before its acquisition,
an unknown jurisdiction, a spouse's income without a spouse. Amounts are ``Decimal`` euro or
pound amounts with at most two decimals; they serialise to JSON as strings so no cent is lost.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "Amount",
    "Disposal",
    "Facts",
    "Jurisdiction",
    "Scenario",
    "ScenarioInput",
    "Snapshot",
]

Jurisdiction = Literal["IE", "UK", "NI"]
CivilStatus = Literal["single", "married", "civil_partner", "widowed", "separated", "divorced"]
# How a married couple or civil partners are taxed in Ireland: joint assessment, separate
# assessment (each on their own income, the married credit shared and unused band and credits
# passed to the other) or separate treatment (each as a single person).
Assessment = Literal["joint", "separate_assessment", "separate_treatment"]
Amount = Annotated[Decimal, Field(ge=0, max_digits=14, decimal_places=2)]


class Disposal(BaseModel):
    """One disposal of an asset (for capital gains tax)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    asset: str = Field(min_length=1, max_length=200)
    acquired_on: date
    disposed_on: date
    cost: Amount
    proceeds: Amount
    # Costs deducted besides the price paid: incidental costs of buying and selling (fees,
    # stamp duty) and money spent improving the asset (Revenue's "allowable expenses", GOV.UK's
    # "costs of buying, selling or improving").
    allowable_expenses: Amount = Decimal(0)
    # Facts the graph's relief conditions test (ADR 0071); absent: "cannot tell".
    main_residence: bool | None = None
    residential_property: bool | None = None
    shareholding_percent: Decimal | None = Field(default=None, ge=0, le=100, decimal_places=2)
    working_director: bool | None = None
    to_child: bool | None = None
    # The share of a home used only as the home (Revenue: "you can only claim for the part of
    # the house you used as your home"); absent: all of it.
    home_use_percent: Decimal | None = Field(default=None, ge=0, le=100, decimal_places=2)

    @model_validator(mode="after")
    def _disposed_after_acquired(self) -> Disposal:
        if self.disposed_on < self.acquired_on:
            raise ValueError(
                f"disposal of {self.asset!r} on {self.disposed_on} is before its acquisition "
                f"on {self.acquired_on}"
            )
        return self

    @property
    def gain(self) -> Decimal:
        """Proceeds less the cost and allowable expenses: negative for a loss."""
        return self.proceeds - self.cost - self.allowable_expenses


class Facts(BaseModel):
    """What is true of the person (and spouse or civil partner) for one tax year."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tax_year: int = Field(ge=2000, le=2100)
    jurisdiction: Jurisdiction
    resident: bool = True
    status: CivilStatus = "single"
    assessment: Assessment | None = None
    age: int | None = Field(default=None, ge=0, le=130)
    spouse_age: int | None = Field(default=None, ge=0, le=130)
    dependent_children: int = Field(default=0, ge=0, le=30)
    single_person_child_carer: bool = False
    # The year the spouse or civil partner died (status "widowed"): which widowed credits apply.
    bereaved_in: int | None = Field(default=None, ge=1900, le=2100)
    # UK: the lower-earning spouse or civil partner transfers Marriage Allowance to the other.
    marriage_allowance: bool = False
    medical_card: bool = False
    # UK only: a Scottish taxpayer's income tax rates are out of scope (a gap).
    scottish_taxpayer: bool = False
    paye_income: Amount = Decimal(0)
    self_employed_income: Amount = Decimal(0)
    # Rent, deposit interest, dividends: neither employment nor trading income.
    other_income: Amount = Decimal(0)
    spouse_paye_income: Amount = Decimal(0)
    spouse_self_employed_income: Amount = Decimal(0)
    spouse_other_income: Amount = Decimal(0)
    pension_contributions: Amount = Decimal(0)
    rent_paid: Amount = Decimal(0)
    # Facts the graph's credit conditions test (ADR 0071); absent: "cannot tell".
    proprietary_director: bool | None = None
    tenancy_registered: bool | None = None
    # Allowable capital losses of earlier years not yet set against gains.
    capital_losses_brought_forward: Amount = Decimal(0)
    # Gains already charged at a reduced relief rate in earlier years (Irish revised entrepreneur
    # relief, UK Business Asset Disposal Relief): they count against the lifetime limit.
    lifetime_relief_gains_used: Amount = Decimal(0)
    disposals: list[Disposal] = Field(default_factory=list, max_length=50)

    @property
    def couple(self) -> bool:
        return self.status in ("married", "civil_partner")

    @model_validator(mode="after")
    def _consistent(self) -> Facts:
        spouse_income = (
            self.spouse_paye_income + self.spouse_self_employed_income + self.spouse_other_income
        )
        if not self.couple and (spouse_income or self.spouse_age is not None):
            raise ValueError(f"a spouse's facts were given but the status is {self.status!r}")
        if self.assessment is not None and not self.couple:
            raise ValueError("an assessment basis applies only to a married couple or partners")
        if self.bereaved_in is not None and self.status != "widowed":
            raise ValueError(f"a year of bereavement was given but the status is {self.status!r}")
        if self.bereaved_in is not None and self.bereaved_in > self.tax_year:
            raise ValueError(f"the year of bereavement {self.bereaved_in} is after the tax year")
        if self.marriage_allowance and not (self.couple and self.jurisdiction in ("UK", "NI")):
            raise ValueError("Marriage Allowance is for a UK married couple or civil partners")
        # the tax year's last day: 31 December in Ireland, 5 April of the next year in the UK
        last = (
            date(self.tax_year, 12, 31)
            if self.jurisdiction == "IE"
            else date(self.tax_year + 1, 4, 5)
        )
        for disposal in self.disposals:
            if disposal.disposed_on > last:
                raise ValueError(
                    f"disposal of {disposal.asset!r} on {disposal.disposed_on} is after the "
                    f"{self.tax_year} tax year"
                )
        return self


class Snapshot(BaseModel):
    """The facts as they stand on one date, with a label ("now", "after the move")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str = Field(min_length=1, max_length=120)
    as_at: date
    facts: Facts


class ScenarioInput(BaseModel):
    """What a client sends to create or replace a scenario."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str = Field(min_length=1, max_length=200)
    snapshots: list[Snapshot] = Field(min_length=1, max_length=20)

    @model_validator(mode="after")
    def _labels_unique(self) -> ScenarioInput:
        labels = [s.label for s in self.snapshots]
        if len(set(labels)) != len(labels):
            raise ValueError("snapshot labels must be unique within a scenario")
        return self


class Scenario(ScenarioInput):
    """A stored scenario: its id and owner's timestamps."""

    id: str
    created_at: str
    updated_at: str
