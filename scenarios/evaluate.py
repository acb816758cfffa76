"""Evaluate a scenario's snapshots against the graph, and compare scenarios line by line."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from scenarios.eligibility import Eligibility, RuleSet, assess, disposal_reliefs
from scenarios.ireland import evaluate_ireland
from scenarios.ledger import Ledger
from scenarios.models import ScenarioInput, Snapshot
from scenarios.parameters import IRELAND, UNITED_KINGDOM, ParameterReader, load_parameters
from scenarios.result import (
    Comparison,
    Difference,
    EligibilityDifference,
    Line,
    SnapshotComparison,
    SnapshotResult,
    Total,
)
from scenarios.uk import evaluate_uk

__all__ = ["compare", "evaluate", "evaluate_snapshot"]


async def evaluate_snapshot(
    reader: ParameterReader, snapshot: Snapshot, rules: RuleSet | None = None
) -> SnapshotResult:
    """One snapshot, from the parameters of its tax year (one read of the graph); with
    ``rules``, also which reliefs and obligations apply and which deadlines bind."""
    facts = snapshot.facts
    year = facts.tax_year
    ireland = facts.jurisdiction == "IE"
    params = await load_parameters(reader, year, IRELAND if ireland else UNITED_KINGDOM)
    ledger = Ledger(params)
    if rules is not None and facts.disposals:
        ledger.reliefs = disposal_reliefs(rules, facts, snapshot.as_at)
        ledger.relief_nodes = rules.nodes
    if ireland:
        evaluate_ireland(ledger, facts)
    else:  # the UK and Northern Ireland share income tax and National Insurance
        evaluate_uk(ledger, facts)
    used = sorted(ledger.used.values(), key=lambda p: p.node_id)
    return SnapshotResult(
        label=snapshot.label,
        as_at=snapshot.as_at,
        tax_year=year,
        jurisdiction=facts.jurisdiction,
        period_from=min((p.valid_from for p in used), default=params.first),
        period_to=max((p.valid_to for p in used), default=params.last),
        lines=ledger.lines,
        totals=ledger.totals,
        gaps=ledger.gaps,
        parameters=list(used),
        eligibility=assess(rules, facts, snapshot.as_at) if rules is not None else None,
    )


async def evaluate(
    reader: ParameterReader, scenario: ScenarioInput, rules: RuleSet | None = None
) -> list[SnapshotResult]:
    """Every snapshot of ``scenario``, in its order."""
    return [await evaluate_snapshot(reader, snapshot, rules) for snapshot in scenario.snapshots]


def _eligibility_differences(
    row: Sequence[list[Eligibility] | None],
) -> list[EligibilityDifference]:
    keyed: list[dict[tuple[str, str | None], Eligibility]] = [
        {(e.node_id, e.about): e for e in (items or [])} for items in row
    ]
    keys: list[tuple[str, str | None]] = []
    for entries in keyed:
        keys += [k for k in entries if k not in keys]
    out = []
    for key in keys:
        found = [entries.get(key) for entries in keyed]
        statuses = [e.status if e is not None else None for e in found]
        deadline_ids = list(dict.fromkeys(d.node_id for e in found if e for d in e.deadlines))
        deadlines = {
            t: [
                next((d.end for d in e.deadlines if d.node_id == t), None) if e else None
                for e in found
            ]
            for t in deadline_ids
        }
        changed = len(set(statuses)) > 1 or any(len(set(v)) > 1 for v in deadlines.values())
        first = next(e for e in found if e is not None)
        out.append(
            EligibilityDifference(
                node_id=key[0],
                name=first.name,
                about=key[1],
                statuses=statuses,
                deadlines=deadlines,
                changed=changed,
                node_ids=sorted({n for e in found if e for n in e.node_ids}),
            )
        )
    return out


def _differences(
    keyed: list[dict[tuple[str, str, str], Line | Total]],
) -> list[Difference]:
    keys: list[tuple[str, str, str]] = []
    for entries in keyed:
        keys += [k for k in entries if k not in keys]
    out = []
    for key in keys:
        found = [entries.get(key) for entries in keyed]
        amounts = [item.amount if item is not None else None for item in found]
        first = amounts[0] if amounts[0] is not None else Decimal(0)
        last = amounts[-1] if amounts[-1] is not None else Decimal(0)
        # each scenario's own description where they differ ("€6,000.00 at the higher rate of
        # 40% → €16,000.00 at …"): the first alone would label every column with its amounts
        descriptions = [
            i.description if isinstance(i, Line) else f"Total {i.tax}" for i in found if i
        ]
        description = " → ".join(dict.fromkeys(descriptions))
        nodes = sorted({n for item in found if item is not None for n in item.node_ids})
        out.append(
            Difference(
                tax=key[0],
                person=key[1],
                key=key[2],
                description=description,
                amounts=amounts,
                difference=last - first,
                node_ids=nodes,
            )
        )
    return out


def compare(labels: Sequence[str], results: Sequence[Sequence[SnapshotResult]]) -> Comparison:
    """Compare scenarios' evaluations snapshot by snapshot: by label when every scenario has
    the same labels, else by position (the shortest scenario decides how many)."""
    label_sets = [[r.label for r in result] for result in results]
    same = all(labels_ == label_sets[0] for labels_ in label_sets)
    count = min(len(result) for result in results) if results else 0
    snapshots = []
    for i in range(count):
        row = [result[i] for result in results]
        line_maps: list[dict[tuple[str, str, str], Line | Total]] = [
            {(ln.tax, ln.person, ln.key): ln for ln in r.lines} for r in row
        ]
        total_maps: list[dict[tuple[str, str, str], Line | Total]] = [
            {(t.tax, t.person, "total"): t for t in r.totals} for r in row
        ]
        snapshots.append(
            SnapshotComparison(
                label=row[0].label if same else f"#{i + 1}",
                lines=_differences(line_maps),
                totals=_differences(total_maps),
                gaps=[r.gaps for r in row],
                eligibility=_eligibility_differences([r.eligibility for r in row]),
            )
        )
    return Comparison(scenarios=list(labels), snapshots=snapshots)
