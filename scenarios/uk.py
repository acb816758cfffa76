"""UK income tax and National Insurance for one snapshot (England, Wales and Northern Ireland).

The tax year ``Y`` is 6 April Y to 5 April Y+1 (``2025`` is 2025-26). Income is a year's
figure: income tax on total income less the Personal Allowance (tapered by the graph's rate
above its threshold), in the basic, higher and additional bands; employee Class 1 National
Insurance on PAYE earnings and Class 4 on self-employed profits, both with annual thresholds
(payroll works per pay period, so a year of uneven pay can differ by pennies). Not built, each
a gap: Scottish rates, savings and dividend rates and allowances, Marriage Allowance transferred by
you (received from a spouse is built), pension relief, National Insurance at State Pension age.

Capital gains tax: each gain is proceeds less cost and allowable expenses; the year's gains less
all its losses, less losses brought forward only down to the annual exempt amount (TCGA 1992
s.3(5A)-(5C)), less that amount, added on top of taxable income (income less the Personal
Allowance): the part inside the basic rate band left pays the lower rate, the rest the higher
rate — the rates in force on the gain's day (2024-25's changed on 30 October 2024) for
residential property or other assets; the losses left to carry forward are a line. Gains of one
tax year at different rates, carried interest and limits on losses to connected persons are
not built: each a gap. Reliefs as the graph decides them (ADR 0086, ``scenarios/reliefs.py``):
Private Residence Relief exempts the share of the gain of a home used as the home; gains that
all qualify for Business Asset Disposal Relief pay its rate after the exempt amount.
"""

from __future__ import annotations

from decimal import Decimal

from scenarios.ledger import ZERO, Ledger
from scenarios.models import Disposal, Facts
from scenarios.parameters import Param
from scenarios.reliefs import Relieved, relieve
from scenarios.result import Line

__all__ = ["evaluate_uk"]

STATE_PENSION_AGE = 66  # a fact of the law's timetable until 2026, not a rate: said as a gap


def _gbp(amount: Decimal) -> str:
    return f"£{amount:,.2f}"


def evaluate_uk(ledger: Ledger, facts: Facts) -> None:
    """Append the UK income tax and National Insurance lines of ``facts`` to ``ledger``."""
    who = "you"
    if facts.couple and (facts.spouse_paye_income or facts.spouse_self_employed_income
                         or facts.spouse_other_income):  # fmt: skip
        ledger.gap("income_tax", "spouse", "a spouse's UK taxes are not built", "spouse")
    if facts.pension_contributions > 0:
        ledger.gap("income_tax", who, "pension relief is not built: not deducted",
                   "pension_contributions")  # fmt: skip
    taxable: Decimal | None = None
    if facts.scottish_taxpayer:
        ledger.gap("income_tax", who, "Scottish income tax rates are out of scope",
                   "scottish_taxpayer")  # fmt: skip
    else:
        taxable = _income_tax(ledger, facts)
    if facts.disposals:
        _cgt(ledger, facts, taxable)
    if facts.age is not None and facts.age >= STATE_PENSION_AGE:
        ledger.gap("ni", who, "National Insurance at State Pension age is not built", "age")
        return
    lines: list[Line] = []
    if facts.paye_income > 0:
        lines += _class_1(ledger, facts.paye_income)
    if facts.self_employed_income > 0:
        lines += _class_4(ledger, facts.self_employed_income)
    if lines:
        ledger.total("ni", who, lines)


def _income_tax(ledger: Ledger, facts: Facts) -> Decimal | None:
    """The income tax lines; returns the taxable income (None when it cannot be computed)."""
    tax, who = "income_tax", "you"
    if facts.other_income > 0:
        ledger.gap(tax, who, "savings and dividend rates and allowances are not built: other "
                   "income is taxed as earnings", "other_income")  # fmt: skip
    found = ledger.need(tax, who, "UK:THRESHOLD:PERSONAL_ALLOWANCE", "UK:THRESHOLD:PA_TAPER_INCOME",
                        "UK:RATE:PA_TAPER", "UK:THRESHOLD:BASIC_RATE_BAND",
                        "UK:THRESHOLD:ADDITIONAL_RATE_THRESHOLD", "UK:RATE:IT_BASIC",
                        "UK:RATE:IT_HIGHER", "UK:RATE:IT_ADDITIONAL")  # fmt: skip
    if found is None:
        return None
    allowance, taper_from, taper, band, additional_from, basic, higher, additional = found
    income = facts.paye_income + facts.self_employed_income + facts.other_income
    reduction = max(income - taper_from.value, ZERO) * taper.fraction
    personal = max(allowance.value - reduction, ZERO)
    taxable = max(income - personal, ZERO)
    at_basic = min(taxable, band.value)
    at_higher = max(min(taxable, additional_from.value) - band.value, ZERO)
    at_additional = max(taxable - additional_from.value, ZERO)
    lines = [
        ledger.line(tax, who, "personal_allowance",
                    f"Personal Allowance {_gbp(personal)} (no tax)", ZERO,
                    [allowance, taper_from, taper], personal),
        ledger.line(tax, who, "basic_rate", f"{_gbp(at_basic)} at {basic.value.normalize():f}%",
                    at_basic * basic.fraction, [basic, band, allowance], at_basic),
        ledger.line(tax, who, "higher_rate",
                    f"{_gbp(at_higher)} at {higher.value.normalize():f}%",
                    at_higher * higher.fraction, [higher, band, additional_from], at_higher),
        ledger.line(tax, who, "additional_rate",
                    f"{_gbp(at_additional)} at {additional.value.normalize():f}%",
                    at_additional * additional.fraction, [additional, additional_from],
                    at_additional),
    ]  # fmt: skip
    if facts.marriage_allowance:
        higher_paid = at_higher + at_additional > 0
        lines += _marriage_allowance(ledger, facts, income, allowance, basic, higher_paid, lines)
    ledger.total(tax, who, lines, floor_zero=True)
    return taxable


def _marriage_allowance(
    ledger: Ledger,
    facts: Facts,
    income: Decimal,
    allowance: Param,
    basic: Param,
    higher_paid: bool,
    lines: list[Line],
) -> list[Line]:
    """The spouse transfers the graph's Marriage Allowance: the tax of a basic rate payer falls
    by the basic rate on it, when the spouse's income is below the Personal Allowance."""
    tax, who = "income_tax", "you"
    spouse = (
        facts.spouse_paye_income + facts.spouse_self_employed_income + facts.spouse_other_income
    )
    if spouse > income:
        ledger.gap(tax, who, "Marriage Allowance transferred by you to your spouse is not built "
                   "(your Personal Allowance falls by it; your spouse's tax is not computed)",
                   "marriage_allowance")  # fmt: skip
        return []
    found = ledger.need(tax, who, "UK:THRESHOLD:MARRIAGE_ALLOWANCE")
    if found is None:
        return []
    (transfer,) = found
    if spouse > allowance.value or higher_paid:
        why = ("your spouse's income is above the Personal Allowance" if spouse > allowance.value
               else "you pay tax above the basic rate")  # fmt: skip
        return [ledger.line(tax, who, "marriage_allowance", f"Marriage Allowance not due: {why}",
                            ZERO, [transfer, allowance], transfer.value)]  # fmt: skip
    owed = sum((ln.amount for ln in lines), ZERO)
    reduction = min(transfer.value * basic.fraction, owed)
    return [ledger.line(tax, who, "marriage_allowance",
                        f"Marriage Allowance: {basic.value.normalize():f}% of "
                        f"{_gbp(transfer.value)} transferred by your spouse", -reduction,
                        [transfer, basic, allowance], transfer.value)]  # fmt: skip


def _bands(
    ledger: Ledger, key: str, label: str, income: Decimal, bases: tuple[str, str, str, str]
) -> list[Line]:
    tax, who = "ni", "you"
    found = ledger.need(tax, who, *bases)
    if found is None:
        return []
    low, high, main, extra = found
    at_main = max(min(income, high.value) - low.value, ZERO)
    at_extra = max(income - high.value, ZERO)
    return [
        ledger.line(tax, who, f"{key}_main", f"{label} {main.value.normalize():f}% on "
                    f"{_gbp(at_main)}", at_main * main.fraction, [main, low, high], at_main),
        ledger.line(tax, who, f"{key}_additional", f"{label} {extra.value.normalize():f}% on "
                    f"{_gbp(at_extra)}", at_extra * extra.fraction, [extra, high], at_extra),
    ]  # fmt: skip


def _class_1(ledger: Ledger, earnings: Decimal) -> list[Line]:
    bases = ("UK:THRESHOLD:NI_PRIMARY_THRESHOLD", "UK:THRESHOLD:NI_UPPER_EARNINGS_LIMIT",
             "UK:RATE:NI_CLASS_1_MAIN", "UK:RATE:NI_CLASS_1_ADDITIONAL")  # fmt: skip
    return _bands(ledger, "class_1", "Class 1", earnings, bases)


def _class_4(ledger: Ledger, profits: Decimal) -> list[Line]:
    bases = ("UK:THRESHOLD:NI_LOWER_PROFITS_LIMIT", "UK:THRESHOLD:NI_UPPER_PROFITS_LIMIT",
             "UK:RATE:NI_CLASS_4_MAIN", "UK:RATE:NI_CLASS_4_ADDITIONAL")  # fmt: skip
    return _bands(ledger, "class_4", "Class 4", profits, bases)


# --- capital gains tax ----------------------------------------------------------------------


def _rates_on(ledger: Ledger, disposal: Disposal) -> tuple[Param, Param] | None:
    """The lower and higher rates in force on the disposal's day for its kind of asset, or
    ``None`` after a gap (a parameter missing, or residential or not unknown where it decides)."""
    tax, who = "cgt", "you"
    found: dict[str, Param] = {}
    for kind in ("", "RESIDENTIAL_"):
        for band in ("LOWER", "HIGHER"):
            base = f"UK:RATE:CGT_{kind}{band}"
            periods = ledger.need_series(tax, who, base)
            if periods is None:
                return None
            on_day = [p for p in periods if p.valid_from <= disposal.disposed_on <= p.valid_to]
            if not on_day:
                ledger.gap(tax, who, f"no rate {base} in force on {disposal.disposed_on}", base)
                return None
            found[f"{kind}{band}"] = on_day[0]
    other = (found["LOWER"], found["HIGHER"])
    residential = (found["RESIDENTIAL_LOWER"], found["RESIDENTIAL_HIGHER"])
    if disposal.residential_property is None:
        if [p.value for p in other] != [p.value for p in residential]:
            ledger.gap(tax, who, f"whether {disposal.asset!r} is residential property decides "
                       f"its rate on {disposal.disposed_on}", "residential_property")  # fmt: skip
            return None
        return other
    return residential if disposal.residential_property else other


def _cgt(ledger: Ledger, facts: Facts, taxable_income: Decimal | None) -> None:
    tax, who = "cgt", "you"
    ledger.gap(tax, who, "carried interest and the limits on losses (to a connected person) "
               "are not built: the tax may differ", "disposals")  # fmt: skip
    first, last = ledger.params.first, ledger.params.last
    in_year = [d for d in facts.disposals if first <= d.disposed_on <= last]
    year = f"{ledger.params.tax_year}-{(ledger.params.tax_year + 1) % 100:02d}"
    for disposal in facts.disposals:
        if disposal not in in_year:
            ledger.gap(tax, who, f"the disposal of {disposal.asset!r} on {disposal.disposed_on} "
                       f"is not in the {year} tax year: not counted", "disposals")  # fmt: skip
    if not in_year:
        return
    if taxable_income is None:
        ledger.gap(tax, who, "the rate band left depends on taxable income, which could not be "
                   "computed", "income_tax")  # fmt: skip
        return
    found = ledger.need(tax, who, "UK:THRESHOLD:CGT_ANNUAL_EXEMPT", "UK:THRESHOLD:BASIC_RATE_BAND")
    if found is None:
        return
    exemption, band = found
    relieved = relieve(ledger, facts, in_year, _gbp)
    if not relieved.ok:
        return
    if relieved.reduced is not None:
        _cgt_reduced(ledger, facts, relieved, exemption, in_year)
        return
    # a loss (or a gain all exempt) is charged at no rate: only the gains' rates decide
    rates = [_rates_on(ledger, d) for d, g in zip(in_year, relieved.gains, strict=True) if g > 0]
    if any(r is None for r in rates):
        return
    pairs = {(r[0].value, r[1].value) for r in rates if r is not None}
    if len(pairs) > 1:
        ledger.gap(tax, who, "gains of one tax year at different rates (before and after "
                   "30 October 2024, or residential and other) are not built",
                   "disposals")  # fmt: skip
        return
    rule = ["UK:TCGA_1992:S_3"]
    # s.2(2) and s.3(5A)-(5C): the year's losses come off in full, even below the exempt
    # amount; losses brought forward only as far as needed to bring the gains down to it.
    net = sum(relieved.gains, ZERO)
    brought = facts.capital_losses_brought_forward
    used = min(brought, max(net - exemption.value, ZERO))
    after_losses = net - used
    exempt = min(max(after_losses, ZERO), exemption.value)
    taxable = max(after_losses - exemption.value, ZERO)
    carried = brought - used + max(-net, ZERO)
    band_left = max(band.value - taxable_income, ZERO)
    at_lower = min(taxable, band_left)
    at_higher = taxable - at_lower
    gains = ", ".join(f"{d.asset} {_gbp(g)}" for d, g in zip(in_year, relieved.gains, strict=True))
    lines = list(relieved.lines)
    if brought:
        lines.append(ledger.line(tax, who, "losses_brought_forward", f"Net gains of the year "
                                 f"{_gbp(net)} ({gains}): {_gbp(used)} of the {_gbp(brought)} "
                                 "losses brought forward used (down to the exempt amount)", ZERO,
                                 [exemption], used, rule))  # fmt: skip
    lower_rate = f"{lower.value.normalize():f}" if (lower := _first(rates, 0)) else ""
    higher_rate = f"{higher.value.normalize():f}" if (higher := _first(rates, 1)) else ""
    lines.append(ledger.line(tax, who, "exempt", f"Net gains {_gbp(after_losses)}"
                             f"{'' if brought else f' ({gains})'}: {_gbp(exempt)} exempt", ZERO,
                             [exemption], exempt, rule))  # fmt: skip
    if lower is not None and higher is not None:
        lines += [
            ledger.line(tax, who, "lower_rate", f"{_gbp(at_lower)} at {lower_rate}% "
                        f"(basic rate band left: {_gbp(band_left)})", at_lower * lower.fraction,
                        [lower, band, exemption], at_lower),
            ledger.line(tax, who, "higher_rate", f"{_gbp(at_higher)} at {higher_rate}%",
                        at_higher * higher.fraction, [higher, band, exemption], at_higher),
        ]  # fmt: skip
    lines.append(ledger.line(tax, who, "losses_carried_forward", f"Losses to carry forward: "
                             f"{_gbp(carried)}", ZERO, [exemption], carried, rule))  # fmt: skip
    ledger.total(tax, who, lines)


def _first(rates: list[tuple[Param, Param] | None], which: int) -> Param | None:
    """The lower (0) or higher (1) rate of the year's gains (all alike by then), if any gain."""
    return next((r[which] for r in rates if r is not None), None)


def _cgt_reduced(
    ledger: Ledger,
    facts: Facts,
    relieved: Relieved,
    exemption: Param,
    in_year: list[Disposal],
) -> None:
    """Every gain of the year qualifies for a reduced-rate relief (GOV.UK's Business Asset
    Disposal Relief steps: add the gains, deduct the tax-free allowance, the relief's rate on
    what is left, whatever the income)."""
    tax, who = "cgt", "you"
    reduced = relieved.reduced
    assert reduced is not None
    net = reduced.gains
    exempt = min(net, exemption.value)
    taxable = net - exempt
    gains = ", ".join(f"{d.asset} {_gbp(g)}" for d, g in zip(in_year, relieved.gains, strict=True))
    rule = ["UK:TCGA_1992:S_3"]
    lines = [
        *relieved.lines,
        ledger.line(tax, who, "exempt", f"Net gains {_gbp(net)} ({gains}): {_gbp(exempt)} "
                    "exempt", ZERO, [exemption], exempt, rule),
        ledger.line(tax, who, "relief_rate", f"{_gbp(taxable)} at "
                    f"{reduced.rate.value.normalize():f}% ({reduced.relief.name}, within the "
                    f"{_gbp(reduced.limit.value)} lifetime limit)",
                    taxable * reduced.rate.fraction, [reduced.rate, reduced.limit, exemption],
                    taxable, nodes=reduced.node_ids),
        ledger.line(tax, who, "losses_carried_forward", "Losses to carry forward: "
                    f"{_gbp(facts.capital_losses_brought_forward)}", ZERO, [exemption],
                    facts.capital_losses_brought_forward, rule),
    ]  # fmt: skip
    ledger.total(tax, who, lines)
