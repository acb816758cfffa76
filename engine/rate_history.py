"""VAT rate history from two public tables, each source's claim kept, disagreements recorded.

The tables (``seeds/tax_rates/``, attribution in the README beside them) are
`ibericode/vat-rates` (JSON: rate periods per country, every rate kind) and
`kdeldycke/vat-rates` (CSV: standard rates per territory with start and stop dates). Neither is
ground truth, so neither wins: every run of one value in one table becomes a **claim** (a
``Rate`` node carrying ``valid_from`` / ``valid_to``, the ``source`` it came from and when that
source was ``source_checked_on``), and where two sources date a period and give different values
for it, a ``SourceConflict`` node ``DISPUTES`` both claims (ADR 0031).

Dates are ISO strings; ``valid_to`` is the last day in force (inclusive). A period a table opens
with a placeholder start (ibericode's ``0000-01-01``: "since before this table's history") is a
claim whose start is *not stated*: it is kept, and never used to find a conflict, because the
table does not say when the value began. A conflict is ``omitted_change`` when one source's claim
runs unchanged across the whole disputed period while the other records a change inside it (the
temporary 21 % Irish rate of 2020-09-01 to 2021-02-28, which the kdeldycke table omits), else
``different_value``.

Pure functions: parse, find conflicts, and turn both into graph writes; the seeder writes them
through ``GraphWriteService`` like every other seed.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from graph.models import EdgeWrite, NodeWrite

__all__ = [
    "COUNTRIES",
    "DEFAULT_TABLES",
    "IBERICODE",
    "KDELDYCKE",
    "RateClaim",
    "RateConflict",
    "RateSource",
    "claim_id",
    "find_conflicts",
    "history_writes",
    "load_history",
    "parse_ibericode",
    "parse_kdeldycke",
]

DEFAULT_TABLES = Path(__file__).resolve().parents[1] / "seeds" / "tax_rates"

# The jurisdictions the graph covers, with the codes each table uses for them.
COUNTRIES: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "IE": ("Ireland", ("IE",)),
    "UK": ("United Kingdom", ("GB", "UK")),
}
_REGIMES = {"IE": "IE:REGIME:VAT", "UK": "UK:REGIME:VAT"}
_PLACEHOLDER_START = "0000-01-01"
_OPEN_END = "9999-12-31"


@dataclass(frozen=True, slots=True)
class RateSource:
    """One table: a short key (in ids), the name answers cite, where it is, when checked."""

    key: str
    name: str
    url: str
    checked_on: str  # the date of the snapshot the project copied (its commit date)
    file: str


IBERICODE = RateSource(
    key="IBERICODE",
    name="ibericode/vat-rates",
    url="https://github.com/ibericode/vat-rates/blob/5abb1e1be91faa42d21c743c603a0aec9b5bab70/vat-rates.json",
    checked_on="2025-08-12",
    file="ibericode_vat-rates.json",
)
KDELDYCKE = RateSource(
    key="KDELDYCKE",
    name="kdeldycke/vat-rates",
    url="https://github.com/kdeldycke/vat-rates/blob/7585c283692045c413b6a93ed537a9cc3b5504a5/vat_rates.csv",
    checked_on="2025-09-18",
    file="kdeldycke_vat_rates.csv",
)


@dataclass(frozen=True, slots=True)
class RateClaim:
    """One source's claim: ``value`` percent for ``kind`` in ``jurisdiction`` over a period."""

    source: RateSource
    jurisdiction: str
    kind: str  # the table's own name: standard, reduced, reduced1, super_reduced, parking
    value: float
    valid_from: str | None  # None: the source does not state when the value began
    valid_to: str | None  # None: still in force

    @property
    def id(self) -> str:
        return claim_id(self)

    def covers(self, day: str) -> bool:
        start = self.valid_from or "0000-00-00"
        return start <= day <= (self.valid_to or _OPEN_END)


@dataclass(frozen=True, slots=True)
class RateConflict:
    """Sources that give different values for the same dated period."""

    jurisdiction: str
    kind: str
    valid_from: str
    valid_to: str | None
    claims: tuple[RateClaim, ...]
    category: str  # omitted_change | different_value
    omitting: tuple[RateSource, ...] = ()  # the sources that record no change in the period

    @property
    def id(self) -> str:
        return f"{self.jurisdiction}:CONFLICT:VAT_{self.kind.upper()}:{_id_date(self.valid_from)}"


def claim_id(claim: RateClaim) -> str:
    start = _id_date(claim.valid_from) if claim.valid_from else "UNDATED"
    return f"{claim.jurisdiction}:RATE:VAT_{claim.kind.upper()}:{claim.source.key}:{start}"


def _id_date(day: str) -> str:
    return day.replace("-", "_")


def _day_before(day: str) -> str:
    return (date.fromisoformat(day) - timedelta(days=1)).isoformat()


def _day_after(day: str) -> str:
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()


def _runs(
    source: RateSource, jurisdiction: str, kind: str, periods: Sequence[tuple[str | None, float]]
) -> list[RateClaim]:
    """Claims from ``(start, value)`` periods in date order: each run of one value is one claim,
    ending the day before the next different value starts."""
    claims: list[RateClaim] = []
    for index, (start, value) in enumerate(periods):
        if claims and claims[-1].value == value:
            continue  # same value carried on: the run goes on
        end = next((s for s, v in periods[index + 1 :] if v != value), None)
        claims.append(
            RateClaim(
                source,
                jurisdiction,
                kind,
                value,
                start,
                _day_before(end) if end is not None else None,
            )
        )
    return claims


def parse_ibericode(raw: Mapping[str, Any], source: RateSource = IBERICODE) -> list[RateClaim]:
    """Claims of the ibericode table for the covered jurisdictions, every rate kind."""
    claims: list[RateClaim] = []
    items = raw.get("items") or {}
    for jurisdiction, (_, codes) in COUNTRIES.items():
        periods = [p for code in codes for p in items.get(code) or []]
        periods.sort(key=lambda p: str(p["effective_from"]))
        kinds = sorted({k for p in periods for k in (p.get("rates") or {})})
        for kind in kinds:
            dated = [
                (
                    None if p["effective_from"] == _PLACEHOLDER_START else str(p["effective_from"]),
                    float(p["rates"][kind]),
                )
                for p in periods
                if kind in (p.get("rates") or {})
            ]
            claims += _runs(source, jurisdiction, kind, dated)
    return claims


def parse_kdeldycke(
    rows: Iterable[Mapping[str, str]], source: RateSource = KDELDYCKE
) -> list[RateClaim]:
    """Claims of the kdeldycke table (standard rates; ``stop_date`` is the first day no longer in
    force) for the covered jurisdictions; rates are fractions there, percent here."""
    claims: list[RateClaim] = []
    rows = list(rows)
    for jurisdiction, (_, codes) in COUNTRIES.items():
        mine = [r for r in rows if set(r["territory_codes"].split()) & set(codes)]
        for kind in sorted({r["rate_type"] for r in mine}):
            for row in sorted(
                (r for r in mine if r["rate_type"] == kind), key=lambda r: r["start_date"]
            ):
                stop = row["stop_date"].strip()
                claims.append(
                    RateClaim(
                        source,
                        jurisdiction,
                        kind,
                        round(float(row["rate"]) * 100, 4),
                        row["start_date"].strip() or None,
                        _day_before(stop) if stop else None,
                    )
                )
    return claims


def load_history(folder: Path = DEFAULT_TABLES) -> list[RateClaim]:
    """Every claim of both tables in ``folder``."""
    ibericode = json.loads((folder / IBERICODE.file).read_text(encoding="utf-8"))
    with (folder / KDELDYCKE.file).open(encoding="utf-8", newline="") as handle:
        kdeldycke = list(csv.DictReader(handle))
    return parse_ibericode(ibericode) + parse_kdeldycke(kdeldycke)


def find_conflicts(claims: Sequence[RateClaim]) -> list[RateConflict]:
    """Periods where sources that date their claims give different values (module docstring)."""
    conflicts: list[RateConflict] = []
    groups: dict[tuple[str, str], list[RateClaim]] = {}
    for claim in claims:
        if claim.valid_from is not None:  # an unstated start never makes a conflict
            groups.setdefault((claim.jurisdiction, claim.kind), []).append(claim)
    for (jurisdiction, kind), group in sorted(groups.items()):
        if len({c.source.key for c in group}) < 2:
            continue
        cuts = sorted(
            {c.valid_from for c in group if c.valid_from}
            | {_day_after(c.valid_to) for c in group if c.valid_to}
        )
        segments: list[tuple[str, str | None, tuple[RateClaim, ...]]] = []
        for index, start in enumerate(cuts):
            end = _day_before(cuts[index + 1]) if index + 1 < len(cuts) else None
            covering = tuple(
                sorted((c for c in group if c.covers(start)), key=lambda c: c.source.key)
            )
            if len({c.value for c in covering}) < 2:
                continue
            if segments and segments[-1][2] == covering and segments[-1][1] == _day_before(start):
                segments[-1] = (segments[-1][0], end, covering)
            else:
                segments.append((start, end, covering))
        for start, end, covering in segments:
            omitting = tuple(
                c.source
                for c in covering
                if c.valid_from is not None
                and c.valid_from < start
                and (c.valid_to is None or (end is not None and c.valid_to > end))
            )
            category = (
                "omitted_change"
                if omitting and len(omitting) < len(covering)
                else ("different_value")
            )
            conflicts.append(
                RateConflict(
                    jurisdiction,
                    kind,
                    start,
                    end,
                    covering,
                    category,
                    omitting if category == "omitted_change" else (),
                )
            )
    return conflicts


def _kind_words(kind: str) -> str:
    words = kind.replace("_", " ")
    for digit in "123456789":
        words = words.replace(digit, f" {digit}")
    return words


def _period(valid_from: str | None, valid_to: str | None) -> str:
    start = valid_from or "a start the source does not state"
    return f"{start} to {valid_to}" if valid_to else f"{start} onwards"


def _claim_node(claim: RateClaim) -> NodeWrite:
    country = COUNTRIES[claim.jurisdiction][0]
    kind = _kind_words(claim.kind)
    props: dict[str, Any] = {
        "name": f"VAT {kind} rate ({country}), per {claim.source.name}",
        # The period and the source travel as properties; evidence lines state them.
        "description": f"The {kind} rate of VAT in {country} as the {claim.source.name} table "
        "records it",
        "value": claim.value,
        "unit": "percent",
        "basis": "taxable amount",
        "category": "VAT",
        "source": claim.source.name,
        "source_checked_on": claim.source.checked_on,
        "source_urls": [claim.source.url],
        "verified": False,  # a public table, not the statute (shared/data README: not truth)
    }
    if claim.valid_from:
        props["valid_from"] = claim.valid_from
    if claim.valid_to:
        props["valid_to"] = claim.valid_to
    return NodeWrite(id=claim.id, label="Rate", properties=props)


def _conflict_text(conflict: RateConflict) -> str:
    gives = "; ".join(f"{c.source.name} gives {c.value:g} percent" for c in conflict.claims)
    text = f"{gives} for {_period(conflict.valid_from, conflict.valid_to)}"
    if conflict.omitting:
        names = " and ".join(s.name for s in conflict.omitting)
        text += (
            f" — {names} records no change in this period, so it omits the rate the other "
            "source gives"
        )
    return text


def _conflict_node(conflict: RateConflict) -> NodeWrite:
    country = COUNTRIES[conflict.jurisdiction][0]
    props: dict[str, Any] = {
        "name": f"Sources disagree on the VAT {_kind_words(conflict.kind)} rate ({country})",
        "description": _conflict_text(conflict),
        "category": conflict.category,
        "status": "open",
        "valid_from": conflict.valid_from,
        "source_urls": sorted({c.source.url for c in conflict.claims}),
    }
    if conflict.valid_to:
        props["valid_to"] = conflict.valid_to
    return NodeWrite(id=conflict.id, label="SourceConflict", properties=props)


def _edge(kind: str, source: NodeWrite, target_id: str, target_label: str) -> EdgeWrite:
    return EdgeWrite(
        type=kind,
        source_id=source.id,
        source_label=source.label,
        target_id=target_id,
        target_label=target_label,
    )


def history_writes(
    claims: Sequence[RateClaim], conflicts: Sequence[RateConflict]
) -> tuple[list[NodeWrite], list[EdgeWrite]]:
    """The nodes (claims, conflicts) and edges (jurisdiction, regime, DISPUTES) to write."""
    nodes: list[NodeWrite] = []
    edges: list[EdgeWrite] = []
    for claim in claims:
        node = _claim_node(claim)
        nodes.append(node)
        edges.append(_edge("IN_JURISDICTION", node, claim.jurisdiction, "Jurisdiction"))
        edges.append(_edge("UNDER_REGIME", node, _REGIMES[claim.jurisdiction], "Regime"))
    for conflict in conflicts:
        node = _conflict_node(conflict)
        nodes.append(node)
        edges.append(_edge("IN_JURISDICTION", node, conflict.jurisdiction, "Jurisdiction"))
        edges += [_edge("DISPUTES", node, c.id, "Rate") for c in conflict.claims]
    return nodes, edges
