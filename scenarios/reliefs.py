"""CGT reliefs in the amounts, as the graph decides them (ADR 0086).

Which reliefs apply to a disposal is the eligibility engine's verdict over the graph's own
conditions (ADR 0071). How an applying relief changes the tax is data on the relief node:

- ``cgt_effect: exempt`` (principal private residence, Private Residence Relief): the gain, or
  the share of the home used as the home (``home_use_percent``), is not a chargeable gain;
- ``cgt_effect: reduced_rate`` with ``cgt_rate`` and ``cgt_lifetime_limit`` naming per-year
  parameter bases (Irish revised entrepreneur relief, UK Business Asset Disposal Relief): the
  qualifying gains are charged at that rate, within the lifetime limit less the gains already
  relieved (``lifetime_relief_gains_used``).

- ``cgt_effect: proceeds_limit`` with ``cgt_limit``, ``cgt_limit_older`` and
  ``cgt_older_from_age`` (Irish retirement relief, ADR 0091): a disposal outside the family
  whose proceeds are within the limit for the person's age is exempt; above it (the year's only
  disposal, no losses brought forward) the tax is at most ``cgt_marginal_rate`` of the excess.

A relief that applies with no effect the engine computes, retirement relief above its limit
(marginal relief) or to a child, one whose
conditions cannot be told, qualifying gains beside other gains or losses, and gains beyond the
lifetime limit are gaps: the total is then not complete, never a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from scenarios.eligibility import Eligibility
from scenarios.ledger import ZERO, Ledger
from scenarios.models import Disposal, Facts
from scenarios.parameters import Param
from scenarios.result import Line

__all__ = ["ReducedRate", "Relieved", "relieve"]

HUNDRED = Decimal(100)


@dataclass(frozen=True)
class ReducedRate:
    """The reduced-rate relief the qualifying gains are charged under."""

    relief: Eligibility
    rate: Param
    limit: Param
    gains: Decimal  # the qualifying gains of the year

    @property
    def node_ids(self) -> list[str]:
        return _decided_by(self.relief)


@dataclass
class Relieved:
    """The year's disposals after the reliefs that exempt: each gain (or loss) still chargeable,
    the lines that say what was exempt, and the reduced-rate relief if any gain qualifies."""

    gains: list[Decimal] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    reduced: ReducedRate | None = None
    # retirement relief's marginal relief: the year's CGT is at most this amount (one disposal)
    cap: tuple[Decimal, list[Param], list[str], str] | None = None
    ok: bool = True  # False: a gap stops the computation (a parameter missing, a mix not built)


def _decided_by(relief: Eligibility) -> list[str]:
    return [relief.node_id, *(c.node_id for c in relief.conditions)]


def relieve(
    ledger: Ledger,
    facts: Facts,
    in_year: Sequence[Disposal],
    fmt: Callable[[Decimal], str],
) -> Relieved:
    """Apply the reliefs the graph holds to ``in_year`` disposals of ``facts``."""
    tax, who = "cgt", "you"
    out = Relieved()
    reliefs = ledger.reliefs
    qualifying: list[tuple[Eligibility, Decimal]] = []
    for disposal in in_year:
        gain = disposal.gain
        if reliefs is None or gain <= 0:
            out.gains.append(gain)
            continue
        found = reliefs[facts.disposals.index(disposal)]
        exempt = ZERO
        reduced: list[Eligibility] = []
        # the reliefs that exempt first (a gain wholly exempt needs no reduced rate)
        for relief in sorted(found, key=lambda r: _effect(ledger, r) == "reduced_rate"):
            effect = _effect(ledger, relief)
            if relief.status == "does_not_apply":
                continue
            if relief.status == "cannot_tell":
                missing = ", ".join(relief.missing) or None
                ledger.gap(tax, who, f"whether {relief.name} applies to {disposal.asset!r} "
                           "cannot be told: not deducted", missing)  # fmt: skip
                continue
            if effect == "exempt":
                share = disposal.home_use_percent
                share = HUNDRED if share is None else share
                exempt = max(exempt, gain * share / HUNDRED)
                part = "" if share == HUNDRED else f" ({share.normalize():f}% used as the home)"
                out.lines.append(ledger.line(tax, who, f"relief_exempt:{disposal.asset}",
                                             f"{relief.name}: {fmt(gain * share / HUNDRED)} of "
                                             f"the gain on {disposal.asset} exempt{part}", ZERO,
                                             [], gain * share / HUNDRED,
                                             nodes=_decided_by(relief)))  # fmt: skip
            elif effect == "proceeds_limit":
                if _within_limit(ledger, facts, disposal, relief, fmt, out, len(in_year)):
                    exempt = gain
            elif effect == "reduced_rate":
                reduced.append(relief)
            else:
                ledger.gap(tax, who, f"{relief.name} applies to {disposal.asset!r} and is not "
                           "computed: the tax may be lower", relief.node_id)  # fmt: skip
        if exempt < gain:
            qualifying += [(relief, gain) for relief in reduced]
        out.gains.append(gain - exempt)
    if reliefs is None and any(d.gain > 0 for d in in_year):
        ledger.gap(tax, who, "CGT reliefs were not assessed (no rules read): the tax may "
                   "differ", "disposals")  # fmt: skip
    if qualifying:
        out.reduced = _reduced(ledger, facts, qualifying, out)
    return out


def _effect(ledger: Ledger, relief: Eligibility) -> object:
    node = ledger.relief_nodes.get(relief.node_id)
    return node.properties.get("cgt_effect") if node is not None else None


def _within_limit(
    ledger: Ledger,
    facts: Facts,
    disposal: Disposal,
    relief: Eligibility,
    fmt: Callable[[Decimal], str],
    out: Relieved,
    disposals_in_year: int,
) -> bool:
    """``cgt_effect: proceeds_limit`` (Irish retirement relief, s.598): a disposal outside the
    family whose proceeds are within the limit for the person's age is wholly exempt; above it
    the tax is capped (marginal relief, ``out.cap``; with other disposals or losses: a gap); to
    a child: a gap. The limits and the age from which the lower one
    applies are per-year parameters the relief node names."""
    tax, who = "cgt", "you"
    props = ledger.relief_nodes[relief.node_id].properties
    bases = [
        str(props.get(k) or "") for k in ("cgt_limit", "cgt_limit_older", "cgt_older_from_age")
    ]
    if not all(bases):
        ledger.gap(tax, who, f"{relief.node_id} names no proceeds limit", relief.node_id)
        return False
    if disposal.to_child is not False:
        said = (
            "to a child" if disposal.to_child else "to a child or outside the family (not stated)"
        )
        ledger.gap(tax, who, f"{relief.name} on a disposal {said} is not built: the tax may be "
                   "lower", "to_child")  # fmt: skip
        return False
    found = ledger.need(tax, who, *bases)
    if found is None or facts.age is None:
        return False
    limit, older_limit, older_from = found
    applied = older_limit if facts.age >= older_from.value else limit
    if disposal.proceeds > applied.value:
        marginal_base = str(props.get("cgt_marginal_rate") or "")
        marginal = ledger.need(tax, who, marginal_base) if marginal_base else None
        if marginal is None or disposals_in_year > 1 or facts.capital_losses_brought_forward:
            ledger.gap(tax, who, f"{relief.name}: marginal relief above the {fmt(applied.value)} "
                       "limit with other disposals or losses (or no rate) is not built: the tax "
                       "may be lower", "proceeds")  # fmt: skip
            return False
        (half,) = marginal
        cap = (disposal.proceeds - applied.value) * half.fraction
        out.cap = (cap, [half, applied, older_from], _decided_by(relief),
                   f"{relief.name} (marginal relief): the tax on {disposal.asset} at most "
                   f"{half.value.normalize():f}% of the proceeds above the {fmt(applied.value)} "
                   f"limit, {fmt(cap)}")  # fmt: skip
        return False
    out.lines.append(ledger.line(
        tax, who, f"relief_exempt:{disposal.asset}",
        f"{relief.name}: proceeds {fmt(disposal.proceeds)} within the {fmt(applied.value)} limit "
        f"at age {facts.age} (no earlier disposals under the relief assumed): the gain on "
        f"{disposal.asset} exempt", ZERO, [applied, older_from], disposal.gain,
        nodes=_decided_by(relief),
    ))  # fmt: skip
    return True


def _reduced(
    ledger: Ledger, facts: Facts, qualifying: list[tuple[Eligibility, Decimal]], out: Relieved
) -> ReducedRate | None:
    tax, who = "cgt", "you"
    relief = qualifying[0][0]
    if any(r.node_id != relief.node_id for r, _ in qualifying):
        ledger.gap(tax, who, "gains under different reduced-rate reliefs are not built",
                   "disposals")  # fmt: skip
        out.ok = False
        return None
    props = ledger.relief_nodes[relief.node_id].properties
    bases = [str(props.get("cgt_rate") or ""), str(props.get("cgt_lifetime_limit") or "")]
    if not all(bases):
        ledger.gap(tax, who, f"{relief.node_id} names no rate or lifetime limit", relief.node_id)
        out.ok = False
        return None
    found = ledger.need(tax, who, *bases)
    if found is None:
        out.ok = False
        return None
    rate, limit = found
    gains = sum((g for _, g in qualifying), ZERO)
    left = max(limit.value - facts.lifetime_relief_gains_used, ZERO)
    if gains > left:
        ledger.gap(tax, who, f"qualifying gains above what is left of the lifetime limit "
                   f"({left:,.2f}) are not built", "lifetime_relief_gains_used")  # fmt: skip
        out.ok = False
        return None
    if sum(out.gains, ZERO) != gains or facts.capital_losses_brought_forward:
        ledger.gap(tax, who, f"gains under {relief.name} together with other gains or losses "
                   "in one year are not built", "disposals")  # fmt: skip
        out.ok = False
        return None
    return ReducedRate(relief=relief, rate=rate, limit=limit, gains=gains)
