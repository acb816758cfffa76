"""A value that changes within a year, asked without a date (issue 23).

The seeds hold a value that changes within a year as a series of periods of that year
(``IE:RATE:PRSI_A_EMPLOYEE:2026:P1`` 4.2% to 30 September 2026, ``…:P2`` 4.35% from 1 October
2026; the scenario engine reads the same series, ``scenarios/parameters.py``). A question
naming no date is answered as at today, and the search finds the period in force today only:
"What is the Class A employee PRSI rate?" quoted one rate with no word of the rate that applied
earlier in the same year, or of the one announced for later in it — an adviser computing a
year's contributions needs both, each with the date it applies from.

:func:`with_year_periods` puts the other periods of the same year right after each series
period the evidence holds, in the order of the year, so the answer says which rate applies from
which date; a question that names a date or a year needs none (its window already holds each
period in force in it).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.evidence import Evidence, EvidenceHit, describe
from graph.models import GraphNode

__all__ = ["MAX_PERIODS", "series_of", "with_year_periods"]

#: ``<base>:<year>:P<n>``: one period of a value that changes within the year.
_SERIES = re.compile(r"^(?P<base>.+):(?P<year>\d{4}):P(?P<n>\d{1,2})$")
MAX_PERIODS = 6  # periods of one year looked up (a rate changes once or twice a year)


def series_of(node_id: str) -> tuple[str, int, int] | None:
    """``(base, year, n)`` of a series period's id, else ``None``."""
    found = _SERIES.match(node_id)
    if found is None:
        return None
    return found["base"], int(found["year"]), int(found["n"])


def with_year_periods(evidence: Evidence, get: Callable[[str], GraphNode | None]) -> Evidence:
    """``evidence`` with every series period it holds followed by the other periods of the same
    value and year (in the year's order; the period found first stays first), each once."""
    if not any(series_of(hit.node.id) for hit in evidence.hits):
        return evidence
    present = set(evidence.ids())
    placed: set[str] = set()
    hits: list[EvidenceHit] = []
    for hit in evidence.hits:
        if hit.node.id in placed:
            continue
        hits.append(hit)
        placed.add(hit.node.id)
        series = series_of(hit.node.id)
        if series is None:
            continue
        base, year, _ = series
        for n in range(1, MAX_PERIODS + 1):
            other_id = f"{base}:{year}:P{n}"
            if other_id in placed:
                continue
            if other_id in present:
                other = next(h for h in evidence.hits if h.node.id == other_id)
                hits.append(other)
                placed.add(other_id)
            elif (node := get(other_id)) is not None:
                hits.append(EvidenceHit(node=node, text=describe(node), score=hit.score))
                placed.add(other_id)
    return Evidence(hits=hits, verdict=evidence.verdict)
