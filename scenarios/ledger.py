"""The ledger one snapshot's computation writes into: lines, gaps, totals, parameters used."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from graph.models import GraphNode
from scenarios.eligibility import Eligibility
from scenarios.parameters import Gap, Param, ParameterSet
from scenarios.result import Line, Total, cents

__all__ = ["ZERO", "Ledger"]

ZERO = Decimal(0)


@dataclass
class Ledger:
    """Collects lines, gaps and the parameters used while one snapshot is computed."""

    params: ParameterSet
    lines: list[Line] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    used: dict[str, Param] = field(default_factory=dict)
    totals: list[Total] = field(default_factory=list)
    # Per disposal of the facts, the reliefs the graph's conditions make relevant, and the relief
    # nodes (ADR 0086); None: the rules were not read, so no relief is computed (a gap).
    reliefs: list[list[Eligibility]] | None = None
    relief_nodes: dict[str, GraphNode] = field(default_factory=dict)

    def need(self, tax: str, person: str, *bases: str) -> list[Param] | None:
        """The annual parameters ``bases``, or ``None`` after recording a gap for each missing."""
        found = [self.params.get(base) for base in bases]
        missing = [base for base, param in zip(bases, found, strict=True) if param is None]
        for base in missing:
            self.gaps.append(self.params.gap(tax, base, person))
        return None if missing else [p for p in found if p is not None]

    def need_series(self, tax: str, person: str, base: str) -> list[Param] | None:
        periods = self.params.periods(base)
        if periods is None:
            self.gaps.append(self.params.gap(tax, base, person))
        return periods

    def gap(self, tax: str, person: str, reason: str, missing: str | None = None) -> None:
        self.gaps.append(Gap(tax=tax, person=person, reason=reason, missing=missing))

    def line(
        self,
        tax: str,
        person: str,
        key: str,
        description: str,
        amount: Decimal,
        params: Sequence[Param],
        base: Decimal | None = None,
        rules: Sequence[str] = (),
        nodes: Sequence[str] = (),
    ) -> Line:
        """One line citing ``params`` and those of the section nodes ``rules`` the graph holds
        (a rule cites the law it follows; its absence is no gap: no value depends on it), and
        ``nodes`` (a relief and the conditions that decided it). A line of no parameter is in
        force for the tax year."""
        for param in params:
            self.used[param.node_id] = param
        line = Line(
            tax=tax,
            person=person,
            key=key,
            description=description,
            base=base,
            amount=cents(amount),
            node_ids=sorted(
                {p.node_id for p in params} | (set(rules) & self.params.rules) | set(nodes)
            ),
            valid_from=max((p.valid_from for p in params), default=self.params.first),
            valid_to=min((p.valid_to for p in params), default=self.params.last),
        )
        self.lines.append(line)
        return line

    def total(self, tax: str, person: str, lines: Sequence[Line], floor_zero: bool = False) -> None:
        amount = sum((line.amount for line in lines), ZERO)
        if floor_zero:
            amount = max(amount, ZERO)
        complete = not any(g.tax == tax and g.person in (person, None) for g in self.gaps)
        nodes = sorted({node for line in lines for node in line.node_ids})
        self.totals.append(
            Total(tax=tax, person=person, amount=amount, node_ids=nodes, complete=complete)
        )
